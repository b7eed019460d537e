//! Reading a registered schema's compact text back into a `Value`, each object and array
//! allocated once at its final size.
//!
//! serde_json's own `Value` reader inserts an object's entries one by one into a map that grows
//! as it goes (an ordered map: its entries and its index are each reallocated two or three
//! times for a schema object of a few keys), and an array the same way. Every growth copies,
//! and the grown map keeps its spare room, so a schema read that way takes about twice the
//! memory it needs: on a first turn that reads a thousand schemas, memory the process writes for
//! the first time (each new page is a fault the kernel serves). This reader gathers each
//! object's entries, and each array's items, on one stack shared by the whole document, and
//! moves them into a map or vector of the exact size once the object or array has ended.
//!
//! The result is the `Value` serde_json would read, with its entries in the same order (tested
//! against it below), except for one key serde_json reserves for its own use (an object whose
//! first key is `$serde_json::private::RawValue` is read by serde_json as raw JSON text): that
//! key is read as a key like any other. Registered schemas' text is written by serde_json from
//! a `Value`, so every text this reads is well formed.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// `text` read as a `Value`, or `None` if it is not one JSON value.
pub(super) fn read(text: &str) -> Option<Value> {
    let mut stack = Stack::default();
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let value = Exact(&mut stack).deserialize(&mut deserializer).ok()?;
    deserializer.end().ok()?;
    Some(value)
}

/// The entries of the objects and the items of the arrays still being read, innermost last.
#[derive(Default)]
struct Stack {
    entries: Vec<(String, Value)>,
    items: Vec<Value>,
}

/// Reads one value, gathering the members of its objects and arrays on the shared stack.
struct Exact<'s>(&'s mut Stack);

impl<'de> DeserializeSeed<'de> for Exact<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Exact<'_> {
    type Value = Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("any JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Value, E> {
        // As serde_json reads it: JSON text has no NaN or infinity, so this is always a number.
        Ok(Number::from_f64(value).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let start = self.0.items.len();
        while let Some(item) = seq.next_element_seed(Exact(self.0))? {
            self.0.items.push(item);
        }
        // `drain` of an exact-size iterator: one allocation of the final length.
        Ok(Value::Array(self.0.items.drain(start..).collect()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let start = self.0.entries.len();
        while let Some(key) = map.next_key::<String>()? {
            let value = map.next_value_seed(Exact(self.0))?;
            self.0.entries.push((key, value));
        }
        let mut object = Map::with_capacity(self.0.entries.len() - start);
        // `insert` as serde_json's reader does it: a repeated key keeps its first place and
        // takes its last value.
        for (key, value) in self.0.entries.drain(start..) {
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Equal as values and, since `Map`'s equality ignores order, as text.
    fn same_as_serde_json(text: &str) {
        let ours = read(text).expect("reads");
        let theirs: Value = serde_json::from_str(text).unwrap();
        assert_eq!(ours, theirs, "{text}");
        assert_eq!(ours.to_string(), theirs.to_string(), "{text}");
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        /// What to look for, "quoted" \ escaped
        query: String,
        limit: Option<u32>,
        offset: i64,
        ratio: f32,
        tags: Vec<String>,
        nested: Nested,
        mode: Mode,
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    struct Nested {
        since: Option<String>,
        flags: [bool; 2],
    }

    #[derive(schemars::JsonSchema)]
    #[allow(dead_code)]
    enum Mode {
        Fast,
        Slow { depth: u8 },
    }

    #[test]
    fn reads_what_serde_json_reads() {
        let derived = crate::schema::canonical_schema_for::<Args>();
        same_as_serde_json(&derived.to_string());
        same_as_serde_json(&serde_json::to_string_pretty(&derived).unwrap());
        for text in [
            r#"{"z":1,"a":2,"m":{"y":[],"b":{}},"e":[1,-2,3.5,1e300,-0.0,18446744073709551615]}"#,
            r#"{"a":1,"a":2,"b":3}"#,
            r#"[null,true,false,"\u00e9\n\"",{"":""}]"#,
            r#""text""#,
            "0",
            "{}",
            "[]",
        ] {
            same_as_serde_json(text);
        }
        assert_eq!(
            read(r#"{"a":1,"a":2,"b":3}"#),
            Some(json!({"a": 2, "b": 3}))
        );
    }

    #[test]
    fn refuses_what_is_not_one_value() {
        for text in ["", "{", r#"{"a":}"#, "1 2", "[1,]"] {
            assert_eq!(read(text), None, "{text}");
        }
    }

    #[test]
    fn objects_and_arrays_take_no_spare_room() {
        let value = read(r#"{"a":[1,2,3],"b":{"c":1,"d":2,"e":3,"f":4,"g":5}}"#).unwrap();
        assert_eq!(value["a"].as_array().unwrap().capacity(), 3);
    }
}

//! Whether a `tools/call`'s params read as rmcp's `CallToolRequestParams`, without building them.
//!
//! The HTTP transport hands a well-formed `tools/call` to rmcp unscreened
//! ([`is_tool_call`](super::screen::is_tool_call)), and rmcp then reads the params itself. Reading
//! them as `CallToolRequestParams` first, only to drop them, built the argument map twice: for a
//! 10 KB argument that was about 70 k instructions a call, for `{"a":2,"b":3}` about 5 k. [`fits`]
//! walks the same text through the same serde_json calls as that derived `Deserialize` (and
//! `serde_json::Value`'s, for the arguments), so it accepts exactly the same texts, but keeps
//! nothing: every string is still parsed (escapes, surrogates), every number is still read (a
//! float out of range fails here as it fails there), and nesting counts against serde_json's
//! depth limit the same way, since each object and array is entered with the same
//! `deserialize_*` method.
//!
//! One difference, on the safe side: an object among the arguments whose first key is one of
//! serde_json's private tokens (`$serde_json::private::RawValue`, and `...::Number` with the
//! `arbitrary_precision` feature) is read specially by `Value`; [`fits`] answers `false` for it,
//! and the full screen, which reads the message as rmcp does, decides instead.

use std::fmt;

use rmcp::model::{InputResponses, RequestMetaObject};
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// Whether `params` (the text of a `tools/call`'s params, valid JSON) reads as rmcp's
/// `CallToolRequestParams`.
pub(crate) fn fits(params: &str) -> bool {
    serde_json::from_str::<CallParams>(params).is_ok()
}

/// The fields of `CallToolRequestParams`, in declaration order (its sequence form reads them in
/// this order; its derive names its fields so).
const FIELDS: &[&str] = &[
    "_meta",
    "name",
    "arguments",
    "inputResponses",
    "requestState",
];

/// `CallToolRequestParams`, read and dropped.
struct CallParams;

impl<'de> Deserialize<'de> for CallParams {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_struct("CallToolRequestParams", FIELDS, CallParamsVisitor)
    }
}

struct CallParamsVisitor;

impl<'de> Visitor<'de> for CallParamsVisitor {
    type Value = CallParams;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct CallToolRequestParams")
    }

    /// The object form: each known field at most once, `name` required, the rest optional,
    /// unknown fields skipped as the derive skips them (`IgnoredAny`: read, not checked).
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CallParams, A::Error> {
        let mut seen = [false; 5];
        while let Some(field) = map.next_key::<Field>()? {
            let Field::Known(index) = field else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if std::mem::replace(&mut seen[index], true) {
                return Err(de::Error::duplicate_field(FIELDS[index]));
            }
            read_field(index, ValueOf(&mut map))?;
        }
        if !seen[1] {
            return Err(de::Error::missing_field("name"));
        }
        Ok(CallParams)
    }

    /// The sequence form the derive also reads: the five fields in order, where only a missing
    /// `_meta` (it has a default) is not an error. serde_json refuses elements beyond the fifth.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CallParams, A::Error> {
        for index in 0..FIELDS.len() {
            if !read_field(index, ElementOf(&mut seq))? && index != 0 {
                return Err(de::Error::invalid_length(
                    index,
                    &"struct CallToolRequestParams with 5 elements",
                ));
            }
        }
        Ok(CallParams)
    }
}

/// Where the next field's value comes from: a map's value or a sequence's element.
trait Source<'de> {
    type Error: de::Error;
    /// Reads the next value as `T`; `false` when a sequence has no more elements.
    fn read<T: Deserialize<'de>>(self) -> Result<bool, Self::Error>;
}

struct ValueOf<'a, A>(&'a mut A);

impl<'de, A: MapAccess<'de>> Source<'de> for ValueOf<'_, A> {
    type Error = A::Error;
    fn read<T: Deserialize<'de>>(self) -> Result<bool, A::Error> {
        self.0.next_value::<T>().map(|_| true)
    }
}

struct ElementOf<'a, A>(&'a mut A);

impl<'de, A: SeqAccess<'de>> Source<'de> for ElementOf<'_, A> {
    type Error = A::Error;
    fn read<T: Deserialize<'de>>(self) -> Result<bool, A::Error> {
        self.0.next_element::<T>().map(|element| element.is_some())
    }
}

/// Reads field `index` with the type rmcp reads it as: the rare fields (`_meta`, a resent call's
/// `inputResponses` and `requestState`) as their own types, the name and the arguments as
/// shapes that keep nothing.
fn read_field<'de, S: Source<'de>>(index: usize, source: S) -> Result<bool, S::Error> {
    match index {
        0 => source.read::<Option<RequestMetaObject>>(),
        1 => source.read::<Text>(),
        2 => source.read::<Option<Object>>(),
        3 => source.read::<Option<InputResponses>>(),
        _ => source.read::<Option<String>>(),
    }
}

/// A key of the params object: one of [`FIELDS`] (by index) or another.
enum Field {
    Known(usize),
    Other,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct FieldVisitor;
        impl Visitor<'_> for FieldVisitor {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("field identifier")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Field, E> {
                Ok(match FIELDS.iter().position(|field| *field == key) {
                    Some(index) => Field::Known(index),
                    None => Field::Other,
                })
            }
        }
        deserializer.deserialize_identifier(FieldVisitor)
    }
}

/// A string (the tool's name: a `Cow<'static, str>`, read as a `String` is), not kept.
struct Text;

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl Visitor<'_> for TextVisitor {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Text, E> {
                Ok(Text)
            }
            fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Text, E> {
                // `String`'s own visitor takes UTF-8 bytes too.
                match std::str::from_utf8(bytes) {
                    Ok(_) => Ok(Text),
                    Err(_) => Err(de::Error::invalid_value(
                        de::Unexpected::Bytes(bytes),
                        &self,
                    )),
                }
            }
        }
        deserializer.deserialize_string(TextVisitor)
    }
}

/// A JSON object of any values (the arguments: a `serde_json::Map<String, Value>`), not kept.
struct Object;

impl<'de> Deserialize<'de> for Object {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // `Map`'s own `Deserialize` asks for a map, and serde_json gives one only for `{`.
        deserializer.deserialize_map(AnyVisitor).map(|_| Object)
    }
}

/// Any JSON value, read as `serde_json::Value` reads it (`deserialize_any`), not kept.
struct Any;

impl<'de> Deserialize<'de> for Any {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(AnyVisitor)
    }
}

/// The prefix of the keys `serde_json::Value` reads specially (see the module docs).
const PRIVATE_TOKEN: &str = "$serde_json::private::";

struct AnyVisitor;

impl<'de> Visitor<'de> for AnyVisitor {
    type Value = Any;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_str<E>(self, _: &str) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_unit<E>(self) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_none<E>(self) -> Result<Any, E> {
        Ok(Any)
    }
    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Any, D::Error> {
        Any::deserialize(deserializer)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Any, A::Error> {
        while seq.next_element::<Any>()?.is_some() {}
        Ok(Any)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Any, A::Error> {
        let mut first = true;
        while let Some(key) = map.next_key::<Key>()? {
            if std::mem::take(&mut first) && key.private {
                return Err(de::Error::custom(
                    "a serde_json private token: left to the full screen",
                ));
            }
            map.next_value::<Any>()?;
        }
        Ok(Any)
    }
}

/// An object's key (a `String`, as `Value` reads it); only whether it is a private token is kept.
struct Key {
    private: bool,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
                Ok(Key {
                    private: key.starts_with(PRIVATE_TOKEN),
                })
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::CallToolRequestParams;

    /// What rmcp's own type says of `params`: the answer [`fits`] must give.
    fn rmcp_reads(params: &str) -> bool {
        serde_json::from_str::<CallToolRequestParams>(params).is_ok()
    }

    fn nested(depth: usize) -> String {
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
    }

    /// Values of every kind, and those `Value` refuses where a mere scan (`IgnoredAny`) would
    /// not: a float out of range, a lone surrogate, nesting beyond serde_json's limit.
    fn values() -> Vec<String> {
        let mut values: Vec<String> = [
            "null",
            "true",
            "0",
            "-7",
            "18446744073709551615",
            "-9223372036854775809",
            "1.5e300",
            "1e400",
            "-1e400",
            r#""""#,
            r#""echo""#,
            r#""e\u0063ho\n""#,
            r#""\ud800""#,
            r#""\ud83d\ude00""#,
            r#""\udc00x""#,
            "[]",
            "[1e400]",
            r#"["\ud800"]"#,
            "{}",
            r#"{"a":2,"b":3}"#,
            r#"{"a":2,"a":3}"#,
            r#"{"text":"\ud800"}"#,
            r#"{"x":1e400}"#,
            r#"{"x":{"y":[1,{"z":-1e400}]}}"#,
            r#"{"x":{"y":[1,{"z":"ok"}]}}"#,
            r#"{"_meta":{"progressToken":1}}"#,
        ]
        .map(String::from)
        .to_vec();
        for depth in [120, 126, 127, 128, 129] {
            values.push(format!(r#"{{"deep":{}}}"#, nested(depth)));
            values.push(nested(depth));
        }
        values
    }

    const KEYS: [&str; 8] = [
        "name",
        "arguments",
        "_meta",
        "inputResponses",
        "requestState",
        "extra",
        r"n\u0061me",
        "Name",
    ];

    #[test]
    fn agrees_with_rmcp_on_objects_of_one_and_two_fields() {
        let values = values();
        let mut checked = 0;
        let mut accepted = 0;
        for first in KEYS {
            for a in &values {
                let one = format!(r#"{{"{first}":{a}}}"#);
                assert_eq!(fits(&one), rmcp_reads(&one), "{one}");
                for second in KEYS {
                    for b in &values {
                        let two = format!(r#"{{"{first}":{a},"{second}":{b}}}"#);
                        let expected = rmcp_reads(&two);
                        assert_eq!(fits(&two), expected, "{two}");
                        checked += 1;
                        accepted += usize::from(expected);
                    }
                }
            }
        }
        // Both answers occur often: the corpus tells the two apart where they could differ.
        assert!(
            accepted > 1_000 && checked - accepted > 1_000,
            "{accepted} of {checked}"
        );
    }

    #[test]
    fn agrees_with_rmcp_on_other_shapes() {
        let cases = [
            r#"{"name":"add","arguments":{"a":2,"b":3}}"#,
            r#"{"name":"add","arguments":{"a":2,"b":3},"_meta":{"progressToken":"t"},"requestState":"s","inputResponses":{"q":{"action":"accept"}}}"#,
            r#"{"name":"add","name":"add"}"#,
            r#"{"name":"add","arguments":null,"arguments":{}}"#,
            r#"{"name":"add","_meta":null,"_meta":null}"#,
            r#"{"name":"add","requestState":7}"#,
            r#"{"name":"add","inputResponses":[]}"#,
            r#"{"name":"add","_meta":[]}"#,
            r#"{"name":"add","extra":1e400,"other":"\ud800"}"#,
            r#"{"arguments":{}}"#,
            "{}",
            "[]",
            "[null]",
            r#"[null,"add"]"#,
            r#"[null,"add",null]"#,
            r#"[null,"add",null,null]"#,
            r#"[null,"add",null,null,null]"#,
            r#"[null,"add",{"a":1},null,"state"]"#,
            r#"[null,"add",{"a":1e400},null,null]"#,
            r#"[null,"add",[1],null,null]"#,
            r#"[{},"add",null,{},null]"#,
            r#"[null,"add",null,null,null,null]"#,
            r#"[null,7,null,null,null]"#,
            r#""add""#,
            "7",
            "null",
            "true",
        ];
        for case in cases {
            assert_eq!(fits(case), rmcp_reads(case), "{case}");
        }
    }

    #[test]
    fn a_private_serde_json_token_is_left_to_the_full_screen() {
        // `Value` reads these keys specially; the check does not try to, and answers `false`
        // (the full screen decides), never `true` where rmcp would refuse.
        for case in [
            r#"{"name":"add","arguments":{"$serde_json::private::RawValue":"[1]"}}"#,
            r#"{"name":"add","arguments":{"$serde_json::private::RawValue":"[1"}}"#,
            r#"{"name":"add","arguments":{"x":{"$serde_json::private::Number":"1"}}}"#,
        ] {
            assert!(!fits(case), "{case}");
        }
        // Not first in its object, such a key is an ordinary one, for `Value` and the check.
        let later = r#"{"name":"add","arguments":{"a":1,"$serde_json::private::RawValue":"[1"}}"#;
        assert!(fits(later) && rmcp_reads(later));
    }
}

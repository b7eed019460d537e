//! Field readers for the providers' reply types (`#[serde(deserialize_with = ..)]`) that take a
//! value of another type as absent instead of failing the whole reply.
//!
//! The adapters read replies the way the providers and the servers that copy them write them,
//! and those servers differ in small things (a count sent as `null`, an id as a number): a field
//! of the wrong type is what a missing one would be, and the adapter then says which field is
//! missing (`tool_use block 0 lacks `id` or `name``) rather than what serde expected. Each
//! reader consumes the value it skips without buffering it, so a reply is still read in one pass.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A visitor that turns every JSON value other than the one `$accept` handles into `$default`,
/// consuming arrays and objects whole.
macro_rules! skip_others {
    ($default:expr) => {
        skip_scalars!($default);
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok($default)
        }
    };
}

/// The scalar half of [`skip_others`]: booleans, signed and float numbers, and null.
macro_rules! skip_scalars {
    ($default:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($default)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($default)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($default)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($default)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($default)
        }
    };
}

/// `Some` for a string (borrowed from the input when it has no escapes), `None` for any other
/// value.
pub(crate) fn text<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Cow<'de, str>>, D::Error> {
    struct Text;
    impl<'de> Visitor<'de> for Text {
        type Value = Option<Cow<'de, str>>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
            Ok(Some(Cow::Borrowed(text)))
        }
        fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(text.to_string())))
        }
        fn visit_string<E: de::Error>(self, text: String) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(text)))
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<Self::Value, D::Error> {
            inner.deserialize_any(self)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        skip_others!(None);
    }
    deserializer.deserialize_any(Text)
}

/// `Some` for a count (a non-negative integer), `None` for any other value.
pub(crate) fn count<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    struct Count;
    impl<'de> Visitor<'de> for Count {
        type Value = Option<u64>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_u64<E: de::Error>(self, count: u64) -> Result<Self::Value, E> {
            Ok(Some(count))
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<Self::Value, D::Error> {
            inner.deserialize_any(self)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        skip_others!(None);
    }
    deserializer.deserialize_any(Count)
}

/// The `cached_tokens` count of an OpenAI usage details object (`prompt_tokens_details`,
/// `input_tokens_details`); `None` for any other value or a details object without it.
pub(crate) fn cached_tokens<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<u64>, D::Error> {
    /// The one field read; a count of another type reads as absent, as [`count`] says.
    #[derive(serde::Deserialize)]
    struct Cached(#[serde(deserialize_with = "count")] Option<u64>);
    struct Details;
    impl<'de> Visitor<'de> for Details {
        type Value = Option<u64>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<Self::Value, D::Error> {
            inner.deserialize_any(self)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        skip_scalars!(None);
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut cached = None;
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                if key == "cached_tokens" {
                    cached = map.next_value::<Cached>()?.0;
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(cached)
        }
    }
    deserializer.deserialize_any(Details)
}

/// `true` only for `true`.
pub(crate) fn flag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    struct Flag;
    impl<'de> Visitor<'de> for Flag {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_bool<E: de::Error>(self, on: bool) -> Result<Self::Value, E> {
            Ok(on)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(false)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(false)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(false)
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(false)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(false)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(false)
        }
        fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<Self::Value, D::Error> {
            inner.deserialize_any(self)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(false)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(false)
        }
    }
    deserializer.deserialize_any(Flag)
}

/// A field that should be an array: what it held.
#[derive(Debug, Default)]
pub(crate) enum Listed<T> {
    /// Absent or `null`.
    #[default]
    Absent,
    /// Something other than an array.
    Mistyped,
    /// An array, its elements read as `T`.
    Items(Vec<T>),
}

impl<T> Listed<T> {
    /// The elements; none unless it was an array.
    pub(crate) fn items(&self) -> &[T] {
        match self {
            Listed::Items(items) => items,
            _ => &[],
        }
    }

    /// Whether it holds no element (it was no array, or an empty one).
    pub(crate) fn is_empty(&self) -> bool {
        self.items().is_empty()
    }

    /// The elements, if it was an array.
    pub(crate) fn array(self) -> Option<Vec<T>> {
        match self {
            Listed::Items(items) => Some(items),
            _ => None,
        }
    }
}

/// The elements as an array; a list that was no array (never one a request builds) as `null`.
impl<T: serde::Serialize> serde::Serialize for Listed<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Listed::Items(items) => serializer.collect_seq(items),
            Listed::Absent | Listed::Mistyped => serializer.serialize_none(),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Listed<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct List<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for List<T> {
            type Value = Listed<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Listed::Items(items))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Listed::Absent)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Listed::Absent)
            }
            fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<Self::Value, D::Error> {
                inner.deserialize_any(self)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Listed::Mistyped)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Listed::Mistyped)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Listed::Mistyped)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Listed::Mistyped)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Listed::Mistyped)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Listed::Mistyped)
            }
        }
        deserializer.deserialize_any(List(PhantomData))
    }
}

/// Reads a whole reply as `T`; a body that is no JSON object reads as `T::default()` (every field
/// absent), so that the adapter says what it lacks.
pub(crate) fn reply<'a, T: Deserialize<'a> + Default>(
    body: &'a serde_json::Value,
) -> Result<T, serde_json::Error> {
    if body.is_object() {
        T::deserialize(body)
    } else {
        Ok(T::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(serde::Deserialize, Default)]
    struct Sample<'a> {
        #[serde(default, borrow, deserialize_with = "text")]
        id: Option<Cow<'a, str>>,
        #[serde(default, deserialize_with = "count")]
        tokens: Option<u64>,
        #[serde(default, deserialize_with = "flag")]
        thought: bool,
        #[serde(default)]
        parts: Listed<u64>,
    }

    #[test]
    fn values_of_another_type_read_as_absent() {
        let body = json!({"id": 7, "tokens": -1, "thought": "yes", "parts": "text"});
        let sample: Sample = reply(&body).unwrap();
        assert_eq!(sample.id, None);
        assert_eq!(sample.tokens, None);
        assert!(!sample.thought);
        assert!(matches!(sample.parts, Listed::Mistyped));
        for odd in [json!([1, {"a": [2]}]), json!({"a": {"b": []}}), json!(null)] {
            let body = json!({"id": odd, "tokens": odd, "thought": odd});
            let sample: Sample = reply(&body).unwrap();
            assert_eq!(
                (sample.id, sample.tokens, sample.thought),
                (None, None, false)
            );
        }
    }

    #[test]
    fn values_of_the_right_type_are_read_borrowed_where_they_can_be() {
        let data = r#"{"id": "c1", "tokens": 12, "thought": true, "parts": [1, 2]}"#;
        let sample: Sample = serde_json::from_str(data).unwrap();
        assert!(matches!(sample.id, Some(Cow::Borrowed("c1"))));
        assert_eq!(sample.tokens, Some(12));
        assert!(sample.thought);
        assert_eq!(sample.parts.items(), &[1, 2]);
        let escaped: Sample = serde_json::from_str(r#"{"id": "c\n1"}"#).unwrap();
        assert_eq!(escaped.id.as_deref(), Some("c\n1"));
        assert!(matches!(escaped.parts, Listed::Absent));
        let text = json!("text");
        let not_an_object: Sample = reply(&text).unwrap();
        assert!(not_an_object.id.is_none());
    }
}

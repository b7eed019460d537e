//! An object's keys, read as serde_json reads them: a string, or the number or boolean it spells
//! for a map keyed by one.

use serde::de::{self, Unexpected, Visitor};
use serde::forward_to_deserialize_any;

use super::error::Error;

/// A map key: a string, or (for a map keyed by numbers or booleans) the number or boolean it
/// spells, as serde_json reads keys.
pub(super) struct Key<'de>(pub(super) &'de str);

macro_rules! numeric_key {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                if !self.0.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
                    return Err(de::Error::invalid_type(Unexpected::Str(self.0), &visitor));
                }
                let mut parser = serde_json::Deserializer::from_str(self.0);
                let number = de::Deserializer::$method(&mut parser, visitor)?;
                parser.end()?;
                Ok(number)
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for Key<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_str(self.0)
    }

    // Written out rather than forwarded to `deserialize_any`, and `visit_str` rather than
    // `visit_borrowed_str` (whose default forwards to it): every struct's field names are read
    // here, and each forward would be one more function per struct type. A field identifier
    // borrows nothing.
    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_str(self.0)
    }

    numeric_key! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            other => Err(de::Error::invalid_type(Unexpected::Str(other), &visitor)),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // A key is never null.
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let key = de::value::BorrowedStrDeserializer::<Error>::new(self.0);
        de::Deserializer::deserialize_enum(key, name, variants, visitor)
    }

    forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct
        map struct ignored_any
    }
}

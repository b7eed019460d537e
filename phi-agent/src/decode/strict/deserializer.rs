//! What each of serde's requests (`deserialize_struct`, `deserialize_u8`, ...) makes of one
//! value: serde_json's answer, counted, except that a struct is read from an object only.

use serde::de::{self, Unexpected, Visitor};
use serde_json::Value;

use super::containers::{visit_array, visit_object};
use super::error::{Error, unexpected};
use super::value::Strict;
use super::variant::Enum;
use crate::limits;

/// Numbers: counted as the walk counts them, then read by serde_json's number.
macro_rules! numbers {
    ($($method:ident)*) => {
        $(
            #[inline]
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                match self.value {
                    Value::Number(number) => {
                        self.budget.spend(limits::LITERAL_LEN)?;
                        Ok(de::Deserializer::$method(number, visitor)?)
                    }
                    other => self.forward(|| de::Deserializer::$method(other, visitor)),
                }
            }
        )*
    };
}

/// Strings, and what serde_json reads as a string: counted (before the visitor copies them),
/// then handed to the visitor as serde_json hands them.
macro_rules! strings {
    ($($method:ident)*) => {
        $(
            #[inline]
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                match self.value {
                    Value::String(text) => {
                        self.budget.spend(limits::string_len(text.len()))?;
                        visitor.visit_borrowed_str(text)
                    }
                    other => self.forward(|| de::Deserializer::$method(other, visitor)),
                }
            }
        )*
    };
}

impl<'de> de::Deserializer<'de> for Strict<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(items) => visit_array(self, items, visitor),
            Value::Object(fields) => visit_object(self, fields, visitor),
            leaf => {
                self.budget.spend(limits::scalar_len(leaf).unwrap_or(0))?;
                Ok(de::Deserializer::deserialize_any(leaf, visitor)?)
            }
        }
    }

    numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    strings! {
        deserialize_char deserialize_str deserialize_string deserialize_identifier
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Bool(value) => {
                self.budget.spend(limits::LITERAL_LEN)?;
                visitor.visit_bool(*value)
            }
            other => self.forward(|| de::Deserializer::deserialize_bool(other, visitor)),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => {
                self.budget.spend(limits::LITERAL_LEN)?;
                visitor.visit_unit()
            }
            other => self.forward(|| de::Deserializer::deserialize_unit(other, visitor)),
        }
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(items) => visit_array(self, items, visitor),
            other => self.forward(|| de::Deserializer::deserialize_bytes(other, visitor)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => {
                self.budget.spend(limits::LITERAL_LEN)?;
                visitor.visit_none()
            }
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        // serde_json's raw values are its own business: forwarded.
        if name.starts_with("$serde_json") {
            self.spend_whole()?;
            return Ok(de::Deserializer::deserialize_newtype_struct(
                self.value, name, visitor,
            )?);
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(items) => visit_array(self, items, visitor),
            other => self.forward(|| de::Deserializer::deserialize_seq(other, visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Object(fields) => visit_object(self, fields, visitor),
            other => self.forward(|| de::Deserializer::deserialize_map(other, visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Value::Object(fields) => visit_object(self, fields, visitor),
            // The one difference from serde_json: no struct from an array.
            other => Err(de::Error::invalid_type(unexpected(other), &visitor)),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Value::String(variant) => {
                self.budget.spend(limits::string_len(variant.len()))?;
                visitor.visit_enum(Enum {
                    variant,
                    content: None,
                })
            }
            Value::Object(fields) => {
                let mut entries = fields.iter();
                match (entries.next(), entries.next()) {
                    (Some((variant, value)), None) => {
                        // `{"variant": content}`: an object of one key, its content one
                        // level down.
                        let depth_left = self.inner_depth()?;
                        self.budget
                            .spend(limits::OBJECT_FRAME_LEN + limits::key_len(variant.len()))?;
                        visitor.visit_enum(Enum {
                            variant,
                            content: Some(Strict {
                                value,
                                depth_left,
                                ..self
                            }),
                        })
                    }
                    _ => Err(de::Error::invalid_value(
                        Unexpected::Map,
                        &"map with a single key",
                    )),
                }
            }
            other => Err(de::Error::invalid_type(unexpected(other), &"string or map")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // Skipped, but counted: an ignored field is as long as any other.
        self.spend_whole()?;
        visitor.visit_unit()
    }
}

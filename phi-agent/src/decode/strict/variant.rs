//! Externally tagged enums: a variant's name, and its content under that name (`{"box": {..}}`),
//! which is one step of the path of an error inside it.

use serde::de::{self, DeserializeSeed, EnumAccess, Unexpected, VariantAccess, Visitor};
use serde_json::Value;

use super::containers::{visit_array, visit_object};
use super::error::{Error, unexpected};
use super::value::Strict;

/// An externally tagged enum value: the variant's name, and its content unless it is a unit.
pub(super) struct Enum<'de> {
    pub(super) variant: &'de str,
    /// The deserializer of the content, already counted in its wrapping object.
    pub(super) content: Option<Strict<'de>>,
}

impl<'de> EnumAccess<'de> for Enum<'de> {
    type Error = Error;
    type Variant = Variant<'de>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Variant<'de>), Error> {
        let variant = de::value::BorrowedStrDeserializer::<Error>::new(self.variant);
        let value = seed.deserialize(variant)?;
        let content = self.content.map(|content| (self.variant, content));
        Ok((value, Variant(content)))
    }
}

/// A variant's content, under its name (`{"box": {"w": 3}}`), which is then a step of the path
/// of what fails inside it; `None` for a variant written as a string.
pub(super) struct Variant<'de>(Option<(&'de str, Strict<'de>)>);

/// `result` of decoding the content of `variant`, its error one step deeper.
fn in_variant<T>(variant: &str, result: Result<T, Error>) -> Result<T, Error> {
    result.map_err(|error| error.in_field(variant))
}

impl<'de> VariantAccess<'de> for Variant<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.0 {
            Some((variant, content)) => in_variant(variant, de::Deserialize::deserialize(content)),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        match self.0 {
            Some((variant, content)) => in_variant(variant, seed.deserialize(content)),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"newtype variant",
            )),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        let Some((variant, content)) = self.0 else {
            return Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"tuple variant",
            ));
        };
        in_variant(
            variant,
            match content.value {
                Value::Array(items) if items.is_empty() => match content.spend_whole() {
                    Ok(()) => visitor.visit_unit(),
                    Err(error) => Err(error),
                },
                Value::Array(items) => visit_array(content, items, visitor),
                other => Err(de::Error::invalid_type(unexpected(other), &"tuple variant")),
            },
        )
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let Some((variant, content)) = self.0 else {
            return Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"struct variant",
            ));
        };
        in_variant(
            variant,
            match content.value {
                Value::Object(fields) => visit_object(content, fields, visitor),
                other => Err(de::Error::invalid_type(
                    unexpected(other),
                    &"struct variant",
                )),
            },
        )
    }
}

//! Decoding from a borrowed JSON value exactly as serde_json's `&Value` does, with one rule
//! more: a struct (or a struct variant) is read only from a JSON object, never from an array.
//!
//! serde's derived `Deserialize` for a struct also reads it from a sequence, by position, and
//! serde_json's value deserializer offers that: `[1, "a"]` decodes as `{"x": 1, "y": "a"}`. The
//! schema the model was shown says object, and its validator refuses the array, so the decoder
//! and the validator disagreed; the validator is right (a positional array is a mistake, the
//! model cannot know the field order). The arguments object itself was already refused as an
//! array; this module refuses one at any depth.
//!
//! Everything else is forwarded to serde_json unchanged (leaves to its `&Value` deserializer,
//! map keys parsed as it parses them), so a value that decoded before decodes the same, at the
//! same cost: one more match on a struct.
//!
//! It also counts what it reads against a [`Budget`]: the approximate compact-JSON length and the
//! nesting depth, exactly as [`crate::limits::measure`] counts them, so the registry need not walk
//! a typed tool's arguments once more before decoding them (the decoder visits every node
//! anyway). A value past either limit stops the decoding there, before a long string is copied
//! or a deep value recursed into; what the registry then reports, and in which order, is the
//! walk's to say (see [`super::arguments`]): the decoder only has to never accept a value the
//! walk would refuse, and the tests compare the two on the same values.
//!
//! Its [`Error`] says where decoding stopped (`filters.tags[1]`), in the words serde_json uses.
//! The path is written only on the way out of a failure (each field, element and variant that
//! an error passes through adds its name), so a call that decodes pays nothing for it, and a
//! call that fails needs no second, path-tracking decoder compiled per argument type.
//!
//! A type that serde decodes through its own buffer (`#[serde(untagged)]`, internally tagged
//! enums, `#[serde(flatten)]`) reads its inner structs from that buffer, which still accepts
//! a sequence; the schema validator catches those on the failure path only when decoding fails
//! for another reason. Their schemas are `anyOf`s whose alternatives do not admit arrays, so a
//! model that follows the schema never sends one.

use serde::de::DeserializeOwned;
use serde::de::{
    self, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, Unexpected, VariantAccess, Visitor,
};
use serde::forward_to_deserialize_any;
use serde_json::{Map, Value};

use std::cell::Cell;

use crate::error::ROOT_PATH;
use crate::limits::{self, MAX_ARGUMENT_DEPTH, Measure};

/// The deserializer of one value; see the [module documentation](self).
#[derive(Clone, Copy)]
pub(crate) struct Strict<'de> {
    value: &'de Value,
    /// What the whole value may still take, shared by all its parts.
    budget: &'de Budget,
    /// How many more containers may nest here (a container is one level).
    depth_left: usize,
}

/// Decodes `value` as a `T`, refusing it once it counts more than `max_bytes` or nests deeper
/// than [`MAX_ARGUMENT_DEPTH`]: see the [module documentation](self).
pub(crate) fn decode<T: DeserializeOwned>(value: &Value, max_bytes: usize) -> Result<T, Error> {
    let budget = Budget {
        left: Cell::new(max_bytes),
    };
    T::deserialize(Strict {
        value,
        budget: &budget,
        depth_left: MAX_ARGUMENT_DEPTH,
    })
}

impl<'de> Strict<'de> {
    /// How many more containers may nest inside this value, a container: `Err` when it may
    /// not nest here.
    #[inline]
    fn inner_depth(&self) -> Result<usize, Error> {
        match self.depth_left.checked_sub(1) {
            Some(inner) => Ok(inner),
            None => Err(Error::past_limit()),
        }
    }

    /// Counts this value whole where the decoder skips it or hands it to serde_json whole.
    #[cold]
    fn spend_whole(&self) -> Result<(), Error> {
        if let Some(len) = limits::scalar_len(self.value) {
            return self.budget.spend(len);
        }
        match limits::measure(self.value, self.budget.left.get(), self.depth_left) {
            Measure::Fits(len) => self.budget.spend(len),
            Measure::TooLarge | Measure::TooDeep => Err(Error::past_limit()),
        }
    }
}

impl Strict<'_> {
    /// What serde_json's own deserializer makes of this value, where this one has nothing to
    /// add (mostly a type mismatch, which serde_json words): the value counted whole first, so
    /// that nothing is accepted uncounted.
    #[inline]
    fn forward<T>(self, read: impl FnOnce() -> Result<T, serde_json::Error>) -> Result<T, Error> {
        self.spend_whole()?;
        Ok(read()?)
    }
}

/// How many bytes a value may still take, counted as [`limits::measure`] counts them: a value
/// decodes only if the walk would find it within the same limit. A container counts its
/// brackets and separators when it is entered and each key as it is read; every value counts
/// itself where it is decoded, a string before it is copied. A scalar decoded for a known type
/// counts the constant of its kind, so no value is matched twice.
struct Budget {
    left: Cell<usize>,
}

impl Budget {
    #[inline]
    fn spend(&self, bytes: usize) -> Result<(), Error> {
        match self.left.get().checked_sub(bytes) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => Err(Error::past_limit()),
        }
    }
}

/// Why a value did not decode, and where: serde_json's message, and the path from the decoded
/// value to the one that failed.
#[derive(Debug)]
pub(crate) struct Error(Box<Failure>);

#[derive(Debug)]
struct Failure {
    message: String,
    /// Innermost first: each step is added as the error leaves it.
    path: Vec<Step>,
}

#[derive(Debug)]
enum Step {
    Field(String),
    Index(usize),
}

impl Error {
    fn new(message: String) -> Self {
        Self(Box::new(Failure {
            message,
            path: Vec::new(),
        }))
    }

    /// A value larger or deeper than its [`Budget`] allows. The registry tells the model which
    /// limit, from its own walk; these words are read only where no walk follows.
    #[cold]
    fn past_limit() -> Self {
        Self::new("the arguments are larger or nested deeper than the limit allows".to_string())
    }

    #[cold]
    fn in_field(mut self, name: &str) -> Self {
        self.0.path.push(Step::Field(name.to_string()));
        self
    }

    #[cold]
    fn in_element(mut self, index: usize) -> Self {
        self.0.path.push(Step::Index(index));
        self
    }

    /// A field that `unknown.path` leads to and the schema closes against, in serde's words.
    #[cold]
    pub(crate) fn unknown_field(unknown: super::closed::Unknown) -> Self {
        let expected = match unknown.expected.as_slice() {
            [] => "there are no fields".to_string(),
            [one] => format!("expected `{one}`"),
            several => {
                let names: Vec<String> = several.iter().map(|name| format!("`{name}`")).collect();
                format!("expected one of {}", names.join(", "))
            }
        };
        let mut error = Self::new(format!("unknown field `{}`, {expected}", unknown.field));
        for step in unknown.path.into_iter().rev() {
            error = match step {
                super::closed::Step::Field(name) => error.in_field(&name),
                super::closed::Step::Index(index) => error.in_element(index),
            };
        }
        error
    }

    /// serde_json's words for the failure, without the path.
    pub(crate) fn message(&self) -> &str {
        &self.0.message
    }

    /// Where it failed, written as schema errors write paths: `filters.tags[1]`, or
    /// [`ROOT_PATH`] for the decoded value itself.
    pub(crate) fn path(&self) -> String {
        if self.0.path.is_empty() {
            return ROOT_PATH.to_string();
        }
        let mut path = String::new();
        for step in self.0.path.iter().rev() {
            match step {
                Step::Field(name) if path.is_empty() => path.push_str(name),
                Step::Field(name) => {
                    path.push('.');
                    path.push_str(name);
                }
                Step::Index(index) => path.push_str(&format!("[{index}]")),
            }
        }
        path
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for Error {}

impl From<serde_json::Error> for Error {
    #[cold]
    fn from(error: serde_json::Error) -> Self {
        Self::new(error.to_string())
    }
}

impl de::Error for Error {
    #[cold]
    fn custom<T: std::fmt::Display>(message: T) -> Self {
        Self::new(message.to_string())
    }

    // serde_json words these its own way (`null`, not `unit value`; floats as JSON writes them).
    #[cold]
    fn invalid_type(unexpected: Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        serde_json::Error::invalid_type(unexpected, expected).into()
    }

    #[cold]
    fn invalid_value(unexpected: Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        serde_json::Error::invalid_value(unexpected, expected).into()
    }
}

fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (None, Some(i), _) => Unexpected::Signed(i),
            (_, _, Some(f)) => Unexpected::Float(f),
            _ => Unexpected::Other("number"),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// A sequence or map the visitor stopped reading before its end.
#[cold]
fn too_long(len: usize, what: &str) -> Error {
    de::Error::invalid_length(len, &format!("fewer elements in {what}").as_str())
}

/// Reads `array`, the value of `de`, one level deeper: its brackets and commas counted here,
/// each element as it is read.
fn visit_array<'de, V: Visitor<'de>>(
    de: Strict<'de>,
    array: &'de [Value],
    visitor: V,
) -> Result<V::Value, Error> {
    let len = array.len();
    let depth_left = de.inner_depth()?;
    de.budget.spend(limits::array_frame_len(len))?;
    let mut seq = Seq {
        items: array.iter(),
        len,
        budget: de.budget,
        depth_left,
    };
    // `match`, not `?`: this is compiled once per type that decodes, and so is each `?`.
    match visitor.visit_seq(&mut seq) {
        Ok(value) if seq.items.len() == 0 => Ok(value),
        Ok(_) => Err(too_long(len, "array")),
        Err(error) => Err(error),
    }
}

/// Reads `object`, the value of `de`, one level deeper: its braces counted here, each field as
/// its key is read.
fn visit_object<'de, V: Visitor<'de>>(
    de: Strict<'de>,
    object: &'de Map<String, Value>,
    visitor: V,
) -> Result<V::Value, Error> {
    let depth_left = de.inner_depth()?;
    de.budget.spend(limits::OBJECT_FRAME_LEN)?;
    let mut map = Fields {
        iter: object.iter(),
        value: None,
        budget: de.budget,
        depth_left,
    };
    match visitor.visit_map(&mut map) {
        Ok(value) if map.iter.len() == 0 => Ok(value),
        Ok(_) => Err(too_long(object.len(), "map")),
        Err(error) => Err(error),
    }
}

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

struct Seq<'de> {
    items: std::slice::Iter<'de, Value>,
    /// How many elements the array has.
    len: usize,
    budget: &'de Budget,
    /// How many more containers may nest in an element.
    depth_left: usize,
}

impl<'de> SeqAccess<'de> for Seq<'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let Some(value) = self.items.next() else {
            return Ok(None);
        };
        match seed.deserialize(Strict {
            value,
            budget: self.budget,
            depth_left: self.depth_left,
        }) {
            Ok(element) => Ok(Some(element)),
            // The element just read is the last one taken from `items`.
            Err(error) => Err(error.in_element(self.len - self.items.len() - 1)),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Fields<'de> {
    iter: serde_json::map::Iter<'de>,
    /// The field whose key was read last, and its value until that is read.
    value: Option<(&'de str, &'de Value)>,
    budget: &'de Budget,
    /// How many more containers may nest in a field's value.
    depth_left: usize,
}

impl<'de> MapAccess<'de> for Fields<'de> {
    type Error = Error;

    fn next_key_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.iter.next() {
            Some((key, value)) => {
                // The key, quoted, with its colon and comma; the value counts itself.
                self.budget.spend(limits::key_len(key.len()))?;
                self.value = Some((key, value));
                seed.deserialize(Key(key)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some((key, value)) => match seed.deserialize(Strict {
                value,
                budget: self.budget,
                depth_left: self.depth_left,
            }) {
                Ok(value) => Ok(value),
                Err(error) => Err(error.in_field(key)),
            },
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// A map key: a string, or (for a map keyed by numbers or booleans) the number or boolean it
/// spells, as serde_json reads keys.
struct Key<'de>(&'de str);

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
        map struct identifier ignored_any
    }
}

/// An externally tagged enum value: the variant's name, and its content unless it is a unit.
struct Enum<'de> {
    variant: &'de str,
    /// The deserializer of the content, already counted in its wrapping object.
    content: Option<Strict<'de>>,
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
struct Variant<'de>(Option<(&'de str, Strict<'de>)>);

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

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use serde::Deserialize;
    use serde::de::DeserializeOwned;
    use serde_json::{Value, json};

    use serde::de::IgnoredAny;

    use super::decode;
    use crate::error::ROOT_PATH;
    use crate::limits::{self, MAX_ARGUMENT_DEPTH, Measure};

    #[derive(Debug, PartialEq, Deserialize)]
    struct Point {
        x: i32,
        y: String,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Outer {
        point: Point,
        points: Vec<Point>,
        shape: Shape,
        tags: Option<Vec<u8>>,
        keyed: BTreeMap<u16, bool>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Shape {
        Dot,
        Line(u8, u8),
        Box { w: u8 },
        Named(String),
    }

    fn strict<T: DeserializeOwned>(value: &Value) -> Result<T, String> {
        decode::<T>(value, usize::MAX).map_err(|e| e.to_string())
    }

    #[test]
    fn what_serde_json_reads_from_an_object_it_reads_the_same() {
        let value = json!({
            "point": {"x": 1, "y": "a"},
            "points": [{"x": 2, "y": "b"}],
            "shape": {"box": {"w": 3}},
            "tags": [1, 2],
            "keyed": {"7": true, "8": false}
        });
        let ours: Outer = strict(&value).unwrap();
        assert_eq!(ours, Outer::deserialize(&value).unwrap());
        for shape in [json!("dot"), json!({"line": [1, 2]}), json!({"named": "n"})] {
            assert_eq!(
                strict::<Shape>(&shape).unwrap(),
                Shape::deserialize(&shape).unwrap()
            );
        }
        let map: HashMap<i64, f64> = strict(&json!({"-3": 1.5})).unwrap();
        assert_eq!(map[&-3], 1.5);
    }

    #[test]
    fn a_struct_is_never_read_from_an_array_at_any_depth() {
        let positional = json!({"x": 1, "y": "a"});
        assert!(
            Point::deserialize(&json!([1, "a"])).is_ok(),
            "serde_json would"
        );
        let refused = strict::<Point>(&json!([1, "a"])).unwrap_err();
        assert!(refused.contains("invalid type: sequence"), "{refused}");
        let nested = json!({
            "point": [1, "a"],
            "points": [], "shape": "dot", "tags": null, "keyed": {}
        });
        assert!(strict::<Outer>(&nested).is_err());
        let listed = json!({
            "point": positional, "points": [[2, "b"]], "shape": "dot", "tags": null, "keyed": {}
        });
        assert!(strict::<Outer>(&listed).is_err());
        assert!(strict::<Shape>(&json!({"box": [3]})).is_err());
    }

    #[test]
    fn the_errors_are_serde_json_s() {
        let too_long = strict::<(u8, u8)>(&json!([1, 2, 3])).unwrap_err();
        assert_eq!(
            too_long,
            <(u8, u8)>::deserialize(&json!([1, 2, 3]))
                .unwrap_err()
                .to_string()
        );
        let key = strict::<HashMap<u8, u8>>(&json!({"x": 1})).unwrap_err();
        assert!(key.contains("invalid type"), "{key}");
        let two = strict::<Shape>(&json!({"dot": null, "box": {"w": 1}})).unwrap_err();
        assert!(two.contains("map with a single key"), "{two}");
    }

    fn failure<T: DeserializeOwned>(value: &Value) -> (String, String) {
        match decode::<T>(value, usize::MAX) {
            Ok(_) => panic!("{value} decoded"),
            Err(error) => (error.path(), error.message().to_string()),
        }
    }

    #[test]
    fn an_error_says_where_it_happened_as_a_json_path() {
        let valid = json!({
            "point": {"x": 1, "y": "a"},
            "points": [{"x": 2, "y": "b"}, {"x": 3, "y": "c"}],
            "shape": {"box": {"w": 3}}, "tags": [1], "keyed": {"7": true}
        });
        let at = |pointer: &str, bad: Value| {
            let mut value = valid.clone();
            *value.pointer_mut(pointer).unwrap() = bad;
            failure::<Outer>(&value)
        };
        assert_eq!(
            at("/points/1/x", json!("three")),
            (
                "points[1].x".to_string(),
                "invalid type: string \"three\", expected i32".to_string()
            )
        );
        assert_eq!(at("/tags/0", json!(-1)).0, "tags[0]");
        assert_eq!(at("/shape/box/w", json!(300)).0, "shape.box.w");
        assert_eq!(at("/keyed/7", json!(null)).0, "keyed.7");
        assert_eq!(
            at("/keyed/7", json!(null)).1,
            "invalid type: null, expected a boolean"
        );
        // What a struct itself lacks is reported at the struct.
        assert_eq!(
            at("/point", json!({"x": 1})),
            ("point".to_string(), "missing field `y`".to_string())
        );
        assert_eq!(failure::<Outer>(&json!({})).0, ROOT_PATH);
        // An unknown variant is the enum's own mistake, not its content's.
        assert_eq!(at("/shape", json!({"circle": 1})).0, "shape");
    }

    /// What decodes within `max_bytes`, or the decoder's message.
    fn within<T: DeserializeOwned>(value: &Value, max_bytes: usize) -> Result<T, String> {
        decode::<T>(value, max_bytes).map_err(|e| e.to_string())
    }

    /// A value that decodes counts exactly what the registry's walk counts: it decodes within
    /// its measured length and not within one byte less.
    fn counts_as_the_walk<T: DeserializeOwned>(value: &Value) {
        let Measure::Fits(len) = limits::measure(value, usize::MAX, MAX_ARGUMENT_DEPTH) else {
            panic!("{value} is past the limits");
        };
        assert!(within::<T>(value, usize::MAX).is_ok(), "{value} decodes");
        if let Err(error) = within::<T>(value, len) {
            panic!("{value} within its length {len}: {error}");
        }
        assert!(
            within::<T>(value, len - 1).is_err(),
            "{value} decoded within {} bytes, one less than the walk counts",
            len - 1
        );
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Open {
        name: String,
        #[serde(default)]
        size: Option<u32>,
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Either {
        Number(u32),
        Point { x: i32, y: String },
    }

    #[derive(Deserialize)]
    #[serde(tag = "kind")]
    #[allow(dead_code)]
    enum Tagged {
        Circle { r: f64 },
        Empty,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Flattened {
        id: u8,
        #[serde(flatten)]
        rest: HashMap<String, Value>,
    }

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Unit;

    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Wrapper(Vec<Option<bool>>);

    /// One field of every scalar kind the decoder counts where it reads it.
    #[derive(Deserialize)]
    #[allow(dead_code)]
    struct Scalars {
        float: f64,
        letter: char,
        wide: i128,
        flag: bool,
        nothing: (),
        unit: Unit,
        absent: Option<String>,
        present: Option<u8>,
        shape: Shape,
        any: Value,
        skipped: IgnoredAny,
    }

    #[test]
    fn every_scalar_kind_is_counted_as_the_walk_counts_it() {
        counts_as_the_walk::<Scalars>(&json!({
            "float": 1.5, "letter": "é", "wide": -5,
            "flag": true, "nothing": null, "unit": null, "absent": null, "present": 7,
            "shape": "dot", "any": "text", "skipped": 12
        }));
        counts_as_the_walk::<Scalars>(&json!({
            "float": 2, "letter": "x", "wide": 1, "flag": false, "nothing": null, "unit": null,
            "absent": "here", "present": null, "shape": {"named": "n"}, "any": [1, {"k": false}],
            "skipped": {"deep": ["a", null]}
        }));
        // A top-level scalar counts itself.
        counts_as_the_walk::<String>(&json!("alone"));
        counts_as_the_walk::<u64>(&json!(42));
    }

    #[test]
    fn what_decodes_is_counted_as_the_walk_counts_it() {
        counts_as_the_walk::<Outer>(&json!({
            "point": {"x": 1, "y": "a"},
            "points": [{"x": 2, "y": "bé"}, {"x": -3, "y": ""}],
            "shape": {"box": {"w": 3}}, "tags": [1, 2], "keyed": {"7": true, "80": false}
        }));
        counts_as_the_walk::<Outer>(&json!({
            "point": {"x": 1, "y": "a"}, "points": [], "shape": "dot", "tags": null, "keyed": {}
        }));
        for shape in [
            json!("dot"),
            json!({"dot": null}),
            json!({"line": [1, 2]}),
            json!({"named": "n"}),
            json!({"box": {"w": 9}}),
        ] {
            counts_as_the_walk::<Shape>(&shape);
        }
        // Fields the type ignores are skipped by the decoder, and counted all the same.
        counts_as_the_walk::<Open>(&json!({"name": "x", "extra": {"deep": [1, {"a": "bc"}]}}));
        counts_as_the_walk::<Open>(&json!({"extra": "long text", "name": "x", "size": null}));
        // Types serde reads through its own buffer, and free-form values.
        counts_as_the_walk::<Either>(&json!(7));
        counts_as_the_walk::<Either>(&json!({"x": 1, "y": "z"}));
        counts_as_the_walk::<Tagged>(&json!({"kind": "Circle", "r": 1.5}));
        counts_as_the_walk::<Tagged>(&json!({"kind": "Empty"}));
        counts_as_the_walk::<Flattened>(&json!({"id": 1, "a": [null, {"b": true}], "c": "d"}));
        counts_as_the_walk::<Value>(&json!({"a": [1, "two", null, {"b": [[]]}], "c": {}}));
        counts_as_the_walk::<HashMap<String, Vec<u8>>>(&json!({"k": [1, 2], "": []}));
        counts_as_the_walk::<(u8, String)>(&json!([1, "x"]));
        counts_as_the_walk::<Unit>(&json!(null));
        counts_as_the_walk::<Wrapper>(&json!([true, null, false]));
        counts_as_the_walk::<Vec<u8>>(&json!([]));
    }

    /// `{"v": [[...[]...]]}`: an object around `arrays` nested arrays.
    fn nested(arrays: usize) -> Value {
        let mut value = json!([]);
        for _ in 1..arrays {
            value = Value::Array(vec![value]);
        }
        let mut root = json!({});
        root["v"] = value;
        root
    }

    #[test]
    fn values_nested_past_the_depth_limit_stop_the_decoder() {
        let deepest = nested(MAX_ARGUMENT_DEPTH - 1);
        assert!(within::<HashMap<String, Value>>(&deepest, usize::MAX).is_ok());
        let deeper = nested(MAX_ARGUMENT_DEPTH);
        let refused = within::<HashMap<String, Value>>(&deeper, usize::MAX).unwrap_err();
        assert!(refused.contains("nested deeper"), "{refused}");
        // Built in memory, far past what a parser would accept: refused without a stack
        // overflow (serde_json's own `&Value` decoder recurses once per level).
        let mut far = nested(100_000);
        assert!(within::<HashMap<String, Value>>(&far, usize::MAX).is_err());
        assert!(within::<HashMap<String, IgnoredAny>>(&far, usize::MAX).is_err());
        limits::defuse_deep_arguments(&mut far);
    }

    #[test]
    fn a_long_string_stops_the_decoder_before_it_is_copied() {
        let value = json!({"name": "x".repeat(1_000)});
        assert!(within::<Open>(&value, 1_000).is_err());
        assert!(within::<Open>(&value, 1_020).is_ok());
    }
}

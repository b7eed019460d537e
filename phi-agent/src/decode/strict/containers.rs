//! Arrays and objects: entered one level deeper with their frame counted, then read element by
//! element and field by field, each error leaving with the index or the name it passed.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::budget::Budget;
use super::error::Error;
use super::key::Key;
use super::value::Strict;
use crate::limits;

/// A sequence or map the visitor stopped reading before its end.
#[cold]
fn too_long(len: usize, what: &str) -> Error {
    de::Error::invalid_length(len, &format!("fewer elements in {what}").as_str())
}

/// Reads `array`, the value of `de`, one level deeper: its brackets and commas counted here,
/// each element as it is read.
pub(super) fn visit_array<'de, V: Visitor<'de>>(
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
#[expect(clippy::question_mark, reason = "`?` is one more function per type")]
pub(super) fn visit_object<'de, V: Visitor<'de>>(
    de: Strict<'de>,
    object: &'de Map<String, Value>,
    visitor: V,
) -> Result<V::Value, Error> {
    // Compiled once per struct type that decodes (every tool's arguments): matches, not `?`,
    // and the fields handed over by value, not as `&mut`, each of which would add a function
    // per type.
    let depth_left = match object_frame(&de) {
        Ok(depth_left) => depth_left,
        Err(error) => return Err(error),
    };
    let mut iter = object.iter();
    let map = Fields {
        iter: &mut iter,
        value: None,
        budget: de.budget,
        depth_left,
    };
    match visitor.visit_map(map) {
        Ok(value) if iter.len() == 0 => Ok(value),
        Ok(_) => Err(too_long(object.len(), "map")),
        Err(error) => Err(error),
    }
}

/// Counts an object's braces and says how deep its fields may nest.
fn object_frame(de: &Strict<'_>) -> Result<usize, Error> {
    let depth_left = de.inner_depth()?;
    de.budget.spend(limits::OBJECT_FRAME_LEN)?;
    Ok(depth_left)
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

struct Fields<'a, 'de> {
    /// Borrowed, so that [`visit_object`] sees what the visitor left unread.
    iter: &'a mut serde_json::map::Iter<'de>,
    /// The field whose key was read last, and its value until that is read.
    value: Option<(&'de str, &'de Value)>,
    budget: &'de Budget,
    /// How many more containers may nest in a field's value.
    depth_left: usize,
}

impl<'de> MapAccess<'de> for Fields<'_, 'de> {
    type Error = Error;

    #[expect(clippy::question_mark, reason = "`?` is one more function per type")]
    fn next_key_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.iter.next() {
            Some((key, value)) => {
                // The key, quoted, with its colon and comma; the value counts itself. Matches,
                // not `?` and `.map(Some)`: see `visit_object`.
                if let Err(error) = self.budget.spend(limits::key_len(key.len())) {
                    return Err(error);
                }
                self.value = Some((key, value));
                match seed.deserialize(Key(key)) {
                    Ok(key) => Ok(Some(key)),
                    Err(error) => Err(error),
                }
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

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
//! It also counts what it reads against a [`Budget`](budget::Budget): the approximate compact-JSON length and the
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
//!
//! In the order a value flows: `value` is one value under decoding; `deserializer` answers
//! serde's requests for it, entering `containers` (whose `key`s it reads as serde_json does) and
//! `variant`s; each counts what it reads against the `budget`, and a failure is an `error`.

mod budget;
mod containers;
mod deserializer;
mod error;
mod key;
#[cfg(test)]
mod tests;
mod value;
mod variant;

pub(crate) use error::Error;
pub(crate) use value::decode;

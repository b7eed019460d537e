//! Every text a model reads when its tool call or its answer is refused, in one folder so that
//! they read alike and are each tested, and so that one rule holds for all of them: no Rust type
//! name. The model never sees the Rust code; "expected struct SearchArgs" tells it nothing,
//! "expected a JSON object" tells it what to send.
//!
//! `call` writes the texts about one call (its arguments' shape, each mistake, the list, a
//! repeated failure); `answer` those about a typed run's answer; `describe` puts the schema and
//! the value of a mistake into words; `reword` turns the decoder's own message into JSON terms
//! when the schema saw nothing wrong.

// Without `schema-validation` only the decoder's texts are used; the validator's stay tested.
#![cfg_attr(not(feature = "schema-validation"), allow(dead_code, unused_imports))]

mod answer;
mod call;
mod describe;
mod reword;

pub(crate) use answer::{
    answer_accepted, answer_mistakes, answer_not_called, answer_not_json, mistake_lines,
    not_run_after_answer,
};
pub use call::ArgumentMistake;
pub(crate) use call::{
    MAX_LISTED_MISTAKES, ambiguous, arguments_are_a_scalar, arguments_are_an_array,
    arguments_are_text, arguments_too_deep, closest, expected_found, missing_field, mistakes_list,
    not_an_object, nothing_allowed, repeated_failure, required_tool_missing, too_many_items,
    unknown_field, unknown_field_unlisted,
};
pub(crate) use describe::{describe, found};
pub(crate) use reword::reword_decoder_message;

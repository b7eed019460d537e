//! Provider dialects, derived from the canonical schema.
//!
//! Each dialect either expresses the canonical schema faithfully or reports why it cannot
//! ([`DialectError`]); none rewrites a schema into one that accepts a value the tool's decoder
//! rejects, or rejects a value the argument type can produce, with one documented exception.
//! Two narrowings are allowed because they lose no meaning: OpenAI strict mode forbids unknown
//! fields (the decoder would ignore them) and requires every field (an `Option` field becomes a
//! union with `null`; a field with a serde default must be sent, and the default is a value the
//! model can send). The exception is a loss: Gemini cannot say that an object is closed
//! (`additionalProperties: false`), so its schema lets through an unknown field that the decoder
//! refuses; dispatch answers such a call with the field the model probably meant, which costs a
//! turn and nothing else (`docs/src/providers.md#gemini-no-additional-properties`). Root
//! constraints on the root's own fields (`root_constraints`) are left out of every provider's
//! schema the same way, and held to when the call arrives.

mod anthropic;
mod derive;
mod gemini;
mod kind;
mod mcp_only;
mod openai;
mod rebuilt;
mod root_constraints;

pub use derive::{check_root, to_dialect};
pub(crate) use derive::{derive, derive_text};
pub use kind::Dialect;

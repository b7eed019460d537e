//! JSON Schemas for tool arguments, and the dialect each provider accepts.
//!
//! - [`canonical_schema_for`] / [`canonicalize`]: the canonical schema (JSON Schema 2020-12,
//!   declaration order, no `$schema` or root `title`, non-recursive `$ref`s inlined, object root).
//!   MCP and Anthropic take it as it is.
//! - [`to_dialect`] with a [`Dialect`]: OpenAI strict, OpenAI, Anthropic, Gemini, MCP. A dialect
//!   that cannot express a schema exactly says where and why ([`DialectError`]) instead of
//!   sending a schema that disagrees with what the tool decodes.
//! - `DialectSchemas` (crate-private): each tool's dialect schemas, computed once and shared.
//! - [`OpenAiStrictCompatible`] and [`check_openai_strict`]: strict compatibility checked before
//!   a request is sent.
//! - `integral_floats_to_integers` (crate-private; decoding applies it): the repair for the one gap no schema closes (`3.0` is a
//!   JSON Schema integer but not a serde one).
//!
//! How each type of the conformance corpus fares in each dialect is tabulated in
//! `docs/src/schema-conformance.md`.

mod cache;
mod canonical;
mod coerce;
mod dialect;
mod disjoint;
mod error;
mod inline;
mod path;
mod strict;
mod walk;

pub(crate) use cache::{DialectSchemas, WireSchema};
pub(crate) use canonical::cached;
pub use canonical::{canonical_schema_for, canonicalize};
pub(crate) use coerce::integral_floats_to_integers;
pub use dialect::{Dialect, check_root, to_dialect};
pub use error::{DialectError, SchemaProblem};
pub use strict::{OpenAiStrictCompatible, check_openai_strict};
pub(crate) use walk::keyword;

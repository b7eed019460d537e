//! The ranking's parts, for the tool-search lab (`bench/tool-search`), which turns them on and
//! off and varies their numbers on the held-out sets. Behind the `lab` feature and hidden from
//! the documentation: it is not part of the API, and its shape follows the ranking's without
//! notice. What ships is [`Parts::default`].

use super::ToolIndex;
use crate::registry::ToolRegistry;

pub use super::clauses::clauses;
pub use super::index::parts::{Breadth, Feedback, Parts, Weights};
pub use super::links::Links;
pub use super::steps::interleave;
pub use super::tokenize::{Analysis, Stemming};
pub use super::written::{WRITTEN_STEP, with_writer, writes_a_file};

/// [`ToolIndex::build`] with `parts` in place of the shipped ones.
pub fn build(registry: &ToolRegistry, parts: Parts) -> ToolIndex {
    ToolIndex::build_with(registry, parts)
}

//! A BM25F index over short documents with a few fields (a tool's name, description, parameter
//! names and parameter docs), with light stemming, synonym expansion of queries and
//! pseudo-relevance feedback ([`Feedback`]).
//!
//! Every per-document quantity of BM25F (field weights, length normalization, saturation) is
//! folded into one weight per posting at build time, so a search is a sum of `idf × weight`
//! over the postings of the query's terms: no per-document work but for documents that match.
//! The standard library and `foldhash` (the word maps: seeded, and cheaper per word than SipHash).
//!
//! `parts` holds what the ranking is made of and its tuned numbers; `build` turns documents into
//! the stored index (`postings`), in which `query` looks a search up.

mod breadth;
mod build;
pub(super) mod parts;
mod postings;
mod query;
#[cfg(test)]
mod tests;

pub(crate) use build::IndexBuilder;
pub(crate) use parts::{Field, Parts};
pub(crate) use postings::TextIndex;

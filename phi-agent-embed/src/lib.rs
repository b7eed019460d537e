//! A local embedding model for phi-agent's hybrid tool search, run in-process: nothing is
//! downloaded, nothing leaves the machine. [`StaticEmbedder`] loads a static token-embedding
//! model (a table of one vector per token and its tokenizer) from a directory the user points
//! at, and implements [`phi_agent::search::Embedder`].
//!
//! It is a crate of its own so that the core build does not grow: the core's lexical search
//! needs none of it.

mod model;
mod tokenizer;

pub use model::{LoadError, StaticEmbedder};

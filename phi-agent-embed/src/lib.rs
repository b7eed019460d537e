//! Local embedding models for phi-agent's hybrid tool search, run in-process: nothing is
//! downloaded, nothing leaves the machine. Both load from a directory the user points at and
//! implement [`phi_agent::search::Embedder`]:
//!
//! - [`SentenceEmbedder`]: a BERT sentence-transformer (such as `all-MiniLM-L6-v2`), our own
//!   forward pass and WordPiece tokenizer. It reads the sentence: the better ranking, at a few
//!   milliseconds per text.
//! - [`StaticEmbedder`]: a static token-embedding table (such as wordllama's); a text's vector
//!   is the mean of its tokens' rows. Microseconds per text, but it does not read word order.
//!
//! It is a crate of its own so that the core build does not grow: the core's lexical search
//! needs none of it.

mod bert;
mod float;
mod model;
mod sentence;
mod table;
mod tokenizer;
mod wordpiece;

pub use model::{FUSION_KEY, LoadError, StaticEmbedder};
pub use sentence::SentenceEmbedder;

//! Cassettes: a provider's HTTP exchanges recorded once and replayed offline.
//!
//! A [`Recorder`] and a [`Replayer`] are [`HttpTransport`](phi_agent::llm::HttpTransport)s:
//! give either to an adapter with its `with_http_transport`. The recorder sends through reqwest
//! (or any transport) and writes each exchange to a JSON Lines file, secrets redacted first
//! ([`Redaction`]); the replayer answers from that file and fails a request it does not hold
//! with a diff naming each field that differs ([`Matching`]).

mod diff;
mod format;
mod record;
mod redact;
mod replay;

pub use diff::{Difference, Matching};
pub use format::{
    Body, Chunk, Exchange, Outcome, RecordedReply, RecordedRequest, load, parse, render,
};
pub use record::Recorder;
pub use redact::{REDACTED, Redaction};
pub use replay::Replayer;

/// Why a cassette could not be read or written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CassetteError {
    /// The file could not be read or written.
    #[error("cassette {path}: {message}")]
    Io {
        /// The cassette's path.
        path: String,
        /// The system's words.
        message: String,
    },
    /// A line is not an exchange.
    #[error("cassette {path}, line {line}: not an exchange ({message}); re-record it")]
    Malformed {
        /// The cassette's path.
        path: String,
        /// The line, from 1.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
}

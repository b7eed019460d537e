//! SSE polling (SEP-1699, MCP 2025-11-25): a `tools/call` whose answer is a stream the server
//! may close before the result, for the client to reconnect with `Last-Event-ID` and resume.
//!
//! The transport that can do it (the streamable HTTP server's sessions, `http::resumable`)
//! puts a [`CallStream`] into the request's extensions; the call's peer
//! ([`ClientPeer`](super::peer::ClientPeer)) closes it for
//! [`ToolContext::close_stream`](crate::ToolContext::close_stream), and the call, once its tool
//! has returned, [settles](ResumableStream::settle) it before its result goes out. Elsewhere
//! (stdio, stateless HTTP, tasks) there is none and closing does nothing.

use std::sync::Arc;

use async_trait::async_trait;

/// A call's response stream that can be closed for the client to resume.
#[async_trait]
pub(crate) trait ResumableStream: Send + Sync {
    /// Closes the stream now (after an event that tells the client when to reconnect); the call
    /// goes on and what it sends meanwhile waits for the client's resumption. Whether it closed.
    async fn close(&self) -> bool;

    /// Waits, for a bounded time, until the client has resumed the stream closed last, if it has
    /// not yet: the result that follows goes out on the resumed stream instead of being lost.
    async fn settle(&self);
}

/// The [`ResumableStream`] of a call, as a request extension (extensions must be `Clone`).
#[derive(Clone)]
pub(crate) struct CallStream(pub(crate) Arc<dyn ResumableStream>);

impl std::fmt::Debug for CallStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallStream")
    }
}

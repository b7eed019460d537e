//! The resumable `tools/call` streams of a stateful HTTP server (SEP-1699 SSE polling).
//!
//! rmcp does the wire: every event of a request's SSE stream has an id (`<index>/<stream>`), the
//! stream opens with a priming event (that id, empty data, the `retry` field), and each
//! stream keeps its last messages (16, rmcp's channel capacity) so that a `GET` with
//! `Last-Event-ID` replays those after the id and carries on with the stream live. Its
//! `LocalSessionHandle::close_sse_stream` ends a stream mid-call. What phi-agent adds: a call
//! can reach its own stream ([`RequestStream`], put into the request by
//! [`Sessions`](super::sessions::Sessions)), and a call that closed its stream holds its result
//! until the client has resumed ([`Resumes`]): rmcp forgets a stream once its response is
//! sent, so a result sent while the client is away would be lost. (And a resumed stream starts
//! after the `Last-Event-ID` event, which rmcp would send again: `Sessions::resume`.)

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use rmcp::transport::streamable_http_server::session::SessionId;
use rmcp::transport::streamable_http_server::session::local::LocalSessionHandle;
use tokio::sync::Notify;

use crate::mcp::server::polling::ResumableStream;

/// How long a call whose stream was closed waits for the client beyond the `retry` interval it
/// was told, before it sends its result regardless.
const RESUME_GRACE: Duration = Duration::from_secs(10);

/// A stream of one session: its id and rmcp's number for the HTTP request.
type StreamKey = (SessionId, u64);

/// The streams closed by their calls and not yet resumed, of every session: an entry lives from
/// a close to the resumption or the end of the call, so there are at most as many as calls in
/// flight.
#[derive(Debug, Default)]
pub(super) struct Resumes {
    waiting: Mutex<HashMap<StreamKey, Arc<Notify>>>,
}

impl Resumes {
    /// A stream is about to be closed: what its resumption will notify.
    fn expect(&self, key: StreamKey) -> Arc<Notify> {
        let notify = Arc::new(Notify::new());
        self.lock().insert(key, notify.clone());
        notify
    }

    fn forget(&self, key: &StreamKey) {
        self.lock().remove(key);
    }

    /// The client of `session` resumed after `last_event_id` (rmcp's id, `<index>/<stream>`;
    /// anything else names no call's stream).
    pub(super) fn resumed(&self, session: &SessionId, last_event_id: &str) {
        let Some(stream) = last_event_id
            .split_once('/')
            .and_then(|(_, stream)| stream.parse::<u64>().ok())
        else {
            return;
        };
        if let Some(notify) = self.lock().remove(&(session.clone(), stream)) {
            // A permit if the call is not waiting yet: its `settle` then returns at once.
            notify.notify_one();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<StreamKey, Arc<Notify>>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The SSE stream of one `tools/call` of a session.
pub(super) struct RequestStream {
    pub(super) handle: LocalSessionHandle,
    pub(super) session: SessionId,
    pub(super) http_request_id: u64,
    /// The `retry` interval the client is told on closing (rmcp's priming event).
    pub(super) retry: Option<Duration>,
    pub(super) resumes: Arc<Resumes>,
    /// What the resumption after the last close notifies, until the call has seen it.
    pub(super) closed: Mutex<Option<Arc<Notify>>>,
}

impl RequestStream {
    fn key(&self) -> StreamKey {
        (self.session.clone(), self.http_request_id)
    }

    fn closed(&self) -> std::sync::MutexGuard<'_, Option<Arc<Notify>>> {
        self.closed.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[async_trait]
impl ResumableStream for RequestStream {
    async fn close(&self) -> bool {
        // Expected before the stream closes, so that no resumption can come first.
        *self.closed() = Some(self.resumes.expect(self.key()));
        match self
            .handle
            .close_sse_stream(self.http_request_id, self.retry)
            .await
        {
            Ok(()) => true,
            Err(error) => {
                tracing::debug!(%error, session = %self.session, "could not close a call's SSE stream");
                self.resumes.forget(&self.key());
                *self.closed() = None;
                false
            }
        }
    }

    async fn settle(&self) {
        let Some(resumed) = self.closed().take() else {
            return;
        };
        let wait = self.retry.unwrap_or_default() + RESUME_GRACE;
        if tokio::time::timeout(wait, resumed.notified())
            .await
            .is_err()
        {
            tracing::debug!(session = %self.session, "the client did not resume a closed SSE stream in time");
        }
        self.resumes.forget(&self.key());
    }
}

impl Drop for RequestStream {
    /// A call dropped between a close and the resumption leaves no entry behind.
    fn drop(&mut self) {
        if self.closed().is_some() {
            self.resumes.forget(&self.key());
        }
    }
}

//! The sessions of the HTTP server: rmcp's in-memory ones, at most a set number live at once.
//!
//! Sessions live in rmcp's [`LocalSessionManager`], whose keep-alive closes a session idle for
//! [`HttpOptions::with_session_idle_timeout`](super::HttpOptions::with_session_idle_timeout);
//! [`Sessions`] wraps it to refuse sessions beyond
//! [`HttpOptions::with_max_sessions`](super::HttpOptions::with_max_sessions), and to give each
//! `tools/call` its own stream, which the call may close for the client to resume
//! ([`resumable`](super::resumable)).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, GetExtensions, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    EventStore, ServerSseMessage, SessionId, SessionManager,
};

use super::resumable::{RequestStream, Resumes};
use crate::mcp::server::polling::CallStream;

/// Part of [`SessionsError::Full`]'s text, which rmcp puts into the body of its `500`.
pub(super) const SESSION_LIMIT_MARK: &str = "phi-agent: session limit reached";

/// Why [`Sessions`] failed.
#[derive(Debug)]
pub(super) enum SessionsError {
    /// At the cap (the cap is the payload).
    Full(usize),
    Local(LocalSessionManagerError),
}

impl fmt::Display for SessionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Full(max) => write!(f, "{SESSION_LIMIT_MARK} ({max} live sessions)"),
            Self::Local(error) => fmt::Display::fmt(error, f),
        }
    }
}

impl std::error::Error for SessionsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Full(_) => None,
            Self::Local(error) => error.source(),
        }
    }
}

impl From<LocalSessionManagerError> for SessionsError {
    fn from(error: LocalSessionManagerError) -> Self {
        Self::Local(error)
    }
}

/// rmcp's in-memory sessions, at most `max` of them.
///
/// Idle expiry is rmcp's own: the session worker ends after its keep-alive without a message,
/// and rmcp then calls [`close_session`](SessionManager::close_session), which removes it here.
#[derive(Debug)]
pub(super) struct Sessions {
    local: LocalSessionManager,
    pub(super) max: usize,
    /// Held while a session is created, so that concurrent `initialize`s cannot both take the
    /// last slot.
    creating: tokio::sync::Mutex<()>,
    /// The call streams closed and not yet resumed.
    resumes: Arc<Resumes>,
}

impl Sessions {
    /// Sessions closed after `idle_timeout`, at most `max`, whose streams tell clients to wait
    /// `sse_retry` before they reconnect (`None`: no priming events, no `retry`).
    pub(super) fn new(idle_timeout: Duration, max: usize, sse_retry: Option<Duration>) -> Self {
        let mut local = LocalSessionManager::default();
        local.session_config.keep_alive = Some(idle_timeout);
        local.session_config.sse_retry = sse_retry;
        Self {
            local,
            max,
            creating: tokio::sync::Mutex::new(()),
            resumes: Arc::default(),
        }
    }

    /// How many sessions are live now.
    pub(super) async fn live(&self) -> usize {
        self.local.sessions.read().await.len()
    }
}

impl SessionManager for Sessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let _creating = self.creating.lock().await;
        if self.live().await >= self.max {
            return Err(SessionsError::Full(self.max));
        }
        Ok(self.local.create_session().await?)
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        Ok(self.local.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.local.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.local.close_session(id).await?;
        // A hash map keeps its largest size: after a burst of sessions has expired, give the
        // memory back instead of holding room for the burst for ever.
        let mut sessions = self.local.sessions.write().await;
        if sessions.capacity() > 64 && sessions.len() * 4 < sessions.capacity() {
            let keep = sessions.len() * 2;
            sessions.shrink_to(keep);
        }
        Ok(())
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // `LocalSessionManager::create_stream`, with the call's stream put into the request: the
        // number rmcp gives the stream is known only here.
        let handle = self
            .local
            .sessions
            .read()
            .await
            .get(id)
            .cloned()
            .ok_or_else(|| LocalSessionManagerError::SessionNotFound(id.clone()))?;
        let receiver = handle
            .establish_request_wise_channel()
            .await
            .map_err(LocalSessionManagerError::from)?;
        let mut message = message;
        if let (ClientJsonRpcMessage::Request(request), Some(http_request_id)) =
            (&mut message, receiver.http_request_id)
            && matches!(request.request, ClientRequest::CallToolRequest(_))
        {
            let stream = RequestStream {
                handle: handle.clone(),
                session: id.clone(),
                http_request_id,
                retry: self.local.session_config.sse_retry,
                resumes: self.resumes.clone(),
                closed: Default::default(),
            };
            request
                .request
                .extensions_mut()
                .insert(CallStream(Arc::new(stream)));
        }
        handle
            .push_message(message, receiver.http_request_id)
            .await
            .map_err(LocalSessionManagerError::from)?;
        let mut inner = receiver.inner;
        Ok(futures_util::stream::poll_fn(move |cx| inner.poll_recv(cx)))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        Ok(self.local.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(through_trait::create_standalone_stream(&self.local, id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = through_trait::resume(&self.local, id, last_event_id.clone()).await?;
        // After rmcp has taken the new connection: a call's result sent from now on reaches it.
        self.resumes.resumed(id, &last_event_id);
        // rmcp replays from the event the client saw last, that one included; a resumed SSE
        // stream starts after it (the client would get a message twice).
        Ok(stream.filter(move |event| {
            std::future::ready(event.event_id.as_deref() != Some(last_event_id.as_str()))
        }))
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.local.event_store()
    }
}

/// Calls into a session manager through [`SessionManager`]'s signatures, which promise `Sync`
/// streams; `LocalSessionManager`'s own method signatures state only `Send`, although its streams
/// are `Sync` too.
mod through_trait {
    use super::{ServerSseMessage, SessionId, SessionManager, Stream};

    pub(super) async fn create_standalone_stream<M: SessionManager>(
        manager: &M,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, M::Error> {
        manager.create_standalone_stream(id).await
    }

    pub(super) async fn resume<M: SessionManager>(
        manager: &M,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, M::Error> {
        manager.resume(id, last_event_id).await
    }
}

//! Recording: a transport that sends through another one and writes every exchange down.

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use phi_agent::llm::{HttpError, HttpHeader, HttpMethod, HttpReply, HttpRequest, HttpTransport};

use super::CassetteError;
use super::format::{Body, Chunk, Exchange, Outcome, RecordedReply, RecordedRequest, render};
use super::redact::{REDACTED, Redaction, Secrets};

/// A transport that sends every request through `inner` (reqwest's, for a real provider or a
/// fake) and writes each exchange, secrets redacted, to a cassette file.
///
/// The file is rewritten whenever an exchange completes (a reply read to its end or dropped), so
/// that it holds every exchange finished so far, in the order the requests were sent.
/// [`finish`](Self::finish) reports a write that failed.
///
/// ```no_run
/// use std::sync::Arc;
/// use phi_agent::llm::{OpenAiClient, ReqwestTransport};
/// use phi_agent_eval::cassette::{Recorder, Redaction};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let recorder = Arc::new(Recorder::new(
///     ReqwestTransport::shared()?,
///     "tests/cassettes/weather.jsonl",
///     Redaction::default(),
/// ));
/// let llm = OpenAiClient::new("sk-...", "gpt-4o-mini")?.with_http_transport(recorder.clone());
/// // ... run the agent on `llm`, then:
/// recorder.finish()?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Recorder {
    inner: Arc<dyn HttpTransport>,
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    path: PathBuf,
    redaction: Redaction,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// One slot per request sent, filled when its exchange completes.
    slots: Vec<Option<String>>,
    /// The first write that failed.
    error: Option<CassetteError>,
}

impl Recorder {
    /// A recorder sending through `inner` and writing to `path` (created, or emptied: a
    /// recording starts a cassette over), redacting what `redaction` names.
    pub fn new(
        inner: Arc<dyn HttpTransport>,
        path: impl AsRef<Path>,
        redaction: Redaction,
    ) -> Self {
        let shared = Shared {
            path: path.as_ref().to_path_buf(),
            redaction,
            state: Mutex::new(State::default()),
        };
        // A path that cannot be written is reported by `finish`, as every later write is.
        if let Some(error) = shared.write(&[]) {
            shared.lock().error = Some(error);
        }
        Self {
            inner,
            shared: Arc::new(shared),
        }
    }

    /// The exchanges recorded so far, or the first write that failed.
    pub fn finish(&self) -> Result<usize, CassetteError> {
        let state = self.shared.lock();
        match &state.error {
            Some(error) => Err(error.clone()),
            None => Ok(state.slots.iter().flatten().count()),
        }
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while the lock was held leaves complete lines behind: keep going.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Fills slot `index` with `exchange` and rewrites the file.
    fn complete(&self, index: usize, exchange: Exchange, secrets: &Secrets) {
        let line = secrets.scrub(render(std::slice::from_ref(&exchange)).trim_end());
        let mut state = self.lock();
        state.slots[index] = Some(line);
        let lines: Vec<&str> = state.slots.iter().flatten().map(String::as_str).collect();
        if let Some(error) = self.write(&lines) {
            state.error.get_or_insert(error);
        }
    }

    fn write(&self, lines: &[&str]) -> Option<CassetteError> {
        let mut text = lines.join("\n");
        if !text.is_empty() {
            text.push('\n');
        }
        if let Some(parent) = self
            .path
            .parent()
            .filter(|parent| !parent.as_os_str().is_empty())
        {
            let _ = std::fs::create_dir_all(parent);
        }
        std::fs::write(&self.path, text)
            .err()
            .map(|error| CassetteError::Io {
                path: self.path.display().to_string(),
                message: error.to_string(),
            })
    }
}

/// `request` as a cassette keeps it, its secrets collected in `secrets`.
pub(crate) fn redacted_request(
    request: &HttpRequest,
    redaction: &Redaction,
    secrets: &mut Secrets,
) -> RecordedRequest {
    let headers = redacted_headers(&request.headers, redaction, secrets);
    let url = redaction.url(&request.url, secrets);
    let mut body = Body::from_bytes(&request.body);
    if let Body::Json(value) = &mut body {
        redaction.json(value, secrets);
    }
    RecordedRequest {
        method: request.method.as_str().into(),
        url,
        stream: request.stream,
        headers,
        body,
    }
}

fn redacted_headers(
    headers: &[HttpHeader],
    redaction: &Redaction,
    secrets: &mut Secrets,
) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|header| {
            if redaction.secret_header(&header.name, header.sensitive) {
                secrets.add(&header.value);
                (header.name.clone(), REDACTED.to_string())
            } else {
                (header.name.clone(), header.value.clone())
            }
        })
        .collect()
}

#[async_trait]
impl HttpTransport for Recorder {
    async fn send(&self, request: HttpRequest) -> Result<HttpReply, HttpError> {
        let mut secrets = Secrets::default();
        let recorded = redacted_request(&request, &self.shared.redaction, &mut secrets);
        let index = {
            let mut state = self.shared.lock();
            state.slots.push(None);
            state.slots.len() - 1
        };
        let stream = request.stream;
        let get = request.method == HttpMethod::Get;
        let reply = match self.inner.send(request).await {
            Ok(reply) => reply,
            Err(error) => {
                let exchange = Exchange {
                    request: recorded,
                    outcome: Outcome::Failure(error.message.clone()),
                };
                self.shared.complete(index, exchange, &secrets);
                return Err(error);
            }
        };
        let headers = redacted_headers(&reply.headers, &self.shared.redaction, &mut secrets);
        let tape = Tape {
            body: reply.body,
            chunks: Vec::new(),
            broke_off: None,
            ended: false,
            get,
            pending: Some(Pending {
                shared: self.shared.clone(),
                index,
                request: recorded,
                status: reply.status,
                headers,
                stream,
                secrets,
            }),
        };
        Ok(HttpReply::new(reply.status, reply.headers, tape.boxed()))
    }
}

/// What an exchange still needs once its body is read.
struct Pending {
    shared: Arc<Shared>,
    index: usize,
    request: RecordedRequest,
    status: u16,
    headers: Vec<(String, String)>,
    stream: bool,
    secrets: Secrets,
}

/// A reply body passed on as it arrives, its chunks kept; the exchange is written when the
/// body ends or is dropped (a stream reader stops at the provider's last event, and may never
/// poll for the end).
struct Tape {
    body: phi_agent::llm::HttpBody,
    chunks: Vec<Bytes>,
    broke_off: Option<String>,
    /// Whether the body came to its end (or broke off).
    ended: bool,
    /// Whether the request was a GET (a stream the server holds open).
    get: bool,
    pending: Option<Pending>,
}

impl Tape {
    fn complete(&mut self) {
        let Some(pending) = self.pending.take() else {
            return;
        };
        let chunks = std::mem::take(&mut self.chunks);
        let (body, chunks) = if pending.stream {
            (
                None,
                Some(
                    chunks
                        .iter()
                        .map(|chunk| Chunk::from_bytes(chunk))
                        .collect(),
                ),
            )
        } else {
            (Some(Body::from_bytes(&chunks.concat())), None)
        };
        let exchange = Exchange {
            request: pending.request,
            outcome: Outcome::Reply(RecordedReply {
                status: pending.status,
                headers: pending.headers,
                body,
                chunks,
                broke_off: self.broke_off.take(),
                left_open: self.get && pending.stream && !self.ended,
            }),
        };
        pending
            .shared
            .complete(pending.index, exchange, &pending.secrets);
    }
}

impl Stream for Tape {
    type Item = Result<Bytes, HttpError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let item = match this.body.poll_next_unpin(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(item) => item,
        };
        match &item {
            Some(Ok(chunk)) => this.chunks.push(chunk.clone()),
            Some(Err(error)) => {
                this.broke_off = Some(error.message.clone());
                this.ended = true;
                this.complete();
            }
            None => {
                this.ended = true;
                this.complete();
            }
        }
        Poll::Ready(item)
    }
}

impl Drop for Tape {
    fn drop(&mut self) {
        // A whole body dropped before its end (a timeout, a cancelled run) was cut short: say so,
        // so that a replay fails the same way rather than serving half a body as whole. A stream
        // is left alone: its reader stops at the provider's last event, the end unread.
        if self.pending.as_ref().is_some_and(|pending| !pending.stream) {
            self.broke_off
                .get_or_insert_with(|| "the body was not read to its end".into());
        }
        self.complete();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cassette::format::load;

    /// A server that echoes the request's key in its reply.
    #[derive(Debug)]
    struct Echo;

    #[async_trait]
    impl HttpTransport for Echo {
        async fn send(&self, request: HttpRequest) -> Result<HttpReply, HttpError> {
            let echoed = format!("{{\"seen\": {:?}}}", request.headers[0].value);
            let headers = vec![HttpHeader::new("set-cookie", "session=abcdef123456")];
            let body = futures_util::stream::iter([Ok(Bytes::from(echoed))]).boxed();
            Ok(HttpReply::new(200, headers, body))
        }
    }

    fn request(url: &str, headers: Vec<HttpHeader>, body: &str) -> HttpRequest {
        let mut request = HttpRequest::new("test", url, Bytes::copy_from_slice(body.as_bytes()));
        request.headers = headers;
        request
    }

    #[tokio::test]
    async fn secrets_never_reach_the_file() {
        let path =
            std::env::temp_dir().join(format!("phi-eval-redact-{}.jsonl", std::process::id()));
        let redaction = Redaction::default()
            .with_header("x-team-token")
            .with_field("user_id");
        let recorder = Recorder::new(Arc::new(Echo), &path, redaction);
        let mut key = HttpHeader::new("authorization", "Bearer sk-live-0123456789");
        key.sensitive = true;
        let headers = vec![
            key,
            HttpHeader::new("x-team-token", "team-secret-42"),
            HttpHeader::new("x-plain", "visible-value"),
        ];
        let sent = request(
            "http://h/v1/x?alt=sse&key=AIza-query-secret",
            headers,
            r#"{"user_id":"person-7781","note":"keep"}"#,
        );
        let reply = recorder.send(sent).await.unwrap();
        let _: Vec<_> = reply.body.collect().await;
        assert_eq!(recorder.finish().unwrap(), 1);
        let text = std::fs::read_to_string(&path).unwrap();
        for secret in [
            "sk-live-0123456789",
            "team-secret-42",
            "AIza-query-secret",
            "person-7781",
            "abcdef123456",
        ] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        for kept in ["visible-value", "alt=sse&key=<redacted>", "keep"] {
            assert!(text.contains(kept), "{kept} not in {text}");
        }
        let exchanges = load(&path).unwrap();
        let Outcome::Reply(reply) = &exchanges[0].outcome else {
            panic!("{text}")
        };
        // The echoed key, inside the reply body, is taken out too.
        assert_eq!(
            reply.body,
            Some(Body::Text(r#"{"seen": "<redacted>"}"#.into()))
        );
        let _ = std::fs::remove_file(&path);
    }

    /// A server holding an event stream open after its first event.
    #[derive(Debug)]
    struct Holding;

    #[async_trait]
    impl HttpTransport for Holding {
        async fn send(&self, _request: HttpRequest) -> Result<HttpReply, HttpError> {
            let first = futures_util::stream::iter([Ok(Bytes::from_static(b": primed\n\n"))]);
            let body = first.chain(futures_util::stream::pending()).boxed();
            Ok(HttpReply::new(200, Vec::new(), body))
        }
    }

    #[tokio::test]
    async fn a_get_stream_let_go_while_open_is_marked_left_open() {
        let path = std::env::temp_dir().join(format!("phi-eval-open-{}.jsonl", std::process::id()));
        let recorder = Recorder::new(Arc::new(Holding), &path, Redaction::default());
        let mut get = request("http://h/mcp", Vec::new(), "").with_method(HttpMethod::Get);
        get.stream = true;
        let mut body = recorder.send(get).await.unwrap().body;
        assert!(body.next().await.is_some());
        drop(body);
        let mut post = request("http://h/mcp", Vec::new(), "{}");
        post.stream = true;
        let mut body = recorder.send(post).await.unwrap().body;
        assert!(body.next().await.is_some());
        drop(body);
        let exchanges = load(&path).unwrap();
        let left_open: Vec<bool> = exchanges
            .iter()
            .map(|exchange| match &exchange.outcome {
                Outcome::Reply(reply) => reply.left_open,
                Outcome::Failure(_) => false,
            })
            .collect();
        // A POST's stream is the provider's reply, read to its last event: never held open.
        assert_eq!(left_open, [true, false]);
        let _ = std::fs::remove_file(&path);
    }

    #[tokio::test]
    async fn a_whole_body_dropped_early_is_marked_cut_short() {
        let path = std::env::temp_dir().join(format!("phi-eval-cut-{}.jsonl", std::process::id()));
        let recorder = Recorder::new(Arc::new(Echo), &path, Redaction::default());
        let headers = vec![HttpHeader::new("x-plain", "value")];
        let reply = recorder
            .send(request("http://h/v1/x", headers, "{}"))
            .await
            .unwrap();
        drop(reply);
        let exchanges = load(&path).unwrap();
        let Outcome::Reply(reply) = &exchanges[0].outcome else {
            panic!("{exchanges:?}")
        };
        assert_eq!(
            reply.broke_off.as_deref(),
            Some("the body was not read to its end")
        );
        assert_eq!(reply.body, Some(Body::Text(String::new())));
        let _ = std::fs::remove_file(&path);
    }
}

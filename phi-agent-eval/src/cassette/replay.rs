//! Replaying: a transport that answers every request from a cassette, offline.

use std::path::Path;
use std::sync::Mutex;

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::StreamExt;
use phi_agent::llm::{HttpError, HttpHeader, HttpReply, HttpRequest, HttpTransport};

use super::CassetteError;
use super::diff::{Matching, differences};
use super::format::{Exchange, Outcome, RecordedRequest, load};
use super::record::redacted_request;
use super::redact::{Redaction, Secrets};

/// A transport that serves each request the reply recorded for it, with no network.
///
/// A request is served by the first exchange not yet served whose request matches it (method,
/// path and query, the stream flag, and the body by [`Matching`]), so a retried request gets the
/// reply its retry got. A request that no exchange matches fails, and no retry follows: the
/// error is a diff against the next exchange of the cassette, one line per differing field,
/// named by its JSON path. Streamed replies come back chunk by chunk as they were recorded.
///
/// ```no_run
/// use std::sync::Arc;
/// use phi_agent::llm::OpenAiClient;
/// use phi_agent_eval::cassette::Replayer;
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let replayer = Arc::new(Replayer::from_file("tests/cassettes/weather.jsonl")?);
/// // No key is needed: the cassette's requests have theirs redacted.
/// let llm = OpenAiClient::new("unused", "gpt-4o-mini")?.with_http_transport(replayer.clone());
/// // ... run the agent on `llm`, then:
/// assert_eq!(replayer.unused(), 0, "every recorded exchange was replayed");
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Replayer {
    name: String,
    exchanges: Vec<Exchange>,
    matching: Matching,
    redaction: Redaction,
    state: Mutex<ReplayState>,
}

#[derive(Debug, Default)]
struct ReplayState {
    served: Vec<bool>,
    requests: Vec<Bytes>,
}

impl Replayer {
    /// A replayer of the cassette at `path`, matching exactly.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, CassetteError> {
        let path = path.as_ref();
        Ok(Self::new(path.display().to_string(), load(path)?))
    }

    /// A replayer of `exchanges`, called `name` in its errors.
    pub fn new(name: impl Into<String>, exchanges: Vec<Exchange>) -> Self {
        Self {
            name: name.into(),
            state: Mutex::new(ReplayState {
                served: vec![false; exchanges.len()],
                requests: Vec::new(),
            }),
            exchanges,
            matching: Matching::exact(),
            redaction: Redaction::default(),
        }
    }

    /// Matches requests by `matching` (default: [`Matching::exact`]).
    pub fn with_matching(mut self, matching: Matching) -> Self {
        self.matching = matching;
        self
    }

    /// Redacts requests as `redaction` says before comparing them: the redaction the cassette
    /// was recorded with (default: [`Redaction::default`]).
    pub fn with_redaction(mut self, redaction: Redaction) -> Self {
        self.redaction = redaction;
        self
    }

    /// The cassette's exchanges.
    pub fn exchanges(&self) -> &[Exchange] {
        &self.exchanges
    }

    /// The bodies of the requests received so far, as sent.
    pub fn requests(&self) -> Vec<Bytes> {
        self.lock().requests.clone()
    }

    /// How many exchanges have not been served: more than 0 after a run means it sent fewer
    /// requests than the recorded one.
    pub fn unused(&self) -> usize {
        self.lock().served.iter().filter(|served| !**served).count()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ReplayState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Why `sent` is not `recorded`, one line per difference; empty when it matches.
    fn mismatch(&self, recorded: &RecordedRequest, sent: &RecordedRequest) -> Vec<String> {
        let mut out = Vec::new();
        if recorded.method != sent.method {
            out.push(format!(
                "method: the cassette has {}, the request has {}",
                recorded.method, sent.method
            ));
        }
        let (left, right) = (path_and_query(&recorded.url), path_and_query(&sent.url));
        if left != right {
            out.push(format!(
                "url: the cassette has {left}, the request has {right}"
            ));
        }
        if recorded.stream != sent.stream {
            out.push(format!(
                "stream: the cassette has {}, the request has {}",
                recorded.stream, sent.stream
            ));
        }
        if self.matching.is_exact() && recorded.body.to_bytes() == sent.body.to_bytes() {
            return out;
        }
        match (recorded.body.json(), sent.body.json()) {
            (Some(left), Some(right)) => {
                let found = differences(&left, &right, &self.matching);
                if found.is_empty() && self.matching.is_exact() {
                    out.push(
                        "body: the same JSON, but not the same bytes (the order of keys, or \
                         the form of a number)"
                            .into(),
                    );
                }
                out.extend(found.iter().map(|difference| format!("body {difference}")));
            }
            _ => out.push("body: differs (not JSON)".into()),
        }
        out
    }
}

/// `url` without its scheme and host.
fn path_and_query(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.find('/').map_or("/", |at| &rest[at..])
}

#[async_trait]
impl HttpTransport for Replayer {
    async fn send(&self, request: HttpRequest) -> Result<HttpReply, HttpError> {
        let sent = redacted_request(&request, &self.redaction, &mut Secrets::default());
        let mut state = self.lock();
        state.requests.push(request.body.clone());
        let found = (0..self.exchanges.len()).find(|&index| {
            !state.served[index]
                && self
                    .mismatch(&self.exchanges[index].request, &sent)
                    .is_empty()
        });
        let Some(index) = found else {
            let next = state.served.iter().position(|served| !served);
            drop(state);
            return Err(HttpError::fatal(match next {
                None => format!(
                    "the cassette {} has no exchange left for this request ({} {}): all {} \
                     were served",
                    self.name,
                    sent.method,
                    path_and_query(&sent.url),
                    self.exchanges.len()
                ),
                Some(next) => format!(
                    "the cassette {} holds no exchange for this request ({} {}); against its \
                     next one (exchange {} of {}):\n  {}",
                    self.name,
                    sent.method,
                    path_and_query(&sent.url),
                    next + 1,
                    self.exchanges.len(),
                    self.mismatch(&self.exchanges[next].request, &sent)
                        .join("\n  ")
                ),
            }));
        };
        state.served[index] = true;
        drop(state);
        let reply = match &self.exchanges[index].outcome {
            Outcome::Failure(message) => return Err(HttpError::transient(message.clone())),
            Outcome::Reply(reply) => reply,
        };
        let headers = reply
            .headers
            .iter()
            .map(|(name, value)| HttpHeader::new(name.clone(), value.clone()))
            .collect();
        let mut chunks: Vec<Result<Bytes, HttpError>> = match (&reply.chunks, &reply.body) {
            (Some(chunks), _) => chunks.iter().map(|chunk| Ok(chunk.to_bytes())).collect(),
            (None, Some(body)) => vec![Ok(body.to_bytes())],
            (None, None) => Vec::new(),
        };
        if let Some(message) = &reply.broke_off {
            chunks.push(Err(HttpError::transient(message.clone())));
        }
        let body = futures_util::stream::iter(chunks);
        // A stream the client let go of while it was open stays open, as it did.
        let body = if reply.left_open {
            body.chain(futures_util::stream::pending()).boxed()
        } else {
            body.boxed()
        };
        Ok(HttpReply::new(reply.status, headers, body))
    }
}

#[cfg(test)]
mod tests {
    use phi_agent::llm::HttpMethod;

    use super::*;
    use crate::cassette::format::{Body, RecordedReply};

    #[tokio::test]
    async fn the_method_is_recorded_and_matched() {
        let exchange = |method: &str| Exchange {
            request: RecordedRequest {
                method: method.into(),
                url: "http://h/mcp".into(),
                stream: true,
                headers: Vec::new(),
                body: Body::Text(String::new()),
            },
            outcome: Outcome::Reply(RecordedReply {
                status: 200,
                headers: Vec::new(),
                body: None,
                chunks: Some(Vec::new()),
                broke_off: None,
                left_open: false,
            }),
        };
        let replayer = Replayer::new("test", vec![exchange("GET")]);
        let mut post = HttpRequest::new("mcp", "http://h/mcp", Bytes::new());
        post.stream = true;
        let refused = replayer.send(post.clone()).await.unwrap_err().message;
        assert!(
            refused.contains("method: the cassette has GET, the request has POST"),
            "{refused}"
        );
        let get = post.with_method(HttpMethod::Get);
        assert_eq!(replayer.send(get).await.unwrap().status, 200);
        assert_eq!(replayer.unused(), 0);
    }

    #[tokio::test]
    async fn a_get_stream_left_open_stays_open_after_its_chunks() {
        let exchange = |left_open: bool| Exchange {
            request: RecordedRequest {
                method: "GET".into(),
                url: "http://h/mcp".into(),
                stream: true,
                headers: Vec::new(),
                body: Body::Text(String::new()),
            },
            outcome: Outcome::Reply(RecordedReply {
                status: 200,
                headers: Vec::new(),
                body: None,
                chunks: Some(vec![crate::cassette::Chunk::Text(": primed\n\n".into())]),
                broke_off: None,
                left_open,
            }),
        };
        let get = || {
            let mut request = HttpRequest::new("mcp", "http://h/mcp", Bytes::new());
            request.stream = true;
            request.with_method(HttpMethod::Get)
        };
        let wait = std::time::Duration::from_millis(50);
        let replayer = Replayer::new("test", vec![exchange(true), exchange(false)]);
        let mut open = replayer.send(get()).await.unwrap().body;
        assert!(open.next().await.is_some_and(|chunk| chunk.is_ok()));
        assert!(
            tokio::time::timeout(wait, open.next()).await.is_err(),
            "it ended"
        );
        let mut ended = replayer.send(get()).await.unwrap().body;
        assert!(ended.next().await.is_some());
        assert!(matches!(
            tokio::time::timeout(wait, ended.next()).await,
            Ok(None)
        ));
    }

    #[test]
    fn the_host_is_not_compared() {
        assert_eq!(
            path_and_query("http://127.0.0.1:4000/v1/x?alt=sse"),
            "/v1/x?alt=sse"
        );
        assert_eq!(path_and_query("https://api.example.com"), "/");
        assert_eq!(path_and_query("/v1/x"), "/v1/x");
    }
}

//! Streamed replies over server-sent events: one POST with `stream: true`, its events read as
//! they arrive (parsed by `sse-stream`) and turned into [`StreamDelta`]s by a provider's
//! [`Decoder`].
//!
//! Retries follow [`JsonPoster::post`]'s policy, but only while nothing of the reply has been
//! handed on: once a delta is out, a retry would repeat text the caller already has, so the
//! error reaches the caller instead.

use std::collections::VecDeque;
use std::time::Duration;

use futures_util::TryStreamExt;
use futures_util::stream::BoxStream;
use futures_util::{FutureExt, StreamExt};
use reqwest::header::HeaderMap;
use sse_stream::{Sse, SseStream};

use super::http::{
    Attempt, JsonPoster, is_retryable, is_success, jitter, provider_message, redact_secrets,
    retry_after,
};
use super::{DeltaStream, LlmResponse, StreamDelta};
use crate::error::{AgentError, AgentResult};
use crate::limits::snippet;

/// Reads one provider's events, keeping the reply assembled so far.
pub(crate) trait Decoder: Default + Send {
    /// Reads `event`, pushing the deltas it carries to `out`; the whole reply once the event
    /// that ends it arrives.
    fn feed(
        &mut self,
        event: &Sse,
        out: &mut VecDeque<StreamDelta>,
    ) -> Result<Option<LlmResponse>, Failure>;

    /// The reply when the body ends without the provider's last event: whole if the provider
    /// had already said why it stopped (every call's arguments are then complete), else `None`.
    /// Like `feed`, it may push the last deltas to `out`.
    fn finish(&mut self, out: &mut VecDeque<StreamDelta>) -> Option<LlmResponse>;
}

/// Why a streamed attempt failed, and whether another attempt may help.
pub(crate) struct Failure {
    pub(crate) error: AgentError,
    pub(crate) retryable: bool,
    pub(crate) retry_after: Option<Duration>,
}

impl Failure {
    /// A failure no retry mends (a malformed stream, a refused request).
    pub(crate) fn fatal(error: AgentError) -> Self {
        Self {
            error,
            retryable: false,
            retry_after: None,
        }
    }

    /// A failure another attempt may mend (the connection, overload).
    pub(crate) fn transient(error: AgentError) -> Self {
        Self {
            error,
            retryable: true,
            retry_after: None,
        }
    }

    /// What a provider said in an `error` event: retried when its kind is one that an HTTP
    /// status would have been retried for (`status` as the provider documents for that kind).
    pub(crate) fn provider(provider: &'static str, status: u16, message: String) -> Self {
        Self {
            error: AgentError::Provider {
                provider,
                status,
                message,
            },
            retryable: is_retryable(status),
            retry_after: None,
        }
    }

    /// An event this adapter cannot read.
    pub(crate) fn malformed(
        provider: &'static str,
        what: impl std::fmt::Display,
        data: &str,
    ) -> Self {
        Self::fatal(AgentError::InvalidResponse {
            provider,
            message: format!(
                "a malformed stream event ({what}): {:?}",
                snippet(data.as_bytes())
            ),
        })
    }
}

/// Reads an event's `data` as `T`, the event type of a provider: a failure that quotes it if it
/// is no JSON or not of `T`'s shape (for a tagged event type, one without its `type` says so).
pub(crate) fn read_event<'a, T: serde::Deserialize<'a>>(
    provider: &'static str,
    data: &'a str,
) -> Result<T, Failure> {
    serde_json::from_str(data).map_err(|error| {
        if error.is_data() && error.to_string().starts_with("missing field `type`") {
            Failure::malformed(provider, "an event without `type`", data)
        } else {
            Failure::malformed(provider, error, data)
        }
    })
}

type Events = BoxStream<'static, Result<Sse, sse_stream::Error>>;

/// One streamed request through its attempts.
struct Call<'a, D> {
    poster: &'a JsonPoster,
    url: String,
    headers: HeaderMap,
    /// Shared by every attempt, as in `JsonPoster::post`.
    body: bytes::Bytes,
    events: Option<Events>,
    decoder: D,
    ready: VecDeque<StreamDelta>,
    /// Whether a delta of this request has been handed on: no retry after that.
    emitted: bool,
    retry: u32,
    over: bool,
}

impl JsonPoster {
    /// POSTs `body` (a request with `stream: true`) to `url` and yields its reply as `D` reads
    /// it, retrying as configured while nothing has been yielded.
    pub(crate) fn stream<D: Decoder + 'static>(
        &self,
        url: String,
        headers: HeaderMap,
        body: Vec<u8>,
    ) -> DeltaStream<'_> {
        let call = Call {
            poster: self,
            url,
            headers,
            body: body.into(),
            events: None,
            decoder: D::default(),
            ready: VecDeque::new(),
            emitted: false,
            retry: 0,
            over: false,
        };
        futures_util::stream::unfold(call, |mut call| async move {
            let item = call.next().await?;
            Some((item, call))
        })
        .boxed()
    }
}

impl<D: Decoder> Call<'_, D> {
    async fn next(&mut self) -> Option<Result<StreamDelta, AgentError>> {
        loop {
            if let Some(delta) = self.ready.pop_front() {
                self.emitted = true;
                if matches!(delta, StreamDelta::Done(_)) {
                    self.over = true;
                }
                return Some(Ok(delta));
            }
            if self.over {
                return None;
            }
            let Err(failure) = self.step().await else {
                continue;
            };
            let config = &self.poster.config;
            if failure.retryable && !self.emitted && self.retry < config.max_retries {
                let wait = config.retry_delay(self.retry, failure.retry_after, jitter());
                tracing::warn!(
                    provider = self.poster.provider,
                    attempt = self.retry + 1,
                    wait_ms = wait.as_millis() as u64,
                    error = %failure.error,
                    "retrying the streamed model request"
                );
                // A fresh attempt starts the reply over.
                self.events = None;
                self.decoder = D::default();
                tokio::time::sleep(wait).await;
                self.retry += 1;
                continue;
            }
            self.over = true;
            let error = redact(failure.error, &self.headers);
            return Some(Err(if failure.retryable && !self.emitted {
                self.poster.give_up(error, self.retry + 1)
            } else {
                error
            }));
        }
    }

    /// Connects if need be, then reads one event.
    async fn step(&mut self) -> Result<(), Failure> {
        let events = match &mut self.events {
            Some(events) => events,
            None => {
                let events = connect(self.poster, &self.url, &self.headers, &self.body).await?;
                self.events.insert(events)
            }
        };
        let provider = self.poster.provider;
        let idle = self.poster.config.stream_idle_timeout;
        match tokio::time::timeout(idle, events.next()).await {
            Err(_) => Err(Failure::transient(AgentError::Http {
                provider,
                message: format!("the stream was idle for longer than {idle:?}"),
            })),
            Ok(None) => match self.decoder.finish(&mut self.ready) {
                Some(response) => {
                    self.ready.push_back(StreamDelta::Done(response));
                    Ok(())
                }
                None => Err(Failure::transient(AgentError::Http {
                    provider,
                    message: "the stream ended before the reply was complete".into(),
                })),
            },
            Ok(Some(Err(sse_stream::Error::Body(error)))) => {
                Err(Failure::transient(AgentError::Http {
                    provider,
                    message: format!(
                        "the stream broke off: {}",
                        super::transport::error_chain(&*error)
                    ),
                }))
            }
            Ok(Some(Err(error))) => Err(Failure::malformed(provider, error, "")),
            Ok(Some(Ok(event))) => {
                if let Some(response) = self.decoder.feed(&event, &mut self.ready)? {
                    self.ready.push_back(StreamDelta::Done(response));
                }
                Ok(())
            }
        }
    }
}

/// Sends the request; a 2xx answer's events, or the failure the status or transport means.
async fn connect(
    poster: &JsonPoster,
    url: &str,
    headers: &HeaderMap,
    body: &bytes::Bytes,
) -> Result<Events, Failure> {
    let request = poster.request(url, headers, body, true);
    // No overall timeout: a long reply may outlast any. The headers get `timeout`; every event
    // after them gets `stream_idle_timeout`.
    let timeout = poster.config.timeout;
    let reply = match tokio::time::timeout(timeout, poster.transport.send(request)).await {
        Err(_) => {
            return Err(Failure::transient(AgentError::Http {
                provider: poster.provider,
                message: format!("no response within the timeout of {timeout:?}"),
            }));
        }
        Ok(Err(error)) => return Err(attempt_failure(poster.transport_failure(error))),
        Ok(Ok(reply)) => reply,
    };
    let status = reply.status;
    if is_success(status) {
        return Ok(SseStream::from_bytes_stream(reply.body).boxed());
    }
    let wait = retry_after(&reply.headers);
    let read = reply
        .body
        .try_fold(bytes::BytesMut::new(), |mut whole, chunk| async move {
            whole.extend_from_slice(&chunk);
            Ok(whole)
        });
    let bytes = match tokio::time::timeout(timeout, read).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(error)) => return Err(attempt_failure(poster.transport_failure(error))),
        Err(_) => Default::default(),
    };
    Err(Failure {
        error: AgentError::Provider {
            provider: poster.provider,
            status,
            message: provider_message(&bytes),
        },
        retryable: is_retryable(status),
        retry_after: wait,
    })
}

fn attempt_failure(attempt: Attempt) -> Failure {
    match attempt {
        Attempt::Retry { error, retry_after } => Failure {
            error,
            retryable: true,
            retry_after,
        },
        Attempt::Done(result) => Failure::fatal(
            result
                .err()
                .unwrap_or_else(|| AgentError::Config("a failed attempt without an error".into())),
        ),
    }
}

/// `error` with any secret of `headers` a server echoed taken out of its message.
fn redact(error: AgentError, headers: &HeaderMap) -> AgentError {
    match error {
        AgentError::Provider {
            provider,
            status,
            message,
        } => AgentError::Provider {
            provider,
            status,
            message: redact_secrets(message, headers),
        },
        AgentError::InvalidResponse { provider, message } => AgentError::InvalidResponse {
            provider,
            message: redact_secrets(message, headers),
        },
        AgentError::Http { provider, message } => AgentError::Http {
            provider,
            message: redact_secrets(message, headers),
        },
        other => other,
    }
}

/// Reads a whole streamed body held in memory, arriving in `chunks` (cut anywhere, as a network
/// would cut it), the way a stream of the adapter reads it: the deltas, ending with `Done`, or
/// the first error. No retries (there is no request to repeat).
pub(crate) fn decode_body<D: Decoder>(
    provider: &'static str,
    chunks: &[&[u8]],
) -> AgentResult<Vec<StreamDelta>> {
    let bytes =
        futures_util::stream::iter(chunks.iter().map(|chunk| Ok::<_, std::io::Error>(*chunk)));
    let mut events = SseStream::from_bytes_stream(bytes);
    let mut decoder = D::default();
    let mut out = VecDeque::new();
    // Every chunk is at hand, so each poll is ready: no runtime is needed to drive it.
    while let Some(Some(event)) = events.next().now_or_never() {
        let event = event.map_err(|error| Failure::malformed(provider, error, "").error)?;
        if let Some(response) = decoder
            .feed(&event, &mut out)
            .map_err(|failure| failure.error)?
        {
            out.push_back(StreamDelta::Done(response));
            return Ok(out.into());
        }
    }
    match decoder.finish(&mut out) {
        Some(response) => {
            out.push_back(StreamDelta::Done(response));
            Ok(out.into())
        }
        None => Err(AgentError::Http {
            provider,
            message: "the stream ended before the reply was complete".into(),
        }),
    }
}

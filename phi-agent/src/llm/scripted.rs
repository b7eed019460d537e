//! An offline model: replays prepared responses, or answers by rules from the request.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::StreamExt;

use async_trait::async_trait;

use super::{DeltaStream, LlmClient, LlmRequest, LlmResponse};
use crate::error::{AgentError, AgentResult};

type Rule = dyn Fn(&LlmRequest) -> AgentResult<LlmResponse> + Send + Sync;

enum Script {
    Replay(Mutex<VecDeque<LlmResponse>>),
    Rules(Box<Rule>),
}

struct Inner {
    script: Script,
    requests: Mutex<Vec<LlmRequest>>,
}

/// A deterministic model for tests, demos and offline runs.
///
/// Clones share the script and the log of requests, so a test can keep a clone and look at what
/// the agent sent.
///
/// ```
/// use phi_agent::llm::{LlmClient, LlmRequest, LlmResponse, ScriptedLlm, ToolCall};
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> phi_agent::AgentResult<()> {
/// let llm = ScriptedLlm::new([
///     LlmResponse::tool_calls(vec![ToolCall::new("c1", "ping", serde_json::json!({}))]),
///     LlmResponse::text("pong"),
/// ]);
/// let first = llm.complete(&LlmRequest::default()).await?;
/// assert_eq!(first.tool_calls[0].name, "ping");
/// assert_eq!(llm.complete(&LlmRequest::default()).await?.text, "pong");
/// assert!(llm.complete(&LlmRequest::default()).await.is_err(), "the script is used up");
/// assert_eq!(llm.requests().len(), 3);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ScriptedLlm {
    inner: Arc<Inner>,
    /// The longest piece, in characters, of a streamed text or arguments delta.
    piece: usize,
    /// How long each streamed delta after the first takes to arrive.
    delay: Duration,
    /// Whether it claims the provider's structured output.
    structured: bool,
}

impl ScriptedLlm {
    /// A model that answers with `responses`, one per request, in order.
    pub fn new(responses: impl IntoIterator<Item = LlmResponse>) -> Self {
        Self::with_script(Script::Replay(Mutex::new(responses.into_iter().collect())))
    }

    /// A model that answers every request with `rule(request)`: a rule-based model that reacts
    /// to what the agent sends (the last message, the visible tools).
    pub fn from_fn(
        rule: impl Fn(&LlmRequest) -> AgentResult<LlmResponse> + Send + Sync + 'static,
    ) -> Self {
        Self::with_script(Script::Rules(Box::new(rule)))
    }

    fn with_script(script: Script) -> Self {
        Self {
            inner: Arc::new(Inner {
                script,
                requests: Mutex::new(Vec::new()),
            }),
            piece: usize::MAX,
            delay: Duration::ZERO,
            structured: false,
        }
    }

    /// This model, streaming ([`LlmClient::stream`]) its text and each call's arguments in
    /// pieces of at most `chars` characters (at least 1), as a provider's stream would arrive;
    /// by default each comes in one piece. Clones made before share the script but keep their
    /// own setting.
    ///
    /// ```
    /// use futures_util::StreamExt;
    /// use phi_agent::llm::{LlmClient, LlmRequest, LlmResponse, ScriptedLlm, StreamDelta, ToolCall};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let call = ToolCall::new("c1", "add", serde_json::json!({"a": 1, "b": 2}));
    /// let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![call])]).with_pieces(4);
    /// let request = LlmRequest::default();
    /// let mut arguments = String::new();
    /// let mut deltas = llm.stream(&request);
    /// while let Some(delta) = deltas.next().await {
    ///     if let StreamDelta::ToolArguments { fragment, .. } = delta.unwrap() {
    ///         assert!(fragment.len() <= 4);
    ///         arguments.push_str(&fragment);
    ///     }
    /// }
    /// assert_eq!(arguments, r#"{"a":1,"b":2}"#);
    /// # }
    /// ```
    pub fn with_pieces(mut self, chars: usize) -> Self {
        self.piece = chars.max(1);
        self
    }

    /// This model, streaming each delta after the first `delay` after the one before it (on
    /// tokio's clock, so a test on a paused clock takes no time), as a model that writes at a
    /// steady pace would; by default they come at once. With
    /// [`with_pieces`](Self::with_pieces), a test can tell when each piece of a call arrived.
    ///
    /// ```
    /// use std::time::Duration;
    /// use futures_util::StreamExt;
    /// use phi_agent::llm::{LlmClient, LlmRequest, LlmResponse, ScriptedLlm};
    /// # #[tokio::main(flavor = "current_thread", start_paused = true)]
    /// # async fn main() {
    /// let llm = ScriptedLlm::new([LlmResponse::text("abcd")])
    ///     .with_pieces(1)
    ///     .with_piece_delay(Duration::from_millis(10));
    /// let started = tokio::time::Instant::now();
    /// let deltas: Vec<_> = llm.stream(&LlmRequest::default()).collect().await;
    /// assert_eq!(deltas.len(), 5, "a, b, c, d, done");
    /// assert_eq!(started.elapsed(), Duration::from_millis(40));
    /// # }
    /// ```
    pub fn with_piece_delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Claims the provider's structured output
    /// ([`LlmClient::structured_output`](super::LlmClient::structured_output)), so that a typed
    /// run in [`AnswerMode::Native`](crate::AnswerMode::Native) sends its answer schema as
    /// [`LlmRequest::response_format`] (on turns that offer no tools) and reads the answer from
    /// the reply's text. The script still decides what the replies say.
    pub fn with_structured_output(mut self) -> Self {
        self.structured = true;
        self
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<LlmRequest> {
        lock(&self.inner.requests).clone()
    }

    /// Responses of a replay script not yet used (0 for a rule-based model).
    pub fn remaining(&self) -> usize {
        match &self.inner.script {
            Script::Replay(queue) => lock(queue).len(),
            Script::Rules(_) => 0,
        }
    }
}

/// A poisoned lock only means a panic elsewhere; the data is still a plain list.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[async_trait]
impl LlmClient for ScriptedLlm {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        let answered = {
            let mut requests = lock(&self.inner.requests);
            requests.push(request.clone());
            requests.len() - 1
        };
        match &self.inner.script {
            Script::Replay(queue) => lock(queue).pop_front().ok_or_else(|| {
                AgentError::InvalidResponse {
                    provider: "scripted",
                    message: format!(
                        "the script has no response left for request {}; add more responses to ScriptedLlm::new",
                        answered + 1
                    ),
                }
            }),
            Script::Rules(rule) => rule(request),
        }
    }

    fn stream<'a>(&'a self, request: &'a LlmRequest) -> DeltaStream<'a> {
        let deltas = super::whole_reply(self.complete(request), self.piece);
        if self.delay.is_zero() {
            return deltas;
        }
        let delay = self.delay;
        deltas
            .enumerate()
            .then(move |(at, delta)| async move {
                if at > 0 {
                    tokio::time::sleep(delay).await;
                }
                delta
            })
            .boxed()
    }

    fn provider(&self) -> &str {
        "scripted"
    }

    fn model(&self) -> &str {
        "scripted"
    }

    fn structured_output(&self) -> bool {
        self.structured
    }
}

impl fmt::Debug for ScriptedLlm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mode = match self.inner.script {
            Script::Replay(_) => "replay",
            Script::Rules(_) => "rules",
        };
        f.debug_struct("ScriptedLlm")
            .field("mode", &mode)
            .field("remaining", &self.remaining())
            .field("requests", &lock(&self.inner.requests).len())
            .field("piece", &self.piece)
            .field("delay", &self.delay)
            .field("structured", &self.structured)
            .finish()
    }
}

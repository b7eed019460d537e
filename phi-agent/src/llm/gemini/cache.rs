//! Gemini's explicit context caching: the system instruction and the tool declarations stored
//! once as a `cachedContents` resource, and named by each request instead of sent again.

use std::time::Duration;

use serde_json::{Value, json};

/// An explicit cache of a Gemini request's system instruction and tools, made by
/// [`GeminiClient::create_cache`](crate::llm::GeminiClient::create_cache) or named by hand with
/// [`GeminiCache::new`], and used with
/// [`GeminiClient::with_cache`](crate::llm::GeminiClient::with_cache).
///
/// Gemini refuses a request that names a cache and also sends a system instruction or tools,
/// so a request using the cache sends neither. The cache remembers what it holds: a request
/// whose system prompt or tool names differ (a Deferred tool activated, a tool found by search)
/// is sent whole without the cache, with a warning, so that the model always sees the tools the
/// agent offers. Gemini 2.5's implicit cache needs none of this; an explicit one guarantees the
/// discount for as long as it lives, and costs storage per hour.
///
/// ```
/// use phi_agent::llm::{GeminiCache, GeminiClient};
/// let cache = GeminiCache::new("cachedContents/abc123", Some("You are terse."), ["get_weather"]);
/// let client = GeminiClient::new("AIza-not-a-real-key", "gemini-2.5-flash")?.with_cache(cache);
/// assert_eq!(client.cache().map(GeminiCache::name), Some("cachedContents/abc123"));
/// # Ok::<(), phi_agent::AgentError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeminiCache {
    name: String,
    system: Option<String>,
    tools: Vec<String>,
}

impl GeminiCache {
    /// The cache `name` (`cachedContents/...`), holding `system` as its system instruction and
    /// the declarations of the tools named `tools`, in that order.
    pub fn new<I, S>(name: impl Into<String>, system: Option<&str>, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            name: name.into(),
            system: system.map(str::to_string),
            tools: tools.into_iter().map(Into::into).collect(),
        }
    }

    /// The cache's resource name (`cachedContents/...`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether a request with this system instruction and these tools can use the cache.
    pub(super) fn holds<'a>(
        &self,
        system: Option<&str>,
        tools: impl ExactSizeIterator<Item = &'a str>,
    ) -> bool {
        self.system.as_deref() == system
            && tools.len() == self.tools.len()
            && tools.zip(&self.tools).all(|(a, b)| a == b)
    }
}

/// The body of `POST /v1beta/cachedContents`: `model`, the request's system instruction and
/// tools, and the time to live.
pub(super) fn create_body(
    model: &str,
    system_instruction: Option<Value>,
    tools: Option<Value>,
    ttl: Duration,
) -> Value {
    let mut body = json!({
        "model": format!("models/{model}"),
        "ttl": format!("{}s", ttl.as_secs().max(1)),
    });
    if let Some(system) = system_instruction {
        body["systemInstruction"] = system;
    }
    if let Some(tools) = tools {
        body["tools"] = tools;
    }
    body
}

/// The system instruction a request sends: its system prompt, then the conversation's system
/// messages, as `contents` joins them.
pub(super) fn system_text(request: &crate::llm::LlmRequest) -> Option<String> {
    let texts: Vec<&str> = request
        .system
        .as_deref()
        .into_iter()
        .chain(request.messages.iter().filter_map(|message| match message {
            crate::llm::Message::System { text } => Some(text.as_str()),
            _ => None,
        }))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

//! The conversation: what the user, the model and the tools said, in order. Every layer above
//! speaks it (the loop keeps it, adapters put it on the wire, errors carry it), so it sits at the
//! bottom beside [`Content`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::content::Content;
use crate::repair::ArgumentRepair;

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// Instructions for the model.
    System {
        /// The instructions.
        text: String,
    },
    /// What the user said.
    User {
        /// The user's words.
        text: String,
    },
    /// What the model said, with the tools it asked to call.
    Assistant {
        /// The model's text (may be empty when it only calls tools).
        text: String,
        /// The calls it made, in order.
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call.
    Tool {
        /// The id of the call this answers.
        tool_call_id: String,
        /// The name of the tool that ran.
        name: String,
        /// The result.
        content: Vec<Content>,
        /// Whether the call failed.
        is_error: bool,
    },
    /// A tool search the provider ran for the model, on its own side (Anthropic's tool search
    /// tool): kept in the conversation so that later requests replay it. Adapters without such a
    /// search leave it out.
    ToolSearch(ToolSearchCall),
}

/// One tool search a provider ran for the model, and what it found.
///
/// `#[non_exhaustive]`: build one with [`ToolSearchCall::new`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolSearchCall {
    /// The provider's id of the search.
    pub id: String,
    /// The search's input as the provider reported it (e.g. `{"query": "weather"}`).
    pub input: Value,
    /// Names of the tools it found, best first.
    pub tools: Vec<String>,
    /// What the provider needs back, unchanged, to replay the search (the OpenAI Responses
    /// API's `tool_search_call` and `tool_search_output` items, as they came); empty for
    /// Anthropic, whose search the adapter rebuilds from the fields above.
    #[serde(default, skip_serializing_if = "ProviderState::is_empty")]
    pub provider_state: ProviderState,
}

impl ToolSearchCall {
    /// The search `id` with `input`, which found `tools` (best first), with no provider state.
    ///
    /// ```
    /// use phi_agent::llm::ToolSearchCall;
    /// let search = ToolSearchCall::new("srv_1", serde_json::json!({"query": "weather"}), ["get_weather"]);
    /// assert_eq!(search.query(), "weather");
    /// assert_eq!(search.tools, ["get_weather"]);
    /// ```
    pub fn new(
        id: impl Into<String>,
        input: Value,
        tools: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            id: id.into(),
            input,
            tools: tools.into_iter().map(Into::into).collect(),
            provider_state: ProviderState::default(),
        }
    }

    /// This search with `state` as its [`provider_state`](Self::provider_state).
    pub fn with_provider_state(mut self, state: ProviderState) -> Self {
        self.provider_state = state;
        self
    }

    /// The search's query, when its input has one.
    pub fn query(&self) -> &str {
        self.input
            .get("query")
            .or_else(|| self.input.get("pattern"))
            .and_then(Value::as_str)
            .unwrap_or_default()
    }
}

impl Message {
    /// A user message.
    pub fn user(text: impl Into<String>) -> Self {
        Message::User { text: text.into() }
    }

    /// A system message.
    pub fn system(text: impl Into<String>) -> Self {
        Message::System { text: text.into() }
    }

    /// An assistant message with text only.
    pub fn assistant(text: impl Into<String>) -> Self {
        Message::Assistant {
            text: text.into(),
            tool_calls: Vec::new(),
        }
    }
}

/// A model's request to run one tool.
///
/// `#[non_exhaustive]`: build one with [`ToolCall::new`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolCall {
    /// The provider's id for the call.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments object. When the model sent text that is not JSON, adapters keep that text
    /// here as a JSON string, so the agent can tell the model what was wrong and the conversation
    /// can be sent back exactly as the model wrote it.
    pub arguments: Value,
    /// What the provider attached to the call that only it can read (a Gemini thought
    /// signature, the OpenAI Responses reasoning items that came before the call), kept with
    /// the call so that the conversation sent back carries it unchanged. Empty for most calls,
    /// and then left out of the call's JSON.
    #[serde(default, skip_serializing_if = "ProviderState::is_empty")]
    pub provider_state: ProviderState,
    /// What the run repaired in [`arguments`](Self::arguments) when they entered it (almost-JSON
    /// text made an object, see [`AgentConfig::argument_repair`](crate::AgentConfig::argument_repair));
    /// empty when they were JSON as sent, and then left out of the call's JSON.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub repaired: Vec<ArgumentRepair>,
}

impl ToolCall {
    /// A call of `name` with `arguments`, identified by `id`.
    ///
    /// ```
    /// use phi_agent::llm::ToolCall;
    /// let call = ToolCall::new("call_1", "calculator", serde_json::json!({"a": 1}));
    /// assert_eq!(call.name, "calculator");
    /// ```
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments,
            provider_state: ProviderState::default(),
            repaired: Vec::new(),
        }
    }

    /// This call with `state` as its [`provider_state`](Self::provider_state).
    pub fn with_provider_state(mut self, state: ProviderState) -> Self {
        self.provider_state = state;
        self
    }
}

/// Opaque state a provider attached to part of a conversation, which it needs back, unchanged,
/// in later requests: one JSON value per provider, under the name of the adapter that wrote it
/// (so another provider's adapter, given the same conversation, leaves it out).
///
/// It serializes as a JSON object `{adapter: value}` and is kept byte for byte through a
/// session's history, a [`PausedRun`](crate::PausedRun) and a journal
/// ([`JournalExecutor`](crate::JournalExecutor)): nothing in between reads it.
///
/// ```
/// use phi_agent::llm::{ProviderState, ToolCall};
/// let state = ProviderState::default().with("gemini", serde_json::json!({"thoughtSignature": "c2ln"}));
/// let call = ToolCall::new("c1", "now", serde_json::json!({})).with_provider_state(state);
/// assert_eq!(call.provider_state.get("gemini").unwrap()["thoughtSignature"], "c2ln");
/// let json = serde_json::to_string(&call).unwrap();
/// assert_eq!(serde_json::from_str::<ToolCall>(&json).unwrap(), call);
/// // Without state, a call's JSON is what it always was.
/// let plain = ToolCall::new("c1", "now", serde_json::json!({}));
/// assert_eq!(serde_json::to_string(&plain).unwrap(), r#"{"id":"c1","name":"now","arguments":{}}"#);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ProviderState(Map<String, Value>);

impl ProviderState {
    /// Whether no provider left anything.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// What the adapter named `adapter` left, if anything.
    pub fn get(&self, adapter: &str) -> Option<&Value> {
        self.0.get(adapter)
    }

    /// What the adapter named `adapter` left, to change in place.
    pub fn get_mut(&mut self, adapter: &str) -> Option<&mut Value> {
        self.0.get_mut(adapter)
    }

    /// Keeps `state` under `adapter`, replacing what was there.
    pub fn insert(&mut self, adapter: impl Into<String>, state: Value) {
        self.0.insert(adapter.into(), state);
    }

    /// This state with `state` kept under `adapter`.
    pub fn with(mut self, adapter: impl Into<String>, state: Value) -> Self {
        self.insert(adapter, state);
        self
    }
}

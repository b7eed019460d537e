//! What a running tool can say back: progress, log messages, questions to the user
//! (elicitation) and questions to a model (sampling).
//!
//! A tool says them through [`ToolContext`](super::ToolContext); where they go is the business
//! of the [`ToolPeer`] the context holds. Served over MCP, the peer is the client; a context
//! without a peer (a unit test, or a run whose loop has not set one) logs progress and messages
//! as tracing events and answers questions with an error result that says they cannot be asked
//! here, so the same tool runs everywhere.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{AgentError, AgentResult};

/// How serious a log message is: the eight levels of syslog (RFC 5424), as MCP uses them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something to look at.
    Warning,
    /// An operation failed.
    Error,
    /// A component failed.
    Critical,
    /// Action is needed now.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// One progress report of a running call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Progress {
    /// How much is done; grows with every report of a call.
    pub done: f64,
    /// How much there is in all, when known.
    pub total: Option<f64>,
    /// What is being done now, for a person to read.
    pub message: Option<String>,
}

impl Progress {
    /// `done` out of an unknown total, with no message.
    pub fn new(done: f64) -> Self {
        Self {
            done,
            total: None,
            message: None,
        }
    }

    /// With the total known.
    pub fn with_total(mut self, total: f64) -> Self {
        self.total = Some(total);
        self
    }

    /// With a message for a person to read.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }
}

/// The user's answer to a question a tool asked ([`ToolContext::elicit`](super::ToolContext::elicit)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", content = "content", rename_all = "lowercase")]
pub enum Elicitation<T> {
    /// The user filled in the form: here is what they entered.
    Accept(T),
    /// The user said no.
    Decline,
    /// The user dismissed the question without choosing.
    Cancel,
}

impl<T> Elicitation<T> {
    /// The value, when the user accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicitation::Accept(value) => Some(value),
            Elicitation::Decline | Elicitation::Cancel => None,
        }
    }
}

/// Who said a message of a [`SampleRequest`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SampleRole {
    /// The user (or the tool, speaking for it).
    User,
    /// The model.
    Assistant,
}

/// A question for a model ([`ToolContext::sample`](super::ToolContext::sample)): text messages,
/// an optional system prompt and a cap on the answer's length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SampleRequest {
    /// The conversation, oldest first.
    pub messages: Vec<(SampleRole, String)>,
    /// The system prompt, if any.
    pub system: Option<String>,
    /// The most tokens the answer may take. Default: 1,000.
    pub max_tokens: u32,
    /// Sampling temperature, if the tool cares.
    pub temperature: Option<f64>,
    /// The name the question goes by where a client answers questions by name (an MCP
    /// `input_required` result); `None`: `sampling`.
    pub key: Option<String>,
}

impl Default for SampleRequest {
    fn default() -> Self {
        Self {
            messages: Vec::new(),
            system: None,
            max_tokens: 1_000,
            temperature: None,
            key: None,
        }
    }
}

impl SampleRequest {
    /// One user message.
    pub fn new(prompt: impl Into<String>) -> Self {
        Self::default().with_message(SampleRole::User, prompt)
    }

    /// With one more message.
    pub fn with_message(mut self, role: SampleRole, text: impl Into<String>) -> Self {
        self.messages.push((role, text.into()));
        self
    }

    /// With a system prompt.
    pub fn with_system(mut self, system: impl Into<String>) -> Self {
        self.system = Some(system.into());
        self
    }

    /// With a cap on the answer's length.
    pub fn with_max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = max_tokens;
        self
    }

    /// With a sampling temperature.
    pub fn with_temperature(mut self, temperature: f64) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Under the name `key` where a client answers questions by name (an MCP `input_required`
    /// result, whose input requests the client answers by key).
    pub fn with_key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

/// A model's answer to a [`SampleRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Sampled {
    /// The answer's text.
    pub text: String,
    /// The model that answered, as its provider names it.
    pub model: String,
    /// Why the model stopped (`endTurn`, `maxTokens`, ...), when it says.
    pub stop_reason: Option<String>,
}

impl Sampled {
    /// An answer `text` from `model`.
    pub fn new(text: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            model: model.into(),
            stop_reason: None,
        }
    }

    /// With the reason the model stopped.
    pub fn with_stop_reason(mut self, reason: impl Into<String>) -> Self {
        self.stop_reason = Some(reason.into());
        self
    }
}

/// One of the client's roots: a directory or file it lets the tool work in (MCP `roots/list`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// Where it is: a `file://` URI.
    pub uri: String,
    /// A name for people to read, when the client gives one.
    pub name: Option<String>,
}

impl Root {
    /// The root at `uri`, unnamed.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: None,
        }
    }

    /// With a name for people to read.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// The key a question for a form of `T` goes by: `T`'s schema name in snake case
/// (`UserName` -> `user_name`), so a client that answers questions by name sees what is asked.
pub(super) fn form_key<T: JsonSchema>() -> String {
    let name = T::schema_name();
    let mut key = String::with_capacity(name.len() + 4);
    for (index, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if index > 0 && !key.ends_with('_') {
                key.push('_');
            }
            key.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() {
            key.push(c);
        } else if !key.ends_with('_') && !key.is_empty() {
            // Generic arguments and paths (`Vec<Foo>`) become separators.
            key.push('_');
        }
    }
    let key = key.trim_end_matches('_');
    if key.is_empty() {
        "elicitation".to_string()
    } else {
        key.to_string()
    }
}

/// Where what a running tool says goes: an MCP client, an agent run, a test.
///
/// [`ToolContext::with_peer`](super::ToolContext::with_peer) sets one for a call. The MCP server
/// sets its own for every `tools/call`; an agent loop sets one that turns progress and log
/// messages into events and sends questions to its handlers. A test can set one to see what a
/// tool says and answer its questions.
#[async_trait]
pub trait ToolPeer: Send + Sync + std::fmt::Debug {
    /// A progress report. Sending it must not fail the tool: report trouble as a tracing event.
    async fn progress(&self, progress: Progress);

    /// A log message at `level`, with any JSON `data` (usually a string).
    async fn log(&self, level: LogLevel, data: Value);

    /// Asks the user `message` with a form of `schema` (a flat JSON Schema object of
    /// primitive properties); the accepted content is the filled-in form.
    async fn elicit(&self, message: &str, schema: Value) -> AgentResult<Elicitation<Value>>;

    /// [`elicit`](Self::elicit) under `key`, the name the question goes by where a client
    /// answers questions by name (an MCP `input_required` result, protocol 2026-07-28).
    /// Default: `elicit`, the key unused.
    async fn elicit_as(
        &self,
        key: &str,
        message: &str,
        schema: Value,
    ) -> AgentResult<Elicitation<Value>> {
        let _ = key;
        self.elicit(message, schema).await
    }

    /// Asks a model.
    async fn sample(&self, request: SampleRequest) -> AgentResult<Sampled>;

    /// The client's roots: the directories and files it lets the tool work in
    /// ([`ToolContext::roots`](super::ToolContext::roots)). Default: an error saying they
    /// cannot be asked for here.
    async fn roots(&self) -> AgentResult<Vec<Root>> {
        Err(not_connected("list the client's roots"))
    }

    /// Calls the tool `name` with `arguments` for the tool
    /// ([`ToolContext::call_tool`](super::ToolContext::call_tool)). Default: an error saying
    /// that tools cannot be called here; a test peer can answer with results of its own.
    async fn call_tool(&self, name: &str, arguments: Value) -> AgentResult<super::CalledTool> {
        let _ = (name, arguments);
        Err(not_connected("call another tool"))
    }

    /// Closes the stream the call's answer goes out on, for the client to reconnect and resume
    /// it ([`ToolContext::close_stream`](super::ToolContext::close_stream)); whether one was
    /// closed. Default: `false`, there is no such stream.
    async fn close_stream(&self) -> bool {
        false
    }
}

/// What a context without a peer does: progress and log messages become tracing events;
/// questions get an error that says they cannot be asked here.
pub(super) async fn no_peer_progress(tool_call_id: &str, progress: &Progress) {
    tracing::debug!(
        tool_call_id,
        done = progress.done,
        total = progress.total,
        progress_message = progress.message.as_deref(),
        "tool progress"
    );
}

pub(super) fn no_peer_log(tool_call_id: &str, level: LogLevel, data: &Value) {
    match level {
        LogLevel::Debug => tracing::debug!(tool_call_id, %data, "tool log"),
        LogLevel::Info | LogLevel::Notice => tracing::info!(tool_call_id, %data, "tool log"),
        LogLevel::Warning => tracing::warn!(tool_call_id, %data, "tool log"),
        _ => tracing::error!(tool_call_id, ?level, %data, "tool log"),
    }
}

pub(super) fn not_connected(what: &str) -> AgentError {
    AgentError::tool(format!(
        "this tool needs to {what}, which is not supported where it runs now (no client or \
         handler is connected to answer); it can run where one is, e.g. served over MCP to a \
         client that supports it"
    ))
}

/// The form schema of `T` as elicitation wants it: one flat object of primitive properties,
/// references inlined, without `$schema`, titles, formats standard validators do not know, or
/// `null` in a property's type (an `Option` field is simply not required).
pub(super) fn form_schema<T: JsonSchema>() -> Value {
    let mut schema = schemars::generate::SchemaSettings::draft2020_12()
        .for_deserialize()
        .with(|settings| settings.meta_schema = None)
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    inline_refs(&mut schema);
    if let Value::Object(map) = &mut schema {
        for key in [
            "$schema",
            "$defs",
            "definitions",
            "title",
            "additionalProperties",
        ] {
            map.remove(key);
        }
        if let Some(Value::Object(properties)) = map.get_mut("properties") {
            for property in properties.values_mut() {
                flatten_property(property);
            }
        }
    }
    schema
}

/// One form field: `["string", "null"]` becomes `"string"`, and formats elicitation does not
/// define (`uint32`, ...) go (their bounds stay).
fn flatten_property(property: &mut Value) {
    let Value::Object(map) = property else { return };
    if let Some(Value::Array(types)) = map.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if let [single] = kept.as_slice() {
            map.insert("type".into(), single.clone());
        }
    }
    let known = ["email", "uri", "date", "date-time"];
    if map
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|format| !known.contains(&format))
    {
        map.remove("format");
    }
}

/// Replaces every local `$ref` with the definition it names (forms are flat: no cycles, and
/// the depth bound stops a strange one).
fn inline_refs(schema: &mut Value) {
    fn walk(value: &mut Value, defs: &Value, depth: usize) {
        if depth > 32 {
            return;
        }
        match value {
            Value::Object(map) => {
                if let Some(Value::String(reference)) = map.get("$ref") {
                    let name = reference.rsplit('/').next().unwrap_or_default();
                    if let Some(Value::Object(def)) = defs.get(name) {
                        let def = def.clone();
                        map.remove("$ref");
                        for (key, item) in def {
                            map.entry(key).or_insert(item);
                        }
                    }
                }
                for item in map.values_mut() {
                    walk(item, defs, depth + 1);
                }
            }
            Value::Array(items) => {
                for item in items {
                    walk(item, defs, depth + 1);
                }
            }
            _ => {}
        }
    }
    let defs = schema
        .get("$defs")
        .or_else(|| schema.get("definitions"))
        .cloned()
        .unwrap_or(Value::Null);
    walk(schema, &defs, 0);
}

/// The accepted content of an elicitation as `T`, or an error the tool can return as is.
pub(super) fn decode_answer<T: DeserializeOwned>(
    answer: Elicitation<Value>,
) -> AgentResult<Elicitation<T>> {
    Ok(match answer {
        Elicitation::Accept(value) => {
            Elicitation::Accept(serde_json::from_value(value).map_err(|error| {
                AgentError::tool(format!(
                    "the user's answer does not fit the form that was asked: {error}"
                ))
            })?)
        }
        Elicitation::Decline => Elicitation::Decline,
        Elicitation::Cancel => Elicitation::Cancel,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn forms_inline_nested_enums() {
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        enum Size {
            Small,
            Large,
        }
        #[derive(Deserialize, JsonSchema)]
        #[allow(dead_code)]
        struct Order {
            size: Size,
        }
        let form = form_schema::<Order>();
        assert_eq!(
            form["properties"]["size"]["enum"],
            json!(["Small", "Large"]),
            "{form}"
        );
        assert!(form.get("$defs").is_none(), "{form}");
    }
}

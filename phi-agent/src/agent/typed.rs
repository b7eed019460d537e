//! Typed answers: a request made [`typed::<T>()`](crate::RunRequest::typed) returns the agent's
//! final answer as a `T`.
//!
//! By default the answer comes through a final-answer tool whose schema is `T`'s canonical
//! schema, offered beside the agent's tools on every turn, so the model keeps calling tools and
//! answers when it is ready; see `answer.rs` for how a reply is judged.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::answer::{Answering, DecodeAnswer};
use super::output::RunOutput;
use super::paused::PausedRun;
use super::phi::PhiAgent;
use crate::error::{AgentError, AgentResult};
use crate::llm::ToolSpec;
use crate::{decode, schema};

/// How a typed run's answer reaches it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnswerMode {
    /// A final-answer tool offered beside the agent's tools on every turn (the default). Works
    /// with every provider and keeps tool calls working: no request carries a response format.
    #[default]
    Tool,
    /// The provider's structured output (OpenAI's strict `response_format: json_schema`, the
    /// Responses API's `text.format`) on a turn that offers no tools, the answer being the
    /// reply's text; a turn that offers tools gets the final-answer tool as in [`Tool`](Self::Tool)
    /// (a response format there would keep the model from calling them). A client without
    /// structured output ([`LlmClient::structured_output`](crate::LlmClient::structured_output)
    /// is `false`: Anthropic, Gemini, custom clients) gets the tool on every turn.
    Native,
}

/// Settings of one typed run ([`RunOptions::answer`](crate::RunOptions::answer)); the defaults
/// suit most runs.
///
/// ```
/// use phi_agent::{AnswerMode, AnswerOptions};
/// let options = AnswerOptions::default().with_mode(AnswerMode::Native).with_max_retries(1);
/// assert_eq!(options.mode, AnswerMode::Native);
/// assert_eq!(options.tool_name, "final_answer");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct AnswerOptions {
    /// How the answer is asked for. Default: [`AnswerMode::Tool`].
    pub mode: AnswerMode,
    /// How many refused answers (a plain-text reply, a value that does not decode) go back to
    /// the model with their mistakes; one refusal more ends the run with
    /// [`AgentError::AnswerRejected`]. Default: 3. Zero: the first answer must be right.
    pub max_retries: usize,
    /// The final-answer tool's name. Default: `final_answer`; must follow the tool-name rule
    /// and differ from every registered tool's.
    pub tool_name: &'static str,
    /// The final-answer tool's description, read by the model.
    pub description: &'static str,
}

impl Default for AnswerOptions {
    fn default() -> Self {
        Self {
            mode: AnswerMode::Tool,
            max_retries: 3,
            tool_name: "final_answer",
            description: "Give your final answer to the task. Call this once you have everything \
                          the answer needs (after any other tool calls); its arguments are the \
                          answer.",
        }
    }
}

impl AnswerOptions {
    /// These options with `mode`.
    pub fn with_mode(mut self, mode: AnswerMode) -> Self {
        self.mode = mode;
        self
    }

    /// These options with `max_retries` refused answers allowed.
    pub fn with_max_retries(mut self, max_retries: usize) -> Self {
        self.max_retries = max_retries;
        self
    }

    /// These options with the final-answer tool named `name`.
    pub fn with_tool_name(mut self, name: &'static str) -> Self {
        self.tool_name = name;
        self
    }

    /// These options with the final-answer tool described as `description`.
    pub fn with_description(mut self, description: &'static str) -> Self {
        self.description = description;
        self
    }
}

/// What a typed run returns: the answer, and the run as a plain run reports it.
///
/// In [`run`](Self::run), `text` is the answer as compact JSON (`value` serialized as the model
/// sent it), `tool_calls` include the final-answer calls (refused ones with their errors, the
/// accepted one last, its result "Answer received."), and `messages` the whole exchange, so a
/// session can go on from it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct TypedOutput<T> {
    /// The answer.
    pub value: T,
    /// The run: messages, tool calls, turns, usage.
    pub run: RunOutput,
}

/// How a typed run that may pause ends: with the answer, or paused on calls that wait for a
/// person; see [`RunRequest::pausing`](crate::RunRequest::pausing).
#[derive(Debug, Clone, PartialEq)]
#[must_use = "a paused run does nothing until it is decided and resumed"]
#[non_exhaustive]
pub enum TypedOutcome<T> {
    /// The model answered.
    Done(TypedOutput<T>),
    /// Calls wait for approval; decide them on the [`PausedRun`] and resume it as a typed run
    /// (`agent.resume(paused).typed::<T>()`).
    Paused(PausedRun),
}

impl<T> TypedOutcome<T> {
    /// The answer, if the run is done.
    pub fn done(self) -> Option<TypedOutput<T>> {
        match self {
            TypedOutcome::Done(output) => Some(output),
            TypedOutcome::Paused(_) => None,
        }
    }

    /// The paused run, if the run paused.
    pub fn paused(self) -> Option<PausedRun> {
        match self {
            TypedOutcome::Done(_) => None,
            TypedOutcome::Paused(paused) => Some(paused),
        }
    }
}

/// A `T` whose schema is not an object, as the object the model fills: tool arguments (and
/// OpenAI's structured output) must be objects.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Wrapped<T> {
    /// The answer.
    value: T,
}

fn decode_as<T: DeserializeOwned + JsonSchema + Send + 'static>(
    tool: &str,
    args: &serde_json::Value,
) -> AgentResult<Box<dyn std::any::Any + Send>> {
    decode::arguments::<T>(tool, args, schema::cached::<T>).map(|value| Box::new(value) as _)
}

fn decode_wrapped<T: DeserializeOwned + JsonSchema + Send + 'static>(
    tool: &str,
    args: &serde_json::Value,
) -> AgentResult<Box<dyn std::any::Any + Send>> {
    decode::arguments::<Wrapped<T>>(tool, args, schema::cached::<Wrapped<T>>)
        .map(|wrapped| Box::new(wrapped.value) as _)
}

/// Whether the canonical schema `schema` is an object schema, which tool arguments can be as
/// they are.
fn is_object(schema: &serde_json::Value) -> bool {
    schema.get("type").and_then(serde_json::Value::as_str) == Some("object")
        && ["anyOf", "oneOf", "allOf", "not", "enum", "const", "$ref"]
            .iter()
            .all(|keyword| schema.get(*keyword).is_none())
}

/// The answer of a run for `T` with `options`; refuses a tool name that is invalid or taken.
pub(super) fn answering<T>(agent: &PhiAgent, options: &AnswerOptions) -> AgentResult<Answering>
where
    T: DeserializeOwned + JsonSchema + Send + 'static,
{
    let name = options.tool_name;
    crate::registry::validate_tool_name(name)?;
    let registry = &agent.inner.registry;
    if registry.knows(name) || name == crate::search::SEARCH_TOOL_NAME {
        return Err(AgentError::Config(format!(
            "the final-answer tool's name `{name}` is taken by a tool of the agent; choose another with `AnswerOptions::with_tool_name`"
        )));
    }
    let schema = schema::cached::<T>();
    let wrapped = !is_object(&schema);
    let (schema, decode): (_, DecodeAnswer) = if wrapped {
        (schema::cached::<Wrapped<T>>(), decode_wrapped::<T>)
    } else {
        (schema, decode_as::<T>)
    };
    let spec = ToolSpec::new(name, options.description, schema.as_ref().clone());
    let native = options.mode == AnswerMode::Native && agent.inner.llm.structured_output();
    Ok(Answering::new(
        spec,
        decode,
        wrapped,
        native,
        options.max_retries,
    ))
}

/// The decoded answer of a typed run that is done.
pub(super) fn take_answer<T: 'static>(answering: &mut Answering) -> AgentResult<T> {
    answering
        .take_value()
        .and_then(|value| value.downcast::<T>().ok())
        .map(|value| *value)
        .ok_or_else(|| AgentError::Internal("the typed run ended without its answer".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_object_schema_goes_unwrapped() {
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        struct Point {
            x: i32,
        }
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        enum Shape {
            Dot,
            Line(i32),
        }
        assert!(is_object(&schema::cached::<Point>()));
        assert!(!is_object(&schema::cached::<String>()));
        assert!(!is_object(&schema::cached::<Vec<Point>>()));
        assert!(!is_object(&schema::cached::<Shape>()));
        assert!(!is_object(&schema::cached::<Option<Point>>()));
        let wrapped = schema::cached::<Wrapped<Vec<String>>>();
        assert_eq!(wrapped["type"], "object");
        assert_eq!(wrapped["required"], serde_json::json!(["value"]));
        assert_eq!(wrapped["additionalProperties"], false);
        assert_eq!(wrapped["properties"]["value"]["type"], "array");
    }
}

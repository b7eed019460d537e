//! Tool definitions as each model provider's API takes them: what the adapters put on the wire
//! (`docs/src/providers.md#openai-tool-object`, `#anthropic-tool-object`,
//! `#gemini-function-declaration`).
//!
//! Schemas come from the tool's dialect cache (see [`ToolSpec::dialect_schema`]), so each is
//! derived once per tool; a fallback is logged once per tool and dialect. Each builder is a plain
//! `fn(&ToolSpec) -> Value` (Gemini's returns a `Result`), so an adapter maps its request's tools
//! through it:
//!
//! ```
//! use phi_agent::llm::ToolSpec;
//! use phi_agent::llm::definition;
//! use serde_json::{Value, json};
//!
//! let tools = vec![ToolSpec::new("ping", "Answer pong", json!({"type": "object", "properties": {}}))];
//! let openai: Vec<Value> = tools.iter().map(definition::openai).collect();
//! let anthropic: Vec<Value> = tools.iter().map(definition::anthropic).collect();
//! assert_eq!(openai[0]["function"]["strict"], true);
//! assert_eq!(anthropic[0]["input_schema"]["type"], "object");
//! ```

use serde::Serialize;
use serde_json::{Map, Value};

use crate::registry::ToolSpec;
use crate::schema::{Dialect, DialectError, WireSchema};

/// The OpenAI chat-completions tool object:
/// `{"type": "function", "function": {name, description, parameters, strict}}`.
///
/// Strict mode when the schema fits it ([`Dialect::OpenAiStrict`]); otherwise the non-strict
/// schema with `strict: false`, and a `tracing` warning that names the field and the reason.
/// A spec whose root is not an object (impossible for a registered tool, see
/// [`check_root`](crate::schema::check_root)) is sent as it is, with a warning.
///
/// ```
/// use phi_agent::llm::ToolSpec;
/// use phi_agent::llm::definition;
/// use serde_json::json;
///
/// let spec = ToolSpec::new("lookup", "Look up a word", json!({
///     "type": "object",
///     "properties": {"word": {"type": "string"}, "meta": {"type": "object", "additionalProperties": {"type": "string"}}},
///     "required": ["word"]
/// }));
/// let tool = definition::openai(&spec);
/// assert_eq!(tool["function"]["name"], "lookup");
/// assert_eq!(tool["function"]["strict"], false, "a map keeps the tool out of strict mode");
/// ```
pub fn openai(spec: &ToolSpec) -> Value {
    serde_json::to_value(openai_borrowed(spec)).unwrap_or_default()
}

/// [`openai`]'s tool object borrowing its schema, for an adapter to serialize straight into its
/// request without building (and dropping) a copy of every schema.
pub(crate) fn openai_borrowed(spec: &ToolSpec) -> OpenAiTool<'_> {
    let (parameters, strict) = openai_parameters(spec);
    OpenAiTool {
        kind: "function",
        function: OpenAiFunction {
            name: spec.name,
            description: spec.description_with_examples(),
            parameters,
            strict,
        },
    }
}

/// The strict schema when it fits, else the non-strict one: what both OpenAI APIs send.
fn openai_parameters(spec: &ToolSpec) -> (WireSchema<'_>, bool) {
    match spec.dialects.wire(&spec.schema, Dialect::OpenAiStrict) {
        Ok(schema) => (schema, true),
        Err(error) => {
            spec.dialects.warn_once(Dialect::OpenAiStrict, || {
                tracing::warn!(
                    tool = spec.name,
                    reason = %error,
                    "tool schema does not fit OpenAI strict mode; sending it without `strict`"
                );
            });
            (
                WireSchema::Value(spec.dialect_schema_or_canonical(Dialect::OpenAi)),
                false,
            )
        }
    }
}

/// OpenAI chat completions' structured output for the answer schema `spec`:
/// `{"type": "json_schema", "json_schema": {name, description, schema, strict}}`, the value of a
/// request's `response_format`. The schema and the strict-mode fallback are [`openai`]'s: strict
/// when the schema fits strict mode, else the non-strict schema with `strict: false` (the
/// provider then does not hold the reply to it, and a typed run checks the reply anyway).
///
/// ```
/// use phi_agent::llm::ToolSpec;
/// use serde_json::json;
/// let spec = ToolSpec::new("final_answer", "The answer", json!({
///     "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]
/// }));
/// let format = phi_agent::llm::definition::openai_response_format(&spec);
/// assert_eq!(format["type"], "json_schema");
/// assert_eq!(format["json_schema"]["name"], "final_answer");
/// assert_eq!(format["json_schema"]["strict"], true);
/// assert_eq!(format["json_schema"]["schema"]["additionalProperties"], false);
/// ```
pub fn openai_response_format(spec: &ToolSpec) -> Value {
    serde_json::to_value(openai_response_format_borrowed(spec)).unwrap_or_default()
}

/// [`openai_response_format`] borrowing its schema; see [`openai_borrowed`].
#[cfg_attr(not(feature = "openai"), allow(dead_code))]
pub(crate) fn openai_response_format_borrowed(spec: &ToolSpec) -> ChatResponseFormat<'_> {
    ChatResponseFormat {
        kind: "json_schema",
        json_schema: json_schema_format(spec, None),
    }
}

/// The Responses API's structured output for the answer schema `spec`: the value of a request's
/// `text.format`, `{"type": "json_schema", name, description, schema, strict}` (flat, where
/// chat completions nest it); schema and strictness as [`openai_response_format`].
///
/// ```
/// use phi_agent::llm::ToolSpec;
/// use serde_json::json;
/// let spec = ToolSpec::new("final_answer", "The answer", json!({"type": "object", "properties": {}}));
/// let format = phi_agent::llm::definition::openai_responses_format(&spec);
/// assert_eq!(format["type"], "json_schema");
/// assert_eq!(format["name"], "final_answer");
/// assert_eq!(format["strict"], true);
/// ```
pub fn openai_responses_format(spec: &ToolSpec) -> Value {
    serde_json::to_value(openai_responses_format_borrowed(spec)).unwrap_or_default()
}

/// [`openai_responses_format`] borrowing its schema; see [`openai_borrowed`].
#[cfg_attr(not(feature = "openai"), allow(dead_code))]
pub(crate) fn openai_responses_format_borrowed(spec: &ToolSpec) -> JsonSchemaFormat<'_> {
    json_schema_format(spec, Some("json_schema"))
}

/// The schema format both OpenAI APIs share, typed (`type`) where it stands alone.
fn json_schema_format<'a>(spec: &'a ToolSpec, kind: Option<&'static str>) -> JsonSchemaFormat<'a> {
    let (schema, strict) = openai_parameters(spec);
    JsonSchemaFormat {
        kind,
        name: spec.name,
        description: spec.description,
        schema,
        strict,
    }
}

/// See [`openai_response_format_borrowed`].
#[derive(Serialize)]
pub(crate) struct ChatResponseFormat<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    json_schema: JsonSchemaFormat<'a>,
}

/// A JSON Schema response format: the inner object of chat completions' `response_format`, and
/// the Responses API's `text.format` (with its `type`).
#[derive(Serialize)]
pub(crate) struct JsonSchemaFormat<'a> {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    name: &'a str,
    description: &'a str,
    schema: WireSchema<'a>,
    strict: bool,
}

/// See [`openai_borrowed`].
#[derive(Serialize)]
pub(crate) struct OpenAiTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: OpenAiFunction<'a>,
}

#[derive(Serialize)]
struct OpenAiFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: WireSchema<'a>,
    strict: bool,
}

/// The OpenAI Responses API's function tool: `{"type": "function", name, description,
/// parameters, strict}`, flat where chat completions nest it under `function`; the schema and the
/// strict-mode fallback are [`openai`]'s (`docs/src/providers.md#openai-responses-tool-object`).
///
/// ```
/// use phi_agent::llm::ToolSpec;
/// use serde_json::json;
/// let spec = ToolSpec::new("ping", "Answer pong", json!({"type": "object", "properties": {}}));
/// let tool = phi_agent::llm::definition::openai_responses(&spec);
/// assert_eq!(tool["name"], "ping");
/// assert_eq!(tool["strict"], true);
/// assert_eq!(tool["parameters"], phi_agent::llm::definition::openai(&spec)["function"]["parameters"]);
/// ```
pub fn openai_responses(spec: &ToolSpec) -> Value {
    serde_json::to_value(openai_responses_borrowed(spec)).unwrap_or_default()
}

/// [`openai_responses`]'s tool object borrowing its schema; see [`openai_borrowed`].
pub(crate) fn openai_responses_borrowed(spec: &ToolSpec) -> ResponsesTool<'_> {
    let (parameters, strict) = openai_parameters(spec);
    ResponsesTool {
        kind: "function",
        name: spec.name,
        description: spec.description_with_examples(),
        parameters,
        strict,
        allowed_callers: None,
    }
}

/// [`openai_responses_borrowed`] with the tool's `allowed_callers`, for a request that carries
/// programmatic tool calling: `"direct"`, `"programmatic"` or both, from [`ToolSpec::callers`].
#[cfg_attr(not(feature = "openai"), allow(dead_code))]
pub(crate) fn openai_responses_with_callers_borrowed(spec: &ToolSpec) -> ResponsesTool<'_> {
    let callers = spec.callers();
    ResponsesTool {
        allowed_callers: Some(match (callers.allows_direct(), callers.allows_code()) {
            (true, false) => &["direct"],
            (false, true) => &["programmatic"],
            _ => &["direct", "programmatic"],
        }),
        ..openai_responses_borrowed(spec)
    }
}

/// See [`openai_responses_borrowed`].
#[derive(Serialize)]
pub(crate) struct ResponsesTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    parameters: WireSchema<'a>,
    strict: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_callers: Option<&'static [&'static str]>,
}

/// The Anthropic messages tool object: `{name, description, input_schema}`, and
/// `input_examples` when the tool has [examples](ToolSpec::input_examples) (every other
/// provider reads them at the end of the description instead).
///
/// ```
/// use phi_agent::llm::ToolSpec;
/// use serde_json::json;
/// let spec = ToolSpec::new("ping", "Answer pong", json!({"type": "object", "properties": {}}));
/// let tool = phi_agent::llm::definition::anthropic(&spec);
/// assert_eq!(tool, json!({"name": "ping", "description": "Answer pong",
///     "input_schema": {"type": "object", "properties": {}}}));
/// ```
pub fn anthropic(spec: &ToolSpec) -> Value {
    serde_json::to_value(anthropic_borrowed(spec)).unwrap_or_default()
}

/// [`anthropic`]'s tool object borrowing its schema; see [`openai_borrowed`].
pub(crate) fn anthropic_borrowed(spec: &ToolSpec) -> AnthropicTool<'_> {
    AnthropicTool {
        name: spec.name,
        description: spec.description,
        input_schema: spec.dialect_schema_or_canonical(Dialect::Anthropic),
        input_examples: spec.input_examples(),
        allowed_callers: None,
    }
}

/// The `type`s of Anthropic's code-execution tool versions, oldest first: what
/// `CodeExecutionVersion` (in the Anthropic adapter) indexes.
#[cfg_attr(not(feature = "anthropic"), allow(dead_code))]
pub(crate) static ANTHROPIC_CODE_EXECUTION: [&str; 3] = [
    "code_execution_20250825",
    "code_execution_20260120",
    "code_execution_20260521",
];

/// `allowed_callers` with both the direct caller and each version's code execution.
#[cfg_attr(not(feature = "anthropic"), allow(dead_code))]
static DIRECT_AND_CODE: [[&str; 2]; 3] = [
    ["direct", ANTHROPIC_CODE_EXECUTION[0]],
    ["direct", ANTHROPIC_CODE_EXECUTION[1]],
    ["direct", ANTHROPIC_CODE_EXECUTION[2]],
];

/// [`anthropic_borrowed`] with the tool's `allowed_callers`, for a request that carries the
/// code-execution tool of version `VERSION` (an index of [`ANTHROPIC_CODE_EXECUTION`]) for
/// programmatic tool calling: `"direct"`, that version's type or both, from
/// [`ToolSpec::callers`]. A function per version, as the tool-list caches take a `fn`.
#[cfg_attr(not(feature = "anthropic"), allow(dead_code))]
pub(crate) fn anthropic_with_callers_borrowed<const VERSION: usize>(
    spec: &ToolSpec,
) -> AnthropicTool<'_> {
    let callers = spec.callers();
    AnthropicTool {
        allowed_callers: Some(match (callers.allows_direct(), callers.allows_code()) {
            (true, false) => &["direct"],
            (false, true) => std::slice::from_ref(&ANTHROPIC_CODE_EXECUTION[VERSION]),
            _ => &DIRECT_AND_CODE[VERSION],
        }),
        ..anthropic_borrowed(spec)
    }
}

/// See [`anthropic_borrowed`].
#[derive(Serialize)]
pub(crate) struct AnthropicTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "<[Value]>::is_empty")]
    input_examples: &'a [Value],
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_callers: Option<&'static [&'static str]>,
}

/// A Gemini `FunctionDeclaration`: `{name, description, parameters}`, without `parameters`
/// when the tool takes none (Gemini refuses an object without properties).
///
/// Gemini has no non-strict mode to fall back to, so a schema it cannot express is an error;
/// leave such a tool out of Gemini requests (or change its argument types).
///
/// ```
/// use phi_agent::llm::ToolSpec;
/// use serde_json::json;
/// let spec = ToolSpec::new("ping", "Answer pong", json!({"type": "object", "properties": {}}));
/// let declaration = phi_agent::llm::definition::gemini(&spec).unwrap();
/// assert_eq!(declaration, json!({"name": "ping", "description": "Answer pong"}));
/// ```
pub fn gemini(spec: &ToolSpec) -> Result<Value, DialectError> {
    let parameters = spec.dialect_schema(Dialect::Gemini).map_err(Clone::clone)?;
    let mut declaration = Map::new();
    declaration.insert("name".into(), spec.name.into());
    declaration.insert(
        "description".into(),
        spec.description_with_examples().into(),
    );
    if has_properties(parameters) {
        declaration.insert("parameters".into(), parameters.clone());
    }
    Ok(Value::Object(declaration))
}

/// A Gemini `FunctionDeclaration` with the full JSON Schema: `{name, description,
/// parametersJsonSchema}`, the schema being the canonical one as providers take it
/// ([`Dialect::OpenAi`]: as it is, less MCP's own `x-mcp-*` keywords). What
/// `GeminiClient` sends by default (`docs/src/providers.md#gemini-json-schema`).
///
/// ```
/// use phi_agent::llm::ToolSpec;
/// use serde_json::json;
/// let schema = json!({"type": "object", "properties": {"tags": {"type": "object", "additionalProperties": {"type": "string"}}}});
/// let spec = ToolSpec::new("tag", "Tag things", schema.clone());
/// let declaration = phi_agent::llm::definition::gemini_json_schema(&spec);
/// assert_eq!(declaration["parametersJsonSchema"], schema, "maps need no OpenAPI form");
/// ```
pub fn gemini_json_schema(spec: &ToolSpec) -> Value {
    serde_json::to_value(gemini_json_schema_borrowed(spec)).unwrap_or_default()
}

/// [`gemini_json_schema`]'s declaration borrowing its schema; see [`openai_borrowed`].
pub(crate) fn gemini_json_schema_borrowed(spec: &ToolSpec) -> GeminiDeclaration<'_> {
    GeminiDeclaration {
        name: spec.name,
        description: spec.description_with_examples(),
        parameters: None,
        // Not `Dialect::Mcp`: that one keeps `x-mcp-header`, which is for MCP peers only.
        parameters_json_schema: Some(spec.dialect_schema_or_canonical(Dialect::OpenAi)),
    }
}

/// [`gemini`]'s declaration when the OpenAPI-style dialect can express the schema, otherwise
/// [`gemini_json_schema`]'s, with a warning once per tool: what `GeminiClient` sends in its
/// OpenAPI form. Gemini reads both fields, so no tool has to be left out.
#[cfg_attr(not(feature = "gemini"), allow(dead_code))]
pub(crate) fn gemini_openapi_or_json_schema(spec: &ToolSpec) -> GeminiDeclaration<'_> {
    match spec.dialect_schema(Dialect::Gemini) {
        Ok(parameters) => GeminiDeclaration {
            name: spec.name,
            description: spec.description_with_examples(),
            parameters: has_properties(parameters).then_some(parameters),
            parameters_json_schema: None,
        },
        Err(error) => {
            spec.dialects.warn_once(Dialect::Gemini, || {
                tracing::warn!(
                    tool = spec.name,
                    reason = %error,
                    "tool schema does not fit Gemini's OpenAPI-style `parameters`; sending it as `parametersJsonSchema`"
                );
            });
            gemini_json_schema_borrowed(spec)
        }
    }
}

/// See [`gemini_json_schema_borrowed`].
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GeminiDeclaration<'a> {
    name: &'a str,
    description: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    parameters: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parameters_json_schema: Option<&'a Value>,
}

/// Whether an object schema declares at least one property. (A tool's schema is whatever JSON
/// Schema its author wrote, so it is walked as a `Value`; it is no provider's reply.)
fn has_properties(schema: &Value) -> bool {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| !properties.is_empty())
}

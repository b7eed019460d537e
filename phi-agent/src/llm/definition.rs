//! Tool definitions as each model provider's API takes them: what the adapters put on the wire
//! (`docs/providers.md#openai-tool-object`, `#anthropic-tool-object`,
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
    let (parameters, strict) = match spec.dialects.wire(&spec.schema, Dialect::OpenAiStrict) {
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
    };
    OpenAiTool {
        kind: "function",
        function: OpenAiFunction {
            name: spec.name,
            description: spec.description,
            parameters,
            strict,
        },
    }
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

/// The Anthropic messages tool object: `{name, description, input_schema}`.
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
    }
}

/// See [`anthropic_borrowed`].
#[derive(Serialize)]
pub(crate) struct AnthropicTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
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
    declaration.insert("description".into(), spec.description.into());
    let has_properties = parameters
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| !properties.is_empty());
    if has_properties {
        declaration.insert("parameters".into(), parameters.clone());
    }
    Ok(Value::Object(declaration))
}

//! The model's mistakes, all answered in one turn: an unknown field is refused with the field the
//! model probably meant, every violation of the schema comes back in one result, no text names a
//! Rust type, and a `requires_tools` name that is not registered is refused before any run.

use std::borrow::Cow;
use std::sync::Arc;

use async_trait::async_trait;
use phi_agent::llm::{LlmResponse, Message, ScriptedLlm, ToolCall};
use phi_agent::registry::ToolRegistry;
use phi_agent::schema::{Dialect, to_dialect};
use phi_agent::{
    ActivationContext, AgentConfig, AgentError, AgentResult, Content, PhiAgent, Tool, ToolContext,
    TypedTool, base_agent_builder, phi_tool, tools,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// Search the catalogue.
#[phi_tool]
fn search(query: String, #[phi(default = 5)] limit: u32) -> String {
    format!("{query}: {limit} results")
}

async fn dispatch(registry: &ToolRegistry, name: &str, args: Value) -> (String, bool) {
    let active = registry.visible_tools(&ActivationContext::default()).await;
    let result = registry
        .dispatch(&active, name, &args, &ToolContext::default())
        .await;
    (result.to_model_text(), result.is_error)
}

fn registry_of(tools: Vec<Arc<dyn Tool>>) -> ToolRegistry {
    let mut registry = ToolRegistry::default();
    registry.register_all(tools).unwrap();
    registry
}

#[tokio::test]
async fn a_misspelled_field_of_a_macro_tool_is_refused_with_the_field_it_meant() {
    let registry = registry_of(tools![search]);
    let (text, is_error) =
        dispatch(&registry, "search", json!({"query": "shoes", "limt": 1})).await;
    assert!(is_error, "not run with the default limit: {text}");
    assert_eq!(
        text,
        "invalid arguments for tool `search` at `limt`: unknown field `limt`; did you mean \
         `limit`? valid fields: `query`, `limit`; fix the arguments to match the tool's schema \
         and call it again"
    );
    let (text, is_error) =
        dispatch(&registry, "search", json!({"query": "shoes", "limit": 1})).await;
    assert_eq!((text.as_str(), is_error), ("shoes: 1 results", false));
    // An integer written as a float is still an integer (the repair runs before validation).
    let (text, _) = dispatch(&registry, "search", json!({"query": "shoes", "limit": 2.0})).await;
    assert_eq!(text, "shoes: 2 results");
}

#[test]
fn a_macro_tools_schema_is_closed_wherever_the_dialect_can_say_so() {
    let canonical = Tool::schema(&Search);
    assert_eq!(canonical["additionalProperties"], json!(false));
    for dialect in [
        Dialect::OpenAiStrict,
        Dialect::OpenAi,
        Dialect::Anthropic,
        Dialect::Mcp,
    ] {
        let schema = to_dialect(&canonical, dialect).unwrap();
        assert_eq!(schema["additionalProperties"], json!(false), "{dialect}");
    }
    // Gemini has no `additionalProperties`: the keyword is dropped, the tool is not refused.
    let gemini = to_dialect(&canonical, Dialect::Gemini).unwrap();
    assert!(gemini.get("additionalProperties").is_none(), "{gemini}");
    assert_eq!(gemini["properties"]["query"]["type"], "string");
}

#[derive(Deserialize, JsonSchema)]
struct OpenArgs {
    city: String,
}

/// A hand-written typed tool whose arguments type does not refuse unknown fields.
struct Open;

#[async_trait]
impl TypedTool for Open {
    type Args = OpenArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "open"
    }
    fn description(&self) -> &'static str {
        "Weather for a city"
    }
    async fn call_typed(&self, args: OpenArgs, _: &ToolContext) -> AgentResult<String> {
        Ok(format!("sunny in {}", args.city))
    }
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ClosedArgs {
    #[allow(dead_code)]
    city: String,
    #[allow(dead_code)]
    days: Option<u8>,
}

/// The same, with `deny_unknown_fields`.
struct Closed;

#[async_trait]
impl TypedTool for Closed {
    type Args = ClosedArgs;
    type Output = &'static str;
    fn name(&self) -> &'static str {
        "closed"
    }
    fn description(&self) -> &'static str {
        "Weather for a city"
    }
    async fn call_typed(&self, _: ClosedArgs, _: &ToolContext) -> AgentResult<&'static str> {
        Ok("sunny")
    }
}

/// The rule of `phi-agent/src/decode/mod.rs` for the hard case: the canonical schema decides.
#[tokio::test]
async fn an_open_hand_written_type_ignores_unknown_fields_though_strict_mode_shows_it_closed() {
    let canonical = Tool::schema(&Open);
    assert!(
        canonical.get("additionalProperties").is_none(),
        "{canonical}"
    );
    let strict = to_dialect(&canonical, Dialect::OpenAiStrict).unwrap();
    assert_eq!(
        strict["additionalProperties"],
        json!(false),
        "strict mode closes every object"
    );

    let registry = registry_of(vec![Arc::new(Open), Arc::new(Closed)]);
    let (text, is_error) = dispatch(&registry, "open", json!({"city": "Oslo", "units": "C"})).await;
    assert_eq!((text.as_str(), is_error), ("sunny in Oslo", false));

    // A hand-written type that refuses unknown fields says so in its schema, and is answered
    // like a macro tool.
    assert_eq!(Tool::schema(&Closed)["additionalProperties"], json!(false));
    let (text, is_error) = dispatch(&registry, "closed", json!({"city": "Oslo", "dais": 2})).await;
    assert!(is_error);
    assert!(
        text.contains(
            "at `dais`: unknown field `dais`; did you mean `days`? valid fields: `city`, `days`"
        ),
        "{text}"
    );
}

/// Search with filters.
#[phi_tool]
fn find(query: String, limit: u32, #[phi(default)] exact: bool) -> String {
    format!("{query} {limit} {exact}")
}

#[tokio::test(start_paused = true)]
async fn three_mistakes_come_back_in_one_result_and_one_turn_fixes_them() {
    // The model leaves out `query`, writes `limit` as text and misspells `exact`; then it reads
    // the one result and sends the call right.
    let llm = ScriptedLlm::from_fn(|request| {
        let turn = request
            .messages
            .iter()
            .filter(|message| matches!(message, Message::Tool { .. }))
            .count();
        Ok(match turn {
            0 => LlmResponse::tool_calls(vec![ToolCall::new(
                "c1",
                "find",
                json!({"limit": "ten", "exct": true}),
            )]),
            1 => LlmResponse::tool_calls(vec![ToolCall::new(
                "c2",
                "find",
                json!({"query": "shoes", "limit": 10, "exact": true}),
            )]),
            _ => LlmResponse::text("done"),
        })
    });
    let agent = PhiAgent::build(
        base_agent_builder(llm).register_tools(tools![find]),
        AgentConfig::default(),
    )
    .unwrap();
    let output = agent.run("find shoes").await.unwrap();
    assert_eq!(output.text, "done");
    let results: Vec<(String, bool)> = output
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::Tool {
                content, is_error, ..
            } => Some((
                content.iter().map(Content::to_model_text).collect(),
                *is_error,
            )),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), 2, "one result per call: {results:#?}");
    let (first, is_error) = &results[0];
    assert!(is_error);
    assert!(
        first.starts_with(
            "invalid arguments for tool `find`, 3 mistakes; fix the arguments to match the \
             tool's schema and call it again:\n"
        ),
        "{first}"
    );
    for line in [
        "\n- at `query`: missing required field `query`; expected a string",
        "\n- at `limit`: expected an integer from 0 to 4294967295, found the string \"ten\"",
        "\n- at `exct`: unknown field `exct`; did you mean `exact`? valid fields: `query`, `limit`, `exact`",
    ] {
        assert!(first.contains(line), "{first:?} lacks {line:?}");
    }
    assert_eq!(results[1], ("shoes 10 true".to_string(), false));
    assert_eq!(output.turns, 3);
}

#[tokio::test]
async fn past_ten_mistakes_the_rest_are_counted() {
    let registry = registry_of(tools![search]);
    let mut args = json!({"query": "shoes"});
    for i in 0..13 {
        args[format!("extra_{i}")] = json!(i);
    }
    let (text, is_error) = dispatch(&registry, "search", args).await;
    assert!(is_error);
    assert!(text.contains(", 13 mistakes;"), "{text}");
    assert_eq!(text.matches("\n- at `").count(), 10, "{text}");
    assert!(text.ends_with("\n- and 3 more"), "{text}");
}

#[derive(Deserialize)]
struct ShortArgs {
    text: String,
}

/// Claims at most one character, decodes any string: tells whether a call that decodes is
/// validated (it must not be: the success path pays for nothing).
impl JsonSchema for ShortArgs {
    fn schema_name() -> Cow<'static, str> {
        "ShortArgs".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "properties": {"text": {"type": "string", "maxLength": 1}},
            "required": ["text"]
        })
    }
}

struct Short;

#[async_trait]
impl TypedTool for Short {
    type Args = ShortArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "short"
    }
    fn description(&self) -> &'static str {
        "Echo"
    }
    async fn call_typed(&self, args: ShortArgs, _: &ToolContext) -> AgentResult<String> {
        Ok(args.text)
    }
}

#[tokio::test]
async fn a_call_that_decodes_is_never_validated() {
    let registry = registry_of(vec![Arc::new(Short)]);
    let (text, is_error) = dispatch(&registry, "short", json!({"text": "long"})).await;
    assert_eq!((text.as_str(), is_error), ("long", false));
    // On failure the same schema is read, and its words are the model's.
    let (text, is_error) = dispatch(&registry, "short", json!({"text": 7})).await;
    assert!(is_error);
    assert!(
        text.contains("at `text`: expected a string of at most 1 character, found `7`"),
        "{text}"
    );
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Trip {
    to: String,
}

#[derive(Deserialize)]
#[allow(dead_code)]
struct Point(f64, f64);

#[derive(Deserialize)]
#[allow(dead_code)]
struct LooseArgs {
    trip: Trip,
    start: Option<Point>,
}

/// A schema that allows any object: whatever the decoder refuses, the schema does not see.
impl JsonSchema for LooseArgs {
    fn schema_name() -> Cow<'static, str> {
        "LooseArgs".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "object"})
    }
}

struct Loose;

#[async_trait]
impl TypedTool for Loose {
    type Args = LooseArgs;
    type Output = &'static str;
    fn name(&self) -> &'static str {
        "loose"
    }
    fn description(&self) -> &'static str {
        "Plan a trip"
    }
    async fn call_typed(&self, _: LooseArgs, _: &ToolContext) -> AgentResult<&'static str> {
        Ok("planned")
    }
}

#[tokio::test]
async fn when_the_schema_sees_nothing_wrong_the_decoder_says_where_in_json_terms() {
    let registry = registry_of(vec![Arc::new(Loose)]);
    for (args, expected) in [
        (
            json!({"trip": 5}),
            "at `trip`: invalid type: integer `5`, expected a JSON object",
        ),
        (
            json!({"trip": {"to": "Oslo"}, "start": "here"}),
            "at `start`: invalid type: string \"here\", expected a JSON array",
        ),
        (
            json!({"trip": {"to": ["Oslo"]}}),
            "at `trip.to`: invalid type: an array, expected a string",
        ),
        (
            json!({"trip": {"to": "Oslo"}, "start": [1.5, "north"]}),
            "at `start[1]`: invalid type: string \"north\", expected a number",
        ),
        (json!({}), "at `(root)`: missing field `trip`"),
    ] {
        let (text, is_error) = dispatch(&registry, "loose", args).await;
        assert!(is_error);
        assert!(text.contains(expected), "{text:?} lacks {expected:?}");
    }
}

/// A trip whose schema allows any object, as `LooseArgs` above, for a macro tool.
#[derive(Deserialize)]
#[allow(dead_code)]
struct LooseTrip {
    to: String,
}

impl JsonSchema for LooseTrip {
    fn schema_name() -> Cow<'static, str> {
        "LooseTrip".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "object"})
    }
}

/// Plan a trip.
#[phi_tool]
fn plan_trip(trip: LooseTrip, #[phi(rename = "nights")] days: u8) -> &'static str {
    let _ = (trip, days);
    "planned"
}

/// The decoder's error says where it stopped, through the fields and elements the value passed:
/// the same for a macro tool as for a hand-written one, with the JSON names (`nights`).
#[tokio::test]
async fn when_the_schema_sees_nothing_wrong_a_macro_tool_says_where_in_json_terms() {
    let registry = registry_of(tools![plan_trip]);
    for (args, expected) in [
        (
            json!({"trip": {"from": "Oslo"}, "nights": 2}),
            "at `trip`: missing field `to`",
        ),
        (
            json!({"trip": {"to": 5}, "nights": 2}),
            "at `trip.to`: invalid type: integer `5`, expected a string",
        ),
    ] {
        let (text, is_error) = dispatch(&registry, "plan_trip", args).await;
        assert!(is_error, "{text}");
        assert!(text.contains(expected), "{text:?} lacks {expected:?}");
    }
    let (text, is_error) = dispatch(
        &registry,
        "plan_trip",
        json!({"trip": {"to": "Oslo"}, "nights": 2}),
    )
    .await;
    assert!(!is_error && text == "planned", "{text}");
}

/// Read a file.
#[phi_tool]
fn file_read(path: String) -> String {
    path
}

/// Write a file, offered once reading is.
#[phi_tool(exposure = "deferred", requires_tools = ["file_reed"])]
fn file_write(path: String) -> String {
    path
}

/// Append to a file, offered once reading is.
#[phi_tool(exposure = "deferred", requires_tools = ["file_read"])]
fn file_append(path: String) -> String {
    path
}

/// Forget the cache; only the program calls it.
#[phi_tool(exposure = "hidden")]
fn clear_cache() -> &'static str {
    "cleared"
}

/// Offered once the cache is cleared, which the model never sees.
#[phi_tool(exposure = "deferred", requires_tools = ["clear_cache"])]
fn after_clearing() -> &'static str {
    "after"
}

#[test]
fn building_an_agent_refuses_a_required_tool_that_is_not_registered() {
    let build = |tools: Vec<Arc<dyn Tool>>| {
        PhiAgent::build(
            base_agent_builder(ScriptedLlm::new([])).register_tools(tools),
            AgentConfig::default(),
        )
    };
    let error = build(tools![file_read, file_write]).unwrap_err();
    assert!(
        matches!(&error, AgentError::RequiredToolMissing { tool, required, hidden: false, closest: Some(closest) }
            if tool == "file_write" && required == "file_reed" && closest == "file_read"),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "tool `file_write` requires the tool `file_reed`, which is not registered (did you mean \
         `file_read`?); register `file_reed`, or correct the name in `requires_tools`"
    );
    // Registration order does not matter; the check runs once all tools are in.
    assert!(build(tools![file_append, file_read]).is_ok());
    let error = build(tools![after_clearing, clear_cache]).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("which is hidden and so never active"),
        "{error}"
    );
    let error = build(tools![file_append]).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("`file_read`, which is not registered;"),
        "no close name, no guess: {error}"
    );
}

#[test]
fn a_registry_without_an_agent_gets_the_same_check_from_one_call() {
    let mut registry = ToolRegistry::default();
    registry
        .register_all(tools![file_read, file_write])
        .unwrap();
    let error = registry.check_requirements().unwrap_err();
    assert!(
        error.to_string().contains("did you mean `file_read`?"),
        "{error}"
    );
    let mut registry = ToolRegistry::default();
    registry
        .register_all(tools![file_append, file_read])
        .unwrap();
    assert!(registry.check_requirements().is_ok());
    assert_eq!(Tool::options(&FileAppend).requires_tools, ["file_read"]);
    assert!(Tool::options(&FileRead).requires_tools.is_empty());
}

/// Outside the registry (which refuses non-object arguments itself), a typed tool called with an
/// array hears what it should have sent, not serde's "expected struct SearchArgs".
#[tokio::test]
async fn a_typed_tool_called_directly_with_an_array_is_told_to_send_an_object() {
    let error = Tool::call(&Search, &json!(["shoes", 3]), &ToolContext::default())
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "invalid arguments for tool `search` at `(root)`: expected a JSON object with the fields \
         `query`, `limit`, found an array of 2 items; fix the arguments to match the tool's \
         schema and call it again"
    );
}

//! Provider tool definitions, the per-tool dialect cache, the registration root check and the
//! strict marker trait.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use phi_agent::llm::{ToolSpec, definition};
use phi_agent::registry::ToolRegistry;
use phi_agent::schema::{
    Dialect, OpenAiStrictCompatible, canonical_schema_for, canonicalize, check_openai_strict,
    to_dialect,
};
use phi_agent::{
    AgentError, AgentResult, Content, Tool, ToolAnnotations, ToolConfig, ToolContext, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// A hand-written tool with a configurable schema, annotations and output schema.
struct Raw {
    schema: Value,
    annotations: ToolAnnotations,
    output: Option<Value>,
}

#[async_trait]
impl Tool for Raw {
    fn name(&self) -> &'static str {
        "raw"
    }
    fn description(&self) -> &'static str {
        "A raw tool"
    }
    fn schema(&self) -> Value {
        self.schema.clone()
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text("done")])
    }
    fn options(&self) -> phi_agent::ToolOptions {
        let options = phi_agent::ToolOptions::default().with_annotations(self.annotations);
        match &self.output {
            Some(output) => options.with_output_schema(output.clone()),
            None => options,
        }
    }
}

fn raw(schema: Value) -> Raw {
    Raw {
        schema,
        annotations: ToolAnnotations::default(),
        output: None,
    }
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Filters {
    /// Only results after this date.
    since: Option<String>,
    extra: HashMap<String, String>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct SearchArgs {
    /// What to look for.
    query: String,
    filters: Filters,
}

struct Search;

#[async_trait]
impl TypedTool for Search {
    type Args = SearchArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "search"
    }
    fn description(&self) -> &'static str {
        "Search the notes"
    }
    async fn call_typed(&self, args: SearchArgs, _: &ToolContext) -> AgentResult<String> {
        Ok(args.query)
    }
}

#[derive(Deserialize, JsonSchema)]
struct WeatherArgs {
    /// City name
    city: String,
    /// Days ahead
    #[serde(default = "three")]
    days: u8,
    units: Option<String>,
}

fn three() -> u8 {
    3
}

struct Weather;

#[async_trait]
impl TypedTool for Weather {
    type Args = WeatherArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "weather"
    }
    fn description(&self) -> &'static str {
        "Get the weather"
    }
    async fn call_typed(&self, args: WeatherArgs, _: &ToolContext) -> AgentResult<String> {
        Ok(format!("{} {} {:?}", args.city, args.days, args.units))
    }
}

#[test]
fn openai_definition_is_strict_when_the_schema_fits() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Weather).unwrap();
    let tool = definition::openai(&registry.get("weather").unwrap().spec());
    assert_eq!(tool["type"], "function");
    let function = &tool["function"];
    assert_eq!(function["name"], "weather");
    assert_eq!(function["description"], "Get the weather");
    assert_eq!(function["strict"], true);
    let parameters = &function["parameters"];
    assert_eq!(parameters["required"], json!(["city", "days", "units"]));
    assert_eq!(parameters["additionalProperties"], false);
    assert_eq!(
        parameters["properties"]["days"]["description"],
        "Days ahead (default: 3)"
    );
    assert!(parameters["properties"]["days"].get("format").is_none());
    assert_eq!(parameters["properties"]["days"]["maximum"], 255);
}

#[test]
fn openai_definition_falls_back_to_non_strict_and_names_the_field() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Search).unwrap();
    let registered = registry.get("search").unwrap();
    let error = registered
        .dialect_schema(Dialect::OpenAiStrict)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "`filters.extra`: maps cannot be expressed in OpenAI strict mode"
    );
    let tool = definition::openai(&registered.spec());
    assert_eq!(tool["function"]["strict"], false);
    // The fallback is the canonical schema: the map stays a map, `since` stays optional.
    assert_eq!(tool["function"]["parameters"], **registered.schema());
    assert_eq!(
        tool["function"]["parameters"]["properties"]["filters"]["required"],
        json!(["extra"])
    );
}

#[test]
fn anthropic_and_gemini_definitions() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Weather).unwrap();
    registry.register(Search).unwrap();
    let weather = registry.get("weather").unwrap().spec();
    let anthropic = definition::anthropic(&weather);
    assert_eq!(
        anthropic,
        json!({"name": "weather", "description": "Get the weather", "input_schema": *weather.schema})
    );
    let gemini = definition::gemini(&weather).unwrap();
    assert_eq!(
        gemini["parameters"]["properties"]["units"]["nullable"],
        true
    );
    assert_eq!(
        gemini["parameters"]["properties"]["units"]["type"],
        "string"
    );
    let error = definition::gemini(&registry.get("search").unwrap().spec()).unwrap_err();
    assert_eq!(error.dialect, Dialect::Gemini);
    assert_eq!(error.problems[0].path, "filters.extra");
}

/// Registered tools (a typed tool that fits Gemini's OpenAPI dialect, one with a map that does
/// not, a tool without arguments): the Gemini adapter sends each dialect byte for byte.
#[test]
fn gemini_requests_carry_the_dialects_of_registered_tools() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Weather).unwrap();
    registry.register(Search).unwrap();
    registry
        .register(raw(json!({"type": "object", "properties": {}})))
        .unwrap();
    for tool in registry.iter() {
        let spec = tool.spec();
        crate::schema_conformance::assert_gemini_sends_the_dialects(&spec, spec.name);
    }
    let declaration = definition::gemini_json_schema(&registry.get("search").unwrap().spec());
    assert_eq!(
        declaration["parametersJsonSchema"]["properties"]["filters"]["properties"]["extra"]["additionalProperties"],
        json!({"type": "string"}),
        "the JSON Schema form keeps what the OpenAPI form cannot say"
    );
}

#[test]
fn mcp_definition_carries_output_schema_and_annotations() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry
        .register(Raw {
            schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            annotations: ToolAnnotations::default()
                .with_read_only(true)
                .with_open_world(false),
            output: Some(json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": "Listing",
                "type": "object",
                "properties": {"files": {"type": "array", "items": {"type": "string"}}}
            })),
        })
        .unwrap();
    let tool = phi_agent::mcp::definition(registry.get("raw").unwrap());
    assert_eq!(
        tool,
        json!({
            "name": "raw",
            "description": "A raw tool",
            "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
            "outputSchema": {"type": "object", "properties": {"files": {"type": "array", "items": {"type": "string"}}}},
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        })
    );
}

#[test]
fn mcp_definition_leaves_out_a_non_object_output_schema_and_unset_hints() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    let mut tool = raw(json!({"type": "object", "properties": {}}));
    tool.output = Some(json!({"type": "string"}));
    registry.register(tool).unwrap();
    let definition = phi_agent::mcp::definition(registry.get("raw").unwrap());
    assert!(definition.get("outputSchema").is_none());
    assert!(definition.get("annotations").is_none());
}

#[test]
fn dialect_schemas_are_computed_once_and_shared_with_specs() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Weather).unwrap();
    let registered = registry.get("weather").unwrap();
    let spec = registered.spec();
    let first: *const Value = spec.dialect_schema(Dialect::OpenAiStrict).unwrap();
    let again: *const Value = registered.dialect_schema(Dialect::OpenAiStrict).unwrap();
    let from_clone: *const Value = spec.clone().dialect_schema(Dialect::OpenAiStrict).unwrap();
    assert_eq!(
        first, again,
        "the registry and its specs share one computed schema"
    );
    assert_eq!(first, from_clone);
    assert!(format!("{spec:?}").contains("OpenAiStrict"));
}

#[test]
fn registration_refuses_a_schema_without_an_object_root() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    let err = registry
        .register(raw(json!({"type": "string"})))
        .unwrap_err();
    assert!(matches!(err, AgentError::InvalidSchema { .. }), "{err:?}");
    assert!(err.to_string().contains("`(root)`"), "{err}");

    let err = registry
        .register(raw(json!({"type": "object", "oneOf": [
            {"properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"properties": {"b": {"type": "string"}}, "required": ["b"]}
        ]})))
        .unwrap_err();
    assert!(err.to_string().contains("`oneOf` at the root"), "{err}");

    // A bare `{}` means "any arguments object" and is accepted as such.
    registry.register(raw(json!({}))).unwrap();
    assert_eq!(
        **registry.get("raw").unwrap().schema(),
        json!({"type": "object"})
    );
}

/// Constraints at the root that name only the root's fields (SEP-2106's "a phone or an email"):
/// registered, served to MCP as written, left out of every provider's schema, and held to when
/// a call arrives.
#[tokio::test]
async fn root_constraints_on_declared_fields_reach_mcp_and_are_checked_at_dispatch() {
    let contact = json!({
        "type": "object",
        "properties": {
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]}
    });
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(raw(contact)).unwrap();
    let tool = registry.get("raw").unwrap();
    let mcp = tool.dialect_schema(Dialect::Mcp).unwrap();
    for keyword in ["allOf", "if", "then", "else"] {
        assert!(mcp.get(keyword).is_some(), "MCP lost `{keyword}`: {mcp}");
    }
    for dialect in [
        Dialect::OpenAiStrict,
        Dialect::OpenAi,
        Dialect::Anthropic,
        Dialect::Gemini,
    ] {
        let schema = tool.dialect_schema(dialect).unwrap();
        for keyword in ["allOf", "if", "then", "else"] {
            assert!(
                schema.get(keyword).is_none(),
                "{dialect:?} has `{keyword}`: {schema}"
            );
        }
        assert!(
            schema["properties"].get("phone").is_some(),
            "{dialect:?}: {schema}"
        );
    }

    let active = registry
        .visible_tools(&phi_agent::ActivationContext::default())
        .await;
    let call = |args: Value| {
        let registry = &registry;
        let active = &active;
        async move {
            registry
                .dispatch(active, "raw", &args, &ToolContext::default())
                .await
        }
    };
    assert!(
        !call(json!({"contactMethod": "email", "email": "a@b.c"}))
            .await
            .is_error
    );
    let neither = call(json!({"contactMethod": "email"})).await;
    assert!(neither.is_error, "{neither:?}");
    let phone_missing = call(json!({"contactMethod": "phone", "email": "a@b.c"})).await;
    assert!(phone_missing.is_error, "{phone_missing:?}");

    // Composition that declares fields of its own stays refused: the model would have to see it.
    let mut registry = ToolRegistry::new(ToolConfig::default());
    let err = registry
        .register(raw(json!({
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "oneOf": [{"properties": {"by_id": {"type": "integer"}}, "required": ["by_id"]}]
        })))
        .unwrap_err();
    assert!(err.to_string().contains("`oneOf` at the root"), "{err}");
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Node {
    label: String,
    /// Child nodes.
    children: Vec<Node>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Level4 {
    deep: bool,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct TreeArgs {
    root: Node,
    /// Leaf marker.
    leaf: Option<Level4>,
}

#[test]
fn canonical_form_inlines_all_but_recursive_definitions() {
    let schema = canonical_schema_for::<TreeArgs>();
    let defs = schema["$defs"].as_object().unwrap();
    assert_eq!(
        defs.keys().collect::<Vec<_>>(),
        ["Node"],
        "only the recursive type stays"
    );
    assert_eq!(schema["properties"]["root"]["$ref"], "#/$defs/Node");
    assert_eq!(
        schema["properties"]["leaf"]["anyOf"][0]["properties"]["deep"]["type"],
        "boolean"
    );
    assert_eq!(canonicalize(schema.clone()), schema, "idempotent");

    let strict = to_dialect(&schema, Dialect::OpenAiStrict).unwrap();
    assert_eq!(
        strict["properties"]["root"],
        json!({"$ref": "#/$defs/Node"})
    );
    assert_eq!(strict["$defs"]["Node"]["additionalProperties"], false);
    let gemini = to_dialect(&schema, Dialect::Gemini).unwrap_err();
    assert_eq!(gemini.problems[0].path, "root");
}

#[test]
fn canonical_form_keeps_declaration_order() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Ordered {
        zebra: u8,
        apple: u8,
        mango: u8,
    }
    let schema = canonical_schema_for::<Ordered>();
    let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["zebra", "apple", "mango"]);
}

#[test]
fn overlapping_one_of_is_reported_not_converted() {
    let schema = json!({"type": "object", "properties": {"n": {"oneOf": [
        {"type": "integer"}, {"type": "number", "minimum": 0}
    ]}}, "required": ["n"]});
    let err = to_dialect(&schema, Dialect::OpenAiStrict).unwrap_err();
    assert_eq!(err.problems[0].path, "n");
    assert!(err.problems[0].reason.contains("overlapping"), "{err}");
    // A provider with full JSON Schema takes it as it is.
    assert_eq!(to_dialect(&schema, Dialect::Anthropic).unwrap(), schema);
}

fn strict_compatible<T: OpenAiStrictCompatible + JsonSchema>() -> bool {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Wrapper<T> {
        value: T,
    }
    check_openai_strict::<Wrapper<T>>().is_ok()
}

#[test]
fn the_marker_trait_agrees_with_the_strict_dialect() {
    assert!(strict_compatible::<u8>());
    assert!(strict_compatible::<i64>());
    assert!(strict_compatible::<usize>());
    assert!(strict_compatible::<f32>());
    assert!(strict_compatible::<bool>());
    assert!(strict_compatible::<String>());
    assert!(strict_compatible::<Option<Vec<Box<u16>>>>());
    assert!(strict_compatible::<[Option<f64>; 4]>());
    assert!(strict_compatible::<Arc<String>>());
    assert!(strict_compatible::<std::collections::VecDeque<i32>>());
    // What the trait leaves out, the dialect refuses too.
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Excluded {
        map: HashMap<String, u8>,
        any: Value,
        pair: (u8, u8),
        letter: char,
        set: std::collections::BTreeSet<u8>,
    }
    let err = check_openai_strict::<Excluded>().unwrap_err();
    let paths: Vec<&str> = err.problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["map", "any", "pair", "letter", "set"], "{err}");
}

#[test]
fn hand_built_spec_is_canonicalized() {
    let spec = ToolSpec::new(
        "t",
        "d",
        json!({"$schema": "x", "title": "T", "type": "object", "properties": {}}),
    );
    assert_eq!(*spec.schema, json!({"type": "object", "properties": {}}));
    assert_eq!(
        definition::openai(&spec)["function"]["parameters"],
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}

#[tokio::test]
async fn dispatch_reads_an_integral_float_as_the_integer_the_schema_allows() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Weather).unwrap();
    let active = registry.visible_tools(&Default::default()).await;
    let ctx = ToolContext::default();
    let ok = registry
        .dispatch(
            &active,
            "weather",
            &json!({"city": "Oslo", "days": 3.0}),
            &ctx,
        )
        .await;
    assert!(!ok.is_error, "{:?}", ok.content);
    assert_eq!(ok.content[0].as_text(), Some("Oslo 3 None"));
    // A fraction is still refused, with the path of the field.
    let refused = registry
        .dispatch(
            &active,
            "weather",
            &json!({"city": "Oslo", "days": 3.5}),
            &ctx,
        )
        .await;
    assert!(refused.is_error);
    assert!(
        refused.content[0].as_text().unwrap().contains("`days`"),
        "{:?}",
        refused.content
    );
}

/// Records the `reason` field of every event.
#[derive(Default, Clone)]
struct Reasons(Arc<std::sync::Mutex<Vec<String>>>);

impl tracing::Subscriber for Reasons {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        struct Reason<'a>(&'a mut Option<String>);
        impl tracing::field::Visit for Reason<'_> {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                if field.name() == "reason" {
                    *self.0 = Some(format!("{value:?}"));
                }
            }
        }
        let mut reason = None;
        event.record(&mut Reason(&mut reason));
        if event.metadata().level() == &tracing::Level::WARN {
            self.0.lock().unwrap().push(reason.unwrap_or_default());
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[test]
fn a_strict_fallback_is_logged_once_per_tool_with_field_and_reason() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Search).unwrap();
    registry.register(Weather).unwrap();
    let reasons = Reasons::default();
    tracing::subscriber::with_default(reasons.clone(), || {
        for _turn in 0..3 {
            for tool in registry.iter() {
                definition::openai(&tool.spec());
            }
        }
    });
    assert_eq!(
        *reasons.0.lock().unwrap(),
        ["`filters.extra`: maps cannot be expressed in OpenAI strict mode"],
        "one warning for the tool that falls back, none for the strict one"
    );
}

#[test]
fn gemini_reads_a_documented_unit_enum_as_a_string_enum() {
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    #[serde(rename_all = "lowercase")]
    enum Units {
        /// Degrees Celsius.
        Metric,
        /// Degrees Fahrenheit.
        Imperial,
    }
    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        /// Which units to answer in.
        units: Option<Units>,
    }
    let canonical = canonical_schema_for::<Args>();
    assert!(canonical["properties"]["units"]["anyOf"][0]["oneOf"].is_array());
    let gemini = to_dialect(&canonical, Dialect::Gemini).unwrap();
    assert_eq!(
        gemini["properties"]["units"],
        json!({
            "type": "string",
            "enum": ["metric", "imperial"],
            "nullable": true,
            "description": "Which units to answer in.\n- metric: Degrees Celsius.\n- imperial: Degrees Fahrenheit."
        })
    );
}

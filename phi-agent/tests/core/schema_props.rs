//! Property: any JSON value offered as a tool's argument schema (a hand-written tool's, or one
//! an MCP server advertises) goes through canonicalization, every provider dialect and
//! registration without a panic; canonicalization is idempotent; and the OpenAI request carries
//! exactly the strict dialect schema.

use async_trait::async_trait;
use phi_agent::llm::ToolSpec;
use phi_agent::llm::definition;
use phi_agent::registry::ToolRegistry;
use phi_agent::schema::{Dialect, canonicalize, to_dialect};
use phi_agent::{AgentResult, Content, Tool, ToolContext};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// Keywords a schema may hold, valid or not where they stand.
const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "items",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "$ref",
    "$defs",
    "definitions",
    "enum",
    "const",
    "format",
    "minimum",
    "maximum",
    "default",
    "additionalProperties",
    "patternProperties",
    "prefixItems",
    "minLength",
    "maxLength",
    "description",
    "title",
    "nullable",
    "$schema",
    "pattern",
    "minItems",
    "examples",
];

/// Values that mean something to a schema walker: type names, formats, references.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1.0e6f64..1.0e6).prop_map(Value::from),
        prop::sample::select(vec![
            "string",
            "integer",
            "number",
            "boolean",
            "object",
            "array",
            "null",
            "int32",
            "uint8",
            "date-time",
            "#",
            "#/$defs/a",
            "#/$defs/b",
            "#/definitions/a",
            "#/$defs/a/b",
            "#/$defs/%61",
            "http://example.com/s",
            "",
            "a",
            "b",
        ])
        .prop_map(Value::from),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(6, 96, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYWORDS), inner.clone()), 0..6)
                .prop_map(|entries| object(entries.into_iter().map(|(k, v)| (k.to_string(), v)))),
            prop::collection::vec(
                (prop::sample::select(vec!["a", "b", "c"]), inner.clone()),
                0..4
            )
            .prop_map(|fields| {
                let fields = object(fields.into_iter().map(|(k, v)| (k.to_string(), v)));
                json!({"type": "object", "properties": fields.clone(), "$defs": fields})
            }),
            (
                prop::sample::select(vec!["#/$defs/a", "#/$defs/b", "#"]),
                inner.clone(),
                inner
            )
                .prop_map(
                    |(reference, a, b)| json!({"$ref": reference, "$defs": {"a": a, "b": b}})
                ),
        ]
    })
}

fn object(entries: impl Iterator<Item = (String, Value)>) -> Value {
    Value::Object(entries.collect::<Map<String, Value>>())
}

struct Probe(Value);

#[async_trait]
impl Tool for Probe {
    fn name(&self) -> &'static str {
        "probe"
    }
    fn description(&self) -> &'static str {
        "A tool with an arbitrary schema"
    }
    fn schema(&self) -> Value {
        self.0.clone()
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text("ok")])
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn any_schema_is_handled_without_a_panic(schema in schema()) {
        let canonical = canonicalize(schema.clone());
        prop_assert_eq!(&canonicalize(canonical.clone()), &canonical, "idempotent");
        for dialect in Dialect::ALL {
            let _ = to_dialect(&canonical, dialect);
        }
        let spec = ToolSpec::new("probe", "A probe", schema.clone());
        let function = &definition::openai(&spec)["function"];
        match to_dialect(&spec.schema, Dialect::OpenAiStrict) {
            Ok(strict) => prop_assert_eq!(function["parameters"].to_string(), strict.to_string()),
            Err(_) => prop_assert_eq!(&function["parameters"], &*spec.schema),
        }
        let _ = definition::anthropic(&spec);
        let _ = definition::gemini(&spec);
        let mut registry = ToolRegistry::default();
        let _ = registry.register(Probe(schema));
    }
}

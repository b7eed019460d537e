//! Property: whatever name and JSON value a model sends, dispatch answers with a result and the
//! registry's own code never panics (a caught panic would show as "failed unexpectedly").

use async_trait::async_trait;
use phi_agent::registry::ToolRegistry;
use phi_agent::{
    ActivationContext, AgentResult, Content, Tool, ToolConfig, ToolContext, ToolExposure, TypedTool,
};
use proptest::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Inner {
    values: Vec<i32>,
    label: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Nested {
    name: String,
    count: u8,
    inner: Inner,
    mode: Mode,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Mode {
    Fast,
    Slow { delay: u16 },
}

struct NestedTool;

#[async_trait]
impl TypedTool for NestedTool {
    type Args = Nested;
    type Output = String;
    fn name(&self) -> &'static str {
        "nested"
    }
    fn description(&self) -> &'static str {
        "nested arguments"
    }
    async fn call_typed(&self, args: Nested, _ctx: &ToolContext) -> AgentResult<String> {
        Ok(format!("{} {}", args.name, args.count))
    }
}

struct Secret;

#[async_trait]
impl Tool for Secret {
    fn name(&self) -> &'static str {
        "secret"
    }
    fn description(&self) -> &'static str {
        "hidden"
    }
    fn schema(&self) -> Value {
        json!({"type": "object"})
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text("leaked")])
    }
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Hidden
    }
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "[a-z_]{0,8}".prop_map(Value::from),
        any::<String>().prop_map(Value::from),
        prop_oneof![Just("fast"), Just("slow")].prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        "[a-z]{1,6}".boxed(),
                        Just("values".to_string()).boxed(),
                        Just("inner".to_string()).boxed(),
                        Just("name".to_string()).boxed()
                    ],
                    inner
                ),
                0..8
            )
            .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("nested".to_string()),
        Just("secret".to_string()),
        any::<String>(),
        "[a-z_.-]{0,70}"
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn dispatch_answers_every_name_and_value(name in tool_name(), args in json_value()) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let mut registry = ToolRegistry::new(ToolConfig { max_argument_bytes: 4_096, ..ToolConfig::default() });
        registry.register(NestedTool).unwrap();
        registry.register(Secret).unwrap();
        let result = rt.block_on(async {
            let active = registry.visible_tools(&ActivationContext::default()).await;
            registry.dispatch(&active, &name, &args, &ToolContext::default()).await
        });
        let text = result.to_model_text();
        prop_assert!(!text.contains("failed unexpectedly"), "{}", text);
        prop_assert!(!text.contains("leaked"), "hidden tool ran: {}", text);
        if name != "nested" {
            prop_assert!(result.is_error);
            prop_assert!(text.starts_with(&format!("tool `{name}` is not available")), "{}", text);
        } else if result.is_error {
            prop_assert!(text.starts_with("invalid arguments for tool `nested`") || text.starts_with("arguments for tool `nested` are larger"), "{}", text);
        }
    }

    #[test]
    fn valid_arguments_always_succeed(name in "[a-z]{0,10}", count in any::<u8>(), values in prop::collection::vec(any::<i32>(), 0..5), slow in proptest::option::of(any::<u16>())) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let mut registry = ToolRegistry::default();
        registry.register(NestedTool).unwrap();
        let mode = match slow { Some(delay) => json!({"slow": {"delay": delay}}), None => json!("fast") };
        let args = json!({"name": name, "count": count, "inner": {"values": values}, "mode": mode});
        let result = rt.block_on(async {
            let active = registry.visible_tools(&ActivationContext::default()).await;
            registry.dispatch(&active, "nested", &args, &ToolContext::default()).await
        });
        prop_assert!(!result.is_error, "{}", result.to_model_text());
        prop_assert_eq!(result.to_model_text(), format!("{name} {count}"));
    }
}

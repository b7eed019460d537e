//! Argument decoding and dispatch: any tool name and any argument text a model can send.
//!
//! The first byte picks the name (one of the registered tools, a hidden one, or the input's own
//! text); the rest is parsed as JSON, and kept as a string when it is not JSON, as the adapters
//! do. Dispatch must answer with a result: never panic (not even a contained one, which would
//! read "failed unexpectedly"), never run the hidden tool.
#![no_main]

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use libfuzzer_sys::fuzz_target;
use phi_agent::registry::{ActiveTools, ToolRegistry};
use phi_agent::{
    ActivationContext, AgentResult, Content, Tool, ToolConfig, ToolContext, ToolExposure, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Inner {
    values: Vec<i32>,
    label: Option<String>,
    payload: Option<Value>,
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)]
enum Mode {
    Fast,
    Slow { delay: u16 },
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Args {
    name: String,
    count: u8,
    ratio: Option<f32>,
    inner: Option<Inner>,
    mode: Option<Mode>,
    tags: Option<Vec<String>>,
}

struct Typed;

#[async_trait]
impl TypedTool for Typed {
    type Args = Args;
    type Output = String;
    fn name(&self) -> &'static str {
        "typed"
    }
    fn description(&self) -> &'static str {
        "typed arguments"
    }
    async fn call_typed(&self, args: Args, _: &ToolContext) -> AgentResult<String> {
        Ok(format!("{} {}", args.name, args.count))
    }
}

static HIDDEN_RAN: AtomicBool = AtomicBool::new(false);

struct Hidden;

#[async_trait]
impl Tool for Hidden {
    fn name(&self) -> &'static str {
        "vault"
    }
    fn description(&self) -> &'static str {
        "hidden"
    }
    fn schema(&self) -> Value {
        json!({"type": "object"})
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        HIDDEN_RAN.store(true, Ordering::SeqCst);
        Ok(vec![Content::text("secret")])
    }
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Hidden
    }
}

struct Fixture {
    runtime: tokio::runtime::Runtime,
    registry: ToolRegistry,
    active: ActiveTools,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let mut registry = ToolRegistry::new(ToolConfig {
            max_argument_bytes: 8_192,
            ..ToolConfig::default()
        });
        registry.register(Typed).unwrap();
        registry.register(Hidden).unwrap();
        let active = runtime.block_on(registry.visible_tools(&ActivationContext::default()));
        Fixture {
            runtime,
            registry,
            active,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let (name, raw) = match selector % 4 {
        0 | 1 => ("typed".to_string(), &*text),
        2 => ("vault".to_string(), &*text),
        _ => text
            .split_once('\n')
            .map_or((text.to_string(), ""), |(n, a)| (n.to_string(), a)),
    };
    let args = serde_json::from_str::<Value>(raw).unwrap_or_else(|_| Value::String(raw.into()));
    let fx = fixture();
    let result = fx.runtime.block_on(fx.registry.dispatch(
        &fx.active,
        &name,
        &args,
        &ToolContext::default(),
    ));
    let shown = result.to_model_text();
    assert!(!shown.contains("failed unexpectedly"), "{shown}");
    assert!(!HIDDEN_RAN.load(Ordering::SeqCst), "the hidden tool ran");
    if name != "typed" {
        assert!(
            result.is_error && shown.contains("is not available"),
            "{shown}"
        );
    } else if !result.is_error {
        assert!(args.is_object() || args.is_null(), "{args}");
    }
});

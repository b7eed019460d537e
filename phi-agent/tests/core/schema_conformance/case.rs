//! One corpus entry, type-erased: its canonical schema, a decoder, a value generator, and the
//! near-misses written for it.

use phi_agent::{AgentResult, Tool, ToolContext, TypedTool};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Values generated per type (and checked against every dialect).
pub const CASES_PER_TYPE: usize = 64;

pub struct Case {
    /// The Rust type as a reader knows it (`Option<u8>`, `HashMap<String, i32>`).
    pub name: &'static str,
    pub canonical: Value,
    /// The canonical schema of the type as the one parameter `value` of a `#[phi_tool]`.
    pub macro_schema: Value,
    decode: fn(&Value) -> Result<(), String>,
    call: fn(&Value) -> Result<(), String>,
    call_macro: fn(&Value) -> Result<(), String>,
    generate: fn() -> Vec<Value>,
    /// Values that are almost right: the decoder must refuse each, and so must every schema.
    pub near_misses: Vec<Value>,
}

impl Case {
    pub fn decode(&self, value: &Value) -> Result<(), String> {
        (self.decode)(value)
    }

    /// Decodes `value` the way a registered tool does (with the repair of integral floats).
    pub fn decode_as_tool(&self, value: &Value) -> Result<(), String> {
        (self.call)(value)
    }

    /// Decodes `args` the way a `#[phi_tool]` with the one parameter `value` of this type does.
    pub fn call_as_macro_tool(&self, args: &Value) -> Result<(), String> {
        (self.call_macro)(args)
    }

    /// `CASES_PER_TYPE` values of the type, serialized; the same on every run.
    pub fn generated(&self) -> Vec<Value> {
        (self.generate)()
    }
}

pub fn case<T>(name: &'static str, near_misses: &[Value]) -> Case
where
    T: Arbitrary + Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static,
{
    Case {
        name,
        canonical: phi_agent::schema::canonical_schema_for::<T>(),
        decode: |value| {
            serde_json::from_value::<T>(value.clone())
                .map(drop)
                .map_err(|e| e.to_string())
        },
        macro_schema: phi_agent::schema::canonical_schema_for::<AsParameter<T>>(),
        call: call_tool::<T>,
        call_macro: call_tool::<AsParameter<T>>,
        generate: generate::<T>,
        near_misses: near_misses.to_vec(),
    }
}

fn generate<T: Arbitrary + Serialize>() -> Vec<Value> {
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let strategy = any::<T>();
    (0..CASES_PER_TYPE)
        .map(|_| {
            let tree = strategy
                .new_tree(&mut runner)
                .expect("the corpus strategies never reject");
            serde_json::to_value(tree.current()).expect("corpus values serialize")
        })
        .collect()
}

/// The arguments struct `#[phi_tool]` generates for `fn tool(value: T)`, written out with `T` for
/// the type (the macro takes no generic fn; the expansion is in
/// `phi-agent-macros/src/tool/snapshots/`): unknown fields refused.
#[derive(serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AsParameter<T> {
    #[allow(dead_code)]
    value: T,
}

/// A tool that only decodes its arguments.
struct Decodes<T>(std::marker::PhantomData<fn() -> T>);

#[async_trait::async_trait]
impl<T: DeserializeOwned + JsonSchema + Send + 'static> TypedTool for Decodes<T> {
    type Args = T;
    type Output = &'static str;
    fn name(&self) -> &'static str {
        "decodes"
    }
    fn description(&self) -> &'static str {
        "Decodes its arguments"
    }
    async fn call_typed(&self, _: T, _: &ToolContext) -> AgentResult<&'static str> {
        Ok("decoded")
    }
}

fn call_tool<T: DeserializeOwned + JsonSchema + Send + 'static>(
    value: &Value,
) -> Result<(), String> {
    let tool = Decodes::<T>(std::marker::PhantomData);
    thread_local! {
        static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a current-thread runtime");
    }
    RUNTIME.with(|runtime| {
        runtime
            .block_on(Tool::call(&tool, value, &ToolContext::default()))
            .map(drop)
            .map_err(|e| e.to_string())
    })
}

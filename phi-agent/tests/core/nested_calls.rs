//! A tool calling other tools through its run (`ToolContext::call_tool`): each nested call is
//! checked and reported like the model's, under the id `<caller>/call/<k>`; a tool that is not
//! available is refused the same way; a call from a spawned task is refused with a reason.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentEvent, AgentResult, Content, PhiAgent, Tool, ToolContext, base_agent_builder,
    phi_tool,
};
use serde_json::{Value, json};

/// Add two numbers.
#[phi_tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Calls `add` twice through the run, then a tool that does not exist, then `add` from a
/// spawned task; returns what each gave.
struct Composer;

#[async_trait]
impl Tool for Composer {
    fn name(&self) -> &'static str {
        "composer"
    }
    fn description(&self) -> &'static str {
        "Compose other tools"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        let first = ctx.call_tool("add", json!({"a": 1, "b": 2})).await?;
        let wrong = ctx.call_tool("add", json!({"a": "one"})).await?;
        let missing = ctx.call_tool("nope", json!({})).await?;
        let spawned = {
            let ctx = ctx.clone();
            tokio::spawn(async move { ctx.call_tool("add", json!({"a": 1, "b": 1})).await })
                .await
                .unwrap()
        };
        Ok(vec![Content::json(json!({
            "first": first.to_model_text(),
            "wrong": [wrong.is_error, wrong.to_model_text()],
            "missing": [missing.is_error, missing.to_model_text()],
            "spawned": spawned.unwrap_err().to_string(),
        }))])
    }
}

#[tokio::test]
async fn a_tool_calls_tools_through_its_run_as_the_model_would() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c1", "composer", json!({}))]),
        LlmResponse::text("done"),
    ]);
    let started = Arc::new(Mutex::new(Vec::new()));
    let seen = started.clone();
    let builder = base_agent_builder(llm)
        .register_tool(Add)
        .register_tool(Composer)
        .observer(move |event: &AgentEvent<'_>| {
            if let AgentEvent::ToolStarted { call, .. } = event {
                seen.lock()
                    .unwrap()
                    .push(format!("{} {}", call.id, call.name));
            }
        });
    let output = PhiAgent::build(builder, AgentConfig::default())
        .unwrap()
        .run("go")
        .await
        .unwrap();
    let Content::Json { value } = &output.tool_calls[0].result[0] else {
        panic!("a JSON result: {:?}", output.tool_calls[0].result)
    };
    assert_eq!(value["first"], "3");
    assert_eq!(value["wrong"][0], true);
    let wrong = value["wrong"][1].as_str().unwrap();
    assert!(
        wrong.contains("`b`") && wrong.contains("`a`"),
        "every mistake: {wrong}"
    );
    assert_eq!(value["missing"][0], true);
    assert!(
        value["missing"][1]
            .as_str()
            .unwrap()
            .contains("is not available"),
        "{value}"
    );
    assert!(
        value["spawned"]
            .as_str()
            .unwrap()
            .contains("own call's future"),
        "{value}"
    );
    assert_eq!(
        *started.lock().unwrap(),
        [
            "c1 composer",
            "c1/call/0 add",
            "c1/call/1 add",
            "c1/call/2 nope"
        ]
    );
}

#[tokio::test]
async fn outside_a_run_call_tool_says_it_cannot() {
    let error = ToolContext::default()
        .call_tool("add", json!({"a": 1, "b": 2}))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("call another tool"), "{error}");
}

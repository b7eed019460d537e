//! Deferred and Hidden exposure changing what the model sees across turns.
//!
//! Run: `cargo run --example deferred-tools` (offline: a scripted model drives the run)
//!
//! - `open_project` is Direct: visible from the first turn.
//! - `search_code` is Deferred: it activates once a project is open.
//! - `summarize` is Deferred: it activates once `search_code` is active (activation is evaluated
//!   to a fixpoint, so both appear after the same turn).
//! - `audit_log` is Hidden: the model never sees it, and its call of it gets the same answer as a
//!   call of an unknown tool; the program itself still calls it through the registry.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use phi_agent::llm::{LlmResponse, Message, ScriptedLlm, ToolCall};
use phi_agent::{
    ActivationContext, AgentConfig, AgentEvent, AgentResult, Content, PhiAgent, Tool, ToolContext,
    ToolExposure, base_agent_builder,
};
use serde_json::{Value, json};

fn no_args() -> Value {
    json!({"type": "object", "properties": {}})
}

struct OpenProject(Arc<AtomicBool>);

#[async_trait]
impl Tool for OpenProject {
    fn name(&self) -> &'static str {
        "open_project"
    }
    fn description(&self) -> &'static str {
        "Open the project in the workspace"
    }
    fn schema(&self) -> Value {
        no_args()
    }
    async fn call(&self, _: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        self.0.store(true, Ordering::SeqCst);
        let workspace = ctx.workspace().display();
        Ok(vec![Content::text(format!(
            "opened the project in {workspace}"
        ))])
    }
}

struct SearchCode(Arc<AtomicBool>);

#[async_trait]
impl Tool for SearchCode {
    fn name(&self) -> &'static str {
        "search_code"
    }
    fn description(&self) -> &'static str {
        "Search the open project's code"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]})
    }
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Deferred
    }
    async fn should_activate(&self, _: &ActivationContext) -> bool {
        self.0.load(Ordering::SeqCst)
    }
    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        let query = args["query"].as_str().unwrap_or_default();
        Ok(vec![Content::text(format!(
            "3 matches for `{query}` in src/agent/run.rs"
        ))])
    }
}

struct Summarize;

#[async_trait]
impl Tool for Summarize {
    fn name(&self) -> &'static str {
        "summarize"
    }
    fn description(&self) -> &'static str {
        "Summarize search results"
    }
    fn schema(&self) -> Value {
        no_args()
    }
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Deferred
    }
    async fn should_activate(&self, ctx: &ActivationContext) -> bool {
        ctx.has_tool("search_code")
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text("the loop runs tool calls concurrently")])
    }
}

struct AuditLog;

#[async_trait]
impl Tool for AuditLog {
    fn name(&self) -> &'static str {
        "audit_log"
    }
    fn description(&self) -> &'static str {
        "Write an audit record (framework only)"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"entry": {"type": "string"}}})
    }
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Hidden
    }
    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text(format!("audit: {}", args["entry"]))])
    }
}

/// The scripted model: opens the project, tries the hidden tool, then uses what appeared.
fn model() -> ScriptedLlm {
    ScriptedLlm::from_fn(|request| {
        let turn = request
            .messages
            .iter()
            .filter(|m| matches!(m, Message::Assistant { .. }))
            .count()
            + 1;
        let call = |id: &str, name: &str, args: Value| ToolCall::new(id, name, args);
        Ok(match turn {
            1 => LlmResponse::tool_calls(vec![
                call("c1", "open_project", json!({})),
                call("c2", "audit_log", json!({"entry": "peek"})),
            ]),
            2 => LlmResponse::tool_calls(vec![
                call("c3", "search_code", json!({"query": "buffered"})),
                call("c4", "summarize", json!({})),
            ]),
            _ => LlmResponse::text("The agent loop runs a turn's tool calls concurrently."),
        })
    })
}

fn print_event(event: &AgentEvent<'_>) {
    match event {
        AgentEvent::TurnStarted { turn, tools, .. } => {
            let names: Vec<_> = tools.iter().map(|tool| tool.name).collect();
            println!("turn {turn}: the model sees [{}]", names.join(", "));
        }
        AgentEvent::ToolFinished { call, result, .. } => {
            let status = if result.is_error { "error" } else { "ok" };
            println!("  {} -> {status}: {}", call.name, result.to_model_text());
        }
        AgentEvent::ToolsActivated { turn, names } => {
            println!("  after turn {turn}, activated: {}", names.join(", "));
        }
        _ => {}
    }
}

#[tokio::main]
async fn main() -> AgentResult<()> {
    println!("offline: a scripted model drives this run (no network calls)");
    let project_open = Arc::new(AtomicBool::new(false));
    let builder = base_agent_builder(model())
        .register_tool(OpenProject(project_open.clone()))
        .register_tool(SearchCode(project_open))
        .register_tool(Summarize)
        .register_tool(AuditLog)
        .observer(print_event);
    let agent = PhiAgent::build(builder, AgentConfig::default())?;
    let mut session = agent.session();
    let output = session.prompt("How does the agent loop run tools?").await?;
    println!("answer: {}", output.text);

    // Hidden tools stay callable by the program itself.
    let audit = agent
        .registry()
        .call_internal(
            "audit_log",
            &json!({"entry": "run finished"}),
            &ToolContext::default(),
        )
        .await;
    println!("program -> audit_log: {}", audit.to_model_text());
    println!(
        "active in this session: {:?}",
        session.active_tools().names()
    );
    Ok(())
}

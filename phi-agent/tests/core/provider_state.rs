//! Opaque provider state on tool calls ([`ToolCall::provider_state`]: Gemini thought signatures,
//! OpenAI Responses reasoning items) goes back to the model byte for byte through everything
//! that keeps a conversation: a session's history (also serialized and restored), a paused run's
//! JSON, and a durable run's journal replayed by another agent.

use async_trait::async_trait;
use phi_agent::llm::{LlmResponse, Message, ProviderState, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, JournalExecutor, PausedRun, PhiAgent, RunOutcome,
    StepExecutor, StepFuture, StepOutput, base_agent_builder, phi_tool,
};
use serde_json::json;

/// Echo a word.
#[phi_tool]
async fn echo(word: String) -> String {
    word
}

/// Delete a file.
#[phi_tool(needs_approval)]
async fn delete_file(path: String) -> String {
    format!("deleted {path}")
}

/// State of the shapes the adapters keep: nested objects, a long opaque string, key order that
/// is not sorted, numbers and non-ASCII text.
fn state() -> ProviderState {
    ProviderState::default()
        .with("gemini", json!({"thoughtSignature": "c2ln/+==", "zeta": 1, "alpha": [1.5, -0.0]}))
        .with(
            "openai_responses",
            json!({"items": [{"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "é ü €"}], "encrypted_content": "gAAAAB".repeat(40)}], "id": "fc_1"}),
        )
}

fn state_json() -> String {
    serde_json::to_string(&state()).unwrap()
}

fn call(id: &str, tool: &str, arguments: serde_json::Value) -> ToolCall {
    ToolCall::new(id, tool, arguments).with_provider_state(state())
}

/// The calls of every assistant message of `messages`.
fn calls(messages: &[Message]) -> Vec<ToolCall> {
    messages
        .iter()
        .flat_map(|message| match message {
            Message::Assistant { tool_calls, .. } => tool_calls.clone(),
            _ => Vec::new(),
        })
        .collect()
}

fn assert_state_intact(calls: &[ToolCall]) {
    assert!(!calls.is_empty());
    for call in calls {
        assert_eq!(
            serde_json::to_string(&call.provider_state).unwrap(),
            state_json(),
            "call {}",
            call.id
        );
    }
}

#[tokio::test]
async fn a_sessions_history_sends_the_state_back_also_after_serializing_it() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![call("c1", "echo", json!({"word": "hi"}))]),
        LlmResponse::text("said hi"),
        LlmResponse::text("again"),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm.clone()).register_tool(Echo),
        AgentConfig::default(),
    )
    .unwrap();
    let mut session = agent.session();
    session.prompt("say hi").await.unwrap();
    assert_state_intact(&calls(&llm.requests()[1].messages));

    // The history as a program would store it, restored into a new session.
    let stored = serde_json::to_string(session.history()).unwrap();
    assert!(stored.contains(&format!(r#""provider_state":{}"#, state_json())));
    let history: Vec<Message> = serde_json::from_str(&stored).unwrap();
    assert_eq!(serde_json::to_string(&history).unwrap(), stored);
    let mut restored = agent.restore_session(session.id(), history);
    restored.prompt("again").await.unwrap();
    assert_state_intact(&calls(&llm.requests()[2].messages));
}

#[tokio::test]
async fn a_paused_runs_json_keeps_the_state_of_ran_and_pending_calls() {
    let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![
        call("c1", "echo", json!({"word": "hi"})),
        call("c2", "delete_file", json!({"path": "a.txt"})),
    ])]);
    let builder = || {
        base_agent_builder(llm.clone())
            .register_tool(Echo)
            .register_tool(DeleteFile)
    };
    let agent = PhiAgent::build(builder(), AgentConfig::default()).unwrap();
    let RunOutcome::Paused(paused) = agent.start("tidy").await.unwrap() else {
        panic!("the run should pause");
    };
    let stored = serde_json::to_string(&paused).unwrap();
    assert_eq!(
        stored
            .matches(&format!(r#""provider_state":{}"#, state_json()))
            .count(),
        2,
        "one ran call, one pending: {stored}"
    );
    let mut restored: PausedRun = serde_json::from_str(&stored).unwrap();
    assert_eq!(
        serde_json::to_string(&restored).unwrap(),
        stored,
        "byte for byte"
    );
    restored.approve("c2").unwrap();

    let answer = ScriptedLlm::new([LlmResponse::text("done")]);
    let fresh = PhiAgent::build(
        base_agent_builder(answer.clone())
            .register_tool(Echo)
            .register_tool(DeleteFile),
        AgentConfig::default(),
    )
    .unwrap();
    fresh.resume(restored).await.unwrap().done().unwrap();
    let sent = calls(&answer.requests()[0].messages);
    assert_eq!(sent.len(), 2);
    assert_state_intact(&sent);
}

/// A process that dies at its first tool step: the journal then holds the model's reply.
#[derive(Clone)]
struct DiesAtTools(JournalExecutor);

#[async_trait]
impl StepExecutor for DiesAtTools {
    async fn step(&self, key: &str, run: StepFuture<'_>) -> AgentResult<StepOutput> {
        if key.contains("/tool/") {
            return Err(AgentError::Step {
                key: key.into(),
                reason: "the process died".into(),
            });
        }
        self.0.step(key, run).await
    }
}

#[tokio::test]
async fn a_journal_replayed_by_another_agent_sends_the_state_back() {
    let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![call(
        "c1",
        "echo",
        json!({"word": "hi"}),
    )])]);
    let journal = JournalExecutor::new();
    let dying = PhiAgent::build(
        base_agent_builder(llm)
            .register_tool(Echo)
            .step_executor(DiesAtTools(journal.clone())),
        AgentConfig::default(),
    )
    .unwrap();
    assert!(dying.run("say hi").await.is_err(), "the process died");
    let entries = journal.entries();
    assert!(
        entries.iter().any(|(_, json)| json.contains(&state_json())),
        "the journaled reply keeps the state: {entries:?}"
    );

    let answer = ScriptedLlm::new([LlmResponse::text("said hi")]);
    let next_life = PhiAgent::build(
        base_agent_builder(answer.clone())
            .register_tool(Echo)
            .step_executor(JournalExecutor::from_entries(entries)),
        AgentConfig::default(),
    )
    .unwrap();
    let output = next_life.run("say hi").await.unwrap();
    assert_eq!(output.text, "said hi");
    assert_eq!(
        answer.requests().len(),
        1,
        "the first reply came from the journal"
    );
    assert_state_intact(&calls(&answer.requests()[0].messages));
}

//! Tools that talk back during an agent run: progress and log messages as observer and stream
//! events, in order; sampling through the agent's own model (or the builder's sampling model);
//! questions to the user answered by the builder's elicitation handler, or refused without one.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures_util::StreamExt;
use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentEvent, AgentResult, Content, Elicitation, ElicitationRequest, LogLevel,
    PausedRun, PhiAgent, RunOutcome, RunOutput, SampleRequest, StreamEvent, Tool, ToolContext,
    base_agent_builder,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// Reports two steps of progress with a log message between them.
struct Chatty;

#[async_trait]
impl Tool for Chatty {
    fn name(&self) -> &'static str {
        "chatty"
    }
    fn description(&self) -> &'static str {
        "Work in two steps, saying how far it got"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        ctx.progress(1.0, Some(2.0), Some("first half")).await;
        ctx.log(LogLevel::Warning, json!({"note": "halfway"})).await;
        ctx.progress(2.0, Some(2.0), None).await;
        Ok(vec![Content::text("worked")])
    }
}

/// Asks a model to summarise, and returns what it said and which model said it.
struct Summarise;

#[async_trait]
impl Tool for Summarise {
    fn name(&self) -> &'static str {
        "summarise"
    }
    fn description(&self) -> &'static str {
        "Summarise with a model"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        let request = SampleRequest::new("Summarise the report").with_system("Be brief.");
        let sampled = ctx.sample(request).await?;
        Ok(vec![Content::text(format!(
            "{} ({})",
            sampled.text, sampled.model
        ))])
    }
}

#[derive(Deserialize, JsonSchema)]
struct Ship {
    /// Ship to the address on file?
    ship: bool,
}

/// Asks the user whether to ship.
struct Order;

#[async_trait]
impl Tool for Order {
    fn name(&self) -> &'static str {
        "order"
    }
    fn description(&self) -> &'static str {
        "Place the order, asking the user first"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        let text = match ctx.elicit::<Ship>("Ship this order?").await? {
            Elicitation::Accept(Ship { ship: true }) => "shipped",
            Elicitation::Accept(_) => "kept",
            Elicitation::Decline => "declined",
            Elicitation::Cancel => "cancelled",
        };
        Ok(vec![Content::text(text)])
    }
}

fn one_call(tool: &str) -> ScriptedLlm {
    ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c1", tool, json!({}))]),
        LlmResponse::text("Done."),
    ])
}

#[tokio::test]
async fn progress_and_log_messages_reach_the_stream_in_order() {
    let agent = PhiAgent::build(
        base_agent_builder(one_call("chatty")).register_tool(Chatty),
        AgentConfig::default(),
    )
    .unwrap();
    let events: Vec<StreamEvent> = agent
        .run_stream("Work")
        .map(|event| event.unwrap())
        .collect()
        .await;
    let said: Vec<String> = events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::ToolStarted { call, .. } => Some(format!("started {}", call.id)),
            StreamEvent::ToolProgress {
                turn,
                call_id,
                progress,
            } => Some(format!(
                "progress {turn} {call_id} {}/{:?} {:?}",
                progress.done, progress.total, progress.message
            )),
            StreamEvent::ToolLog {
                turn,
                call_id,
                level,
                data,
            } => Some(format!("log {turn} {call_id} {level:?} {data}")),
            StreamEvent::ToolFinished { call, .. } => Some(format!("finished {}", call.id)),
            _ => None,
        })
        .collect();
    assert_eq!(
        said,
        [
            "started c1",
            "progress 1 c1 1/Some(2.0) Some(\"first half\")",
            r#"log 1 c1 Warning {"note":"halfway"}"#,
            "progress 1 c1 2/Some(2.0) None",
            "finished c1",
        ]
    );
    assert!(matches!(events.last(), Some(StreamEvent::Finished(_))));
}

#[tokio::test]
async fn progress_and_log_messages_reach_the_observer_in_order() {
    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let record = seen.clone();
    let observer = move |event: &AgentEvent<'_>| {
        let line = match event {
            AgentEvent::ToolStarted { call, .. } => format!("started {}", call.id),
            AgentEvent::ToolProgress {
                call_id, progress, ..
            } => format!("progress {call_id} {}", progress.done),
            AgentEvent::ToolLog {
                call_id,
                level,
                data,
                ..
            } => format!("log {call_id} {level:?} {}", data["note"]),
            AgentEvent::ToolFinished { call, .. } => format!("finished {}", call.id),
            _ => return,
        };
        record.lock().unwrap().push(line);
    };
    let agent = PhiAgent::build(
        base_agent_builder(one_call("chatty"))
            .register_tool(Chatty)
            .observer(observer),
        AgentConfig::default(),
    )
    .unwrap();
    let output = agent.run("Work").await.unwrap();
    assert_eq!(output.tool_calls[0].result[0].as_text(), Some("worked"));
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "started c1",
            "progress c1 1",
            "log c1 Warning \"halfway\"",
            "progress c1 2",
            "finished c1",
        ]
    );
}

#[tokio::test]
async fn sampling_asks_the_agents_own_model_without_tools() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c1", "summarise", json!({}))]),
        LlmResponse::text("All is well."),
        LlmResponse::text("Done."),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm.clone()).register_tool(Summarise),
        AgentConfig::default(),
    )
    .unwrap();
    let output = agent.run("Summarise").await.unwrap();
    assert_eq!(output.text, "Done.");
    let result = &output.tool_calls[0];
    assert!(!result.is_error, "{:?}", result.result);
    assert_eq!(result.result[0].as_text(), Some("All is well. (scripted)"));
    let requests = llm.requests();
    assert_eq!(requests.len(), 3, "turn 1, the sample, turn 2");
    let sample = &requests[1];
    assert_eq!(sample.system.as_deref(), Some("Be brief."));
    assert_eq!(
        sample.messages,
        [phi_agent::llm::Message::user("Summarise the report")]
    );
    assert!(sample.tools.is_empty());
}

#[tokio::test]
async fn sampling_asks_the_builders_sampling_model_when_set() {
    let llm = one_call("summarise");
    let sampler = ScriptedLlm::new([LlmResponse::text("Short.")]);
    let agent = PhiAgent::build(
        base_agent_builder(llm.clone())
            .register_tool(Summarise)
            .sampling_model(sampler.clone()),
        AgentConfig::default(),
    )
    .unwrap();
    let output = agent.run("Summarise").await.unwrap();
    assert_eq!(
        output.tool_calls[0].result[0].as_text(),
        Some("Short. (scripted)")
    );
    assert_eq!(
        llm.requests().len(),
        2,
        "the agent's model: the two turns only"
    );
    assert_eq!(sampler.requests().len(), 1);
    assert_eq!(sampler.remaining(), 0);
}

#[tokio::test]
async fn the_elicitation_handler_answers_a_tools_question() {
    let asked = Arc::new(Mutex::new(Vec::<ElicitationRequest>::new()));
    let record = asked.clone();
    let handler = move |request: ElicitationRequest| {
        record.lock().unwrap().push(request);
        async { Elicitation::Accept(json!({"ship": true})) }
    };
    let agent = PhiAgent::build(
        base_agent_builder(one_call("order"))
            .register_tool(Order)
            .elicitation_handler(handler),
        AgentConfig::default(),
    )
    .unwrap();
    let output = agent.run("Order").await.unwrap();
    assert_eq!(output.tool_calls[0].result[0].as_text(), Some("shipped"));
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!((asked[0].call_id.as_str(), asked[0].turn), ("c1", 1));
    assert_eq!(asked[0].message, "Ship this order?");
    assert_eq!(asked[0].schema["properties"]["ship"]["type"], "boolean");
}

#[tokio::test]
async fn a_declined_question_reaches_the_tool() {
    let handler = |_: ElicitationRequest| async { Elicitation::Decline };
    let agent = PhiAgent::build(
        base_agent_builder(one_call("order"))
            .register_tool(Order)
            .elicitation_handler(handler),
        AgentConfig::default(),
    )
    .unwrap();
    let output = agent.run("Order").await.unwrap();
    assert_eq!(output.tool_calls[0].result[0].as_text(), Some("declined"));
}

#[tokio::test]
async fn without_a_handler_an_awaited_run_gets_an_error_result() {
    let agent = PhiAgent::build(
        base_agent_builder(one_call("order")).register_tool(Order),
        AgentConfig::default(),
    )
    .unwrap();
    let output = agent.run("Order").await.unwrap();
    let call = &output.tool_calls[0];
    assert!(call.is_error);
    let text = call.result[0].as_text().unwrap();
    assert!(text.contains("elicitation_handler"), "{text}");
}

#[tokio::test]
async fn without_a_handler_a_run_that_may_pause_pauses_on_the_question_and_resumes_with_the_answer()
{
    let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![
        ToolCall::new("c1", "order", json!({})),
        ToolCall::new("c2", "chatty", json!({})),
    ])]);
    let agent = PhiAgent::build(
        base_agent_builder(llm)
            .register_tool(Order)
            .register_tool(Chatty),
        AgentConfig::default(),
    )
    .unwrap();
    let RunOutcome::Paused(paused) = agent.start("Order").await.unwrap() else {
        panic!("the run should pause on the question");
    };
    assert!(paused.pending().is_empty(), "no call needs approval");
    let questions = paused.questions();
    assert_eq!(questions.len(), 1);
    assert_eq!((questions[0].id(), questions[0].tool()), ("c1", "order"));
    assert_eq!(questions[0].message(), "Ship this order?");
    assert_eq!(
        questions[0].schema()["properties"]["ship"]["type"],
        "boolean"
    );
    assert_eq!(questions[0].answer(), None);

    let stored = serde_json::to_value(&paused).unwrap();
    assert_eq!(stored["calls"][0]["state"], "asking");
    assert_eq!(stored["calls"][0]["message"], "Ship this order?");
    assert_eq!(
        stored["calls"][1]["state"], "ran",
        "the other call ran before the pause"
    );
    let mut paused: PausedRun = serde_json::from_value(stored).unwrap();

    // Later, in a fresh agent: an unanswered question cannot resume.
    let llm = ScriptedLlm::new([LlmResponse::text("Shipped it.")]);
    let fresh = PhiAgent::build(
        base_agent_builder(llm.clone())
            .register_tool(Order)
            .register_tool(Chatty),
        AgentConfig::default(),
    )
    .unwrap();
    let error = fresh.resume(paused.clone()).await.unwrap_err();
    assert!(error.to_string().contains("not answered"), "{error}");
    assert!(
        paused.answer("c2", Elicitation::Decline).is_err(),
        "c2 asked nothing"
    );

    paused
        .answer("c1", Elicitation::Accept(json!({"ship": true})))
        .unwrap();
    let output = fresh.resume(paused).await.unwrap().done().unwrap();
    assert_eq!(output.text, "Shipped it.");
    let results: Vec<_> = output
        .tool_calls
        .iter()
        .map(|call| (call.id.as_str(), call.result[0].as_text(), call.is_error))
        .collect();
    assert_eq!(
        results,
        [
            ("c1", Some("shipped"), false),
            ("c2", Some("worked"), false)
        ]
    );
    // The model read the answered call's result, not the pause.
    let request = &llm.requests()[0];
    let read = serde_json::to_string(&request.messages).unwrap();
    assert!(
        read.contains("shipped") && !read.contains("pauses"),
        "{read}"
    );
}

#[tokio::test]
async fn a_streamed_run_pauses_on_a_question_too() {
    let agent = PhiAgent::build(
        base_agent_builder(one_call("order")).register_tool(Order),
        AgentConfig::default(),
    )
    .unwrap();
    let events: Vec<StreamEvent<RunOutcome>> = agent
        .prompt("Order")
        .pausing()
        .stream()
        .map(|event| event.unwrap())
        .collect()
        .await;
    let Some(StreamEvent::Finished(outcome)) = events.last() else {
        panic!("the stream should end with its outcome: {events:?}");
    };
    let RunOutcome::Paused(paused) = &**outcome else {
        panic!("the stream should end paused: {events:?}");
    };
    assert_eq!(paused.questions()[0].id(), "c1");
}

/// Asks the user, and needs approval first.
struct GuardedOrder;

#[async_trait]
impl Tool for GuardedOrder {
    fn name(&self) -> &'static str {
        "guarded_order"
    }
    fn description(&self) -> &'static str {
        "Place the order once approved, asking the user first"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    fn options(&self) -> phi_agent::ToolOptions {
        phi_agent::ToolOptions::default().with_approval(phi_agent::ToolApproval::Always)
    }
    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        Order.call(args, ctx).await
    }
}

#[tokio::test]
async fn a_question_asked_while_a_paused_turn_finishes_is_an_error_result_not_a_second_pause() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c1", "guarded_order", json!({}))]),
        LlmResponse::text("Could not ask."),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm).register_tool(GuardedOrder),
        AgentConfig::default(),
    )
    .unwrap();
    let RunOutcome::Paused(mut paused) = agent.start("Order").await.unwrap() else {
        panic!("the run should pause on the approval");
    };
    assert!(paused.questions().is_empty());
    paused.approve("c1").unwrap();
    let output = agent.resume(paused).await.unwrap().done().unwrap();
    let call = &output.tool_calls[0];
    assert!(call.is_error);
    let text = call.result[0].as_text().unwrap();
    assert!(text.contains("cannot pause on it"), "{text}");
}

/// A paused run resumed without `.pausing()` never pauses again: a question asked in a later turn
/// (no handler) is the call's error result, as in any run that asks inline.
#[tokio::test]
async fn a_run_resumed_inline_answers_a_later_question_with_an_error_result() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c1", "guarded_order", json!({}))]),
        LlmResponse::tool_calls(vec![ToolCall::new("c2", "order", json!({}))]),
        LlmResponse::text("Could not ask."),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm)
            .register_tool(GuardedOrder)
            .register_tool(Order),
        AgentConfig::default(),
    )
    .unwrap();
    let RunOutcome::Paused(mut paused) = agent.start("Order").await.unwrap() else {
        panic!("the run should pause on the approval");
    };
    paused.approve("c1").unwrap();
    let output: RunOutput = agent.prompt(paused).await.unwrap();
    assert_eq!(output.text, "Could not ask.");
    let ids: Vec<&str> = output.tool_calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["c1", "c2"]);
    let later = &output.tool_calls[1];
    assert!(later.is_error);
    let text = later.result[0].as_text().unwrap();
    assert!(text.contains("elicitation_handler"), "{text}");
}

/// A durable run (a journal that outlives the process) that pauses on a question resumes with
/// the answer: the answered call runs again as a step of its own, and the journal's record of
/// the attempt that paused is not handed back in its place.
#[tokio::test]
async fn a_journaled_run_that_paused_on_a_question_runs_the_call_again_with_the_answer() {
    use phi_agent::JournalExecutor;

    let journal = JournalExecutor::new();
    let agent = PhiAgent::build(
        base_agent_builder(ScriptedLlm::new([LlmResponse::tool_calls(vec![
            ToolCall::new("c1", "order", json!({})),
        ])]))
        .register_tool(Order)
        .step_executor(journal.clone()),
        AgentConfig::default(),
    )
    .unwrap();
    let RunOutcome::Paused(paused) = agent.start("Order").await.unwrap() else {
        panic!("the run should pause on the question");
    };
    let keys: Vec<String> = journal.entries().into_iter().map(|(key, _)| key).collect();
    assert!(
        keys.contains(&"turn/1/tool/c1".to_string()),
        "the attempt that paused is journaled: {keys:?}"
    );
    let mut paused: PausedRun =
        serde_json::from_value(serde_json::to_value(&paused).unwrap()).unwrap();
    paused
        .answer("c1", Elicitation::Accept(json!({"ship": true})))
        .unwrap();

    // Another process, the same journal.
    let llm = ScriptedLlm::new([LlmResponse::text("Shipped it.")]);
    let fresh = PhiAgent::build(
        base_agent_builder(llm.clone())
            .register_tool(Order)
            .step_executor(JournalExecutor::from_entries(journal.entries())),
        AgentConfig::default(),
    )
    .unwrap();
    let output = fresh.resume(paused).await.unwrap().done().unwrap();
    let call = &output.tool_calls[0];
    assert_eq!(
        (call.result[0].as_text(), call.is_error),
        (Some("shipped"), false),
        "the call ran with the answer"
    );
    let read = serde_json::to_string(&llm.requests()[0].messages).unwrap();
    assert!(
        read.contains("shipped") && !read.contains("pauses"),
        "{read}"
    );
}

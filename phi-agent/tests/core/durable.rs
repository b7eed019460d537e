//! Durable runs: a run whose process dies after any step, resumed from its journal by a fresh
//! agent, asks the model once per turn in all, runs each tool call once, and returns what an
//! uninterrupted run returns. A journal replayed on an agent whose tools changed is refused.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use phi_agent::llm::{LlmClient, LlmRequest, LlmResponse, Message, ToolCall, Usage};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, Content, JournalExecutor, PhiAgent, RunOutput,
    StepExecutor, StepFuture, StepOutput, Tool, ToolContext, base_agent_builder,
};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Turns in which the model calls tools; it answers on the turn after.
const TOOL_TURNS: usize = 3;
/// Steps of an uninterrupted run: the session id, then per tool turn the model and two tools,
/// then the model's answer.
const STEPS: usize = 1 + TOOL_TURNS * 3 + 1;
const INPUT: &str = "pay the invoice and ship the order";

/// What outlives every process of a run: the model's and the tools' side effects.
#[derive(Default)]
struct World {
    model_asks: AtomicUsize,
    /// Executions per step key.
    tool_runs: Mutex<HashMap<String, usize>>,
    session_ids: Mutex<Vec<String>>,
}

impl World {
    fn runs(&self) -> HashMap<String, usize> {
        self.tool_runs.lock().unwrap().clone()
    }
}

/// A tool with a side effect counted in the world, taking `millis` of (virtual) time.
struct Counted {
    name: &'static str,
    millis: u64,
    world: Arc<World>,
}

#[async_trait]
impl Tool for Counted {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        "a side effect"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"n": {"type": "integer"}}})
    }
    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        *self
            .world
            .tool_runs
            .lock()
            .unwrap()
            .entry(ctx.step_key())
            .or_default() += 1;
        self.world
            .session_ids
            .lock()
            .unwrap()
            .push(ctx.session_id().to_string());
        tokio::time::sleep(Duration::from_millis(self.millis)).await;
        Ok(vec![Content::text(format!(
            "{} {} done",
            self.name, args["n"]
        ))])
    }
}

/// A model whose reply depends only on the request (the turn it is on), so any process can
/// ask it; it counts the requests it gets.
struct TurnModel {
    world: Arc<World>,
}

#[async_trait]
impl LlmClient for TurnModel {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        self.world.model_asks.fetch_add(1, Ordering::SeqCst);
        let turn = 1 + request
            .messages
            .iter()
            .filter(|message| matches!(message, Message::Assistant { .. }))
            .count();
        let usage = Usage::new(10 * turn as u64, turn as u64);
        if turn > TOOL_TURNS {
            return Ok(LlmResponse::text("paid and shipped").with_usage(usage));
        }
        let calls = vec![
            ToolCall::new(format!("c{turn}a"), "pay", json!({"n": turn})),
            ToolCall::new(format!("c{turn}b"), "ship", json!({"n": turn})),
        ];
        Ok(LlmResponse::tool_calls(calls).with_usage(usage))
    }
}

/// A process that dies after `budget` steps it runs itself (replayed steps are free): the next
/// step it would run fails without running.
struct Crashing {
    journal: JournalExecutor,
    budget: Arc<AtomicUsize>,
}

#[async_trait]
impl StepExecutor for Crashing {
    async fn step(&self, key: &str, run: StepFuture<'_>) -> AgentResult<StepOutput> {
        let budget = self.budget.clone();
        let key_owned = key.to_string();
        let gated: StepFuture<'_> = Box::pin(async move {
            // Only polled when the journal lacks the step, i.e. when this process runs it.
            if budget
                .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                    left.checked_sub(1)
                })
                .is_err()
            {
                return Err(crash(key_owned));
            }
            run.await
        });
        self.journal.step(key, gated).await
    }
}

fn crash(key: String) -> AgentError {
    AgentError::Step {
        key,
        reason: "the process died".into(),
    }
}

fn is_crash(error: &AgentError) -> bool {
    matches!(error, AgentError::Step { reason, .. } if reason == "the process died")
}

fn agent(
    world: &Arc<World>,
    executor: impl StepExecutor + 'static,
    pay: &'static str,
    parallel: usize,
) -> PhiAgent {
    let builder = base_agent_builder(TurnModel {
        world: world.clone(),
    })
    .register_tool(Counted {
        name: pay,
        millis: 5,
        world: world.clone(),
    })
    .register_tool(Counted {
        name: "ship",
        millis: 7,
        world: world.clone(),
    })
    .step_executor(executor);
    let config = AgentConfig::default().with_max_parallel_tools(parallel);
    PhiAgent::build(builder, config).expect("agent")
}

/// Runs `future` on a fresh runtime with a paused clock, so tool durations are exact and a
/// replay can be compared with an uninterrupted run.
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("runtime")
        .block_on(future)
}

/// An uninterrupted run with the default executor.
fn reference(parallel: usize) -> RunOutput {
    let world = Arc::new(World::default());
    let agent = agent(&world, phi_agent::InProcess, "pay", parallel);
    block_on(agent.run(INPUT)).expect("run")
}

/// Runs one life per budget (each a fresh agent on the journal the last one left, dying after
/// its budget of steps), then a life that does not die; returns the final output and the world.
fn crash_and_resume(budgets: &[usize], parallel: usize) -> (RunOutput, Arc<World>) {
    let world = Arc::new(World::default());
    // What survives a process: the journal's entries, as JSON.
    let mut entries = Vec::new();
    for &budget in budgets {
        let journal = JournalExecutor::from_entries(entries);
        let executor = Crashing {
            journal: journal.clone(),
            budget: Arc::new(AtomicUsize::new(budget)),
        };
        let outcome = block_on(agent(&world, executor, "pay", parallel).run(INPUT));
        entries = journal.entries();
        match outcome {
            Ok(output) => return (output, world),
            Err(error) => assert!(is_crash(&error), "only the crash fails a life: {error}"),
        }
    }
    let journal = JournalExecutor::from_entries(entries);
    let output = block_on(agent(&world, journal, "pay", parallel).run(INPUT)).expect("final life");
    (output, world)
}

fn assert_once_each(world: &World) {
    assert_eq!(
        world.model_asks.load(Ordering::SeqCst),
        TOOL_TURNS + 1,
        "the model is asked once per turn in all"
    );
    let runs = world.runs();
    assert_eq!(runs.len(), TOOL_TURNS * 2, "every call ran: {runs:?}");
    for turn in 1..=TOOL_TURNS {
        for call in ["a", "b"] {
            let key = format!("turn/{turn}/tool/c{turn}{call}");
            assert_eq!(runs.get(&key), Some(&1), "{key} ran once: {runs:?}");
        }
    }
    let ids = world.session_ids.lock().unwrap();
    assert!(
        ids.iter().all(|id| *id == ids[0]),
        "every tool saw the session id the run began with: {ids:?}"
    );
}

#[test]
fn a_run_killed_after_any_step_resumes_with_each_step_once() {
    for parallel in [1, 2] {
        let expected = reference(parallel);
        for k in 0..=STEPS {
            let (output, world) = crash_and_resume(&[k], parallel);
            assert_eq!(
                output, expected,
                "killed after step {k}, parallel {parallel}"
            );
            assert_once_each(&world);
        }
    }
}

#[test]
fn the_step_running_at_a_crash_runs_again_under_the_same_key() {
    let world = Arc::new(World::default());
    let journal = JournalExecutor::new();
    // The process dies while `ship` of turn 1 sleeps: its future is dropped mid-call.
    let killed = block_on(async {
        let agent = agent(&world, journal.clone(), "pay", 1);
        tokio::time::timeout(Duration::from_millis(8), agent.run(INPUT)).await
    });
    assert!(killed.is_err(), "the run was still going");
    let output = block_on(agent(&world, journal, "pay", 1).run(INPUT)).expect("resumed");
    assert_eq!(output, reference(1));
    let runs = world.runs();
    assert_eq!(runs["turn/1/tool/c1a"], 1, "the journaled call is replayed");
    assert_eq!(
        runs["turn/1/tool/c1b"], 2,
        "the call cut short runs again, with the same idempotency key"
    );
    assert_eq!(world.model_asks.load(Ordering::SeqCst), TOOL_TURNS + 1);
}

#[test]
fn a_journal_replayed_on_a_renamed_tool_is_refused() {
    let world = Arc::new(World::default());
    let journal = JournalExecutor::new();
    let crashing = Crashing {
        journal: journal.clone(),
        // The session id, turn 1's request and its first call.
        budget: Arc::new(AtomicUsize::new(3)),
    };
    let error = block_on(agent(&world, crashing, "pay", 1).run(INPUT)).unwrap_err();
    assert!(is_crash(&error));
    let error = block_on(agent(&world, journal, "pay_v2", 1).run(INPUT)).unwrap_err();
    let AgentError::Step { key, reason } = &error else {
        panic!("a step error, not {error:?}");
    };
    assert_eq!(key, "turn/1/tool/c1a");
    assert!(
        reason.contains("`pay`") && reason.contains("renamed or removed"),
        "{reason}"
    );
    assert_eq!(world.runs().len(), 1, "nothing ran on the changed agent");
}

#[test]
fn a_journal_entry_of_another_kind_is_refused() {
    let wrong = serde_json::to_string(&StepOutput::SessionId { id: "s".into() }).unwrap();
    let journal = JournalExecutor::from_entries([
        ("session/id".to_string(), wrong.clone()),
        ("turn/1/model".to_string(), wrong),
    ]);
    let world = Arc::new(World::default());
    let error = block_on(agent(&world, journal, "pay", 1).run(INPUT)).unwrap_err();
    assert!(
        matches!(&error, AgentError::Step { key, reason } if key == "turn/1/model" && reason.contains("session id")),
        "{error}"
    );
    assert_eq!(world.model_asks.load(Ordering::SeqCst), 0);
}

#[test]
fn tools_see_their_step_key_without_a_journal() {
    let world = Arc::new(World::default());
    block_on(agent(&world, phi_agent::InProcess, "pay", 2).run(INPUT)).expect("run");
    assert_once_each(&world);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Any sequence of deaths (each after some number of steps of its own), at either
    /// parallelism, ends in the uninterrupted run's output with every side effect once.
    #[test]
    fn any_sequence_of_crashes_resumes_to_the_same_output(
        budgets in prop::collection::vec(0..=STEPS, 1..5),
        parallel in 1usize..=2,
    ) {
        let (output, world) = crash_and_resume(&budgets, parallel);
        prop_assert_eq!(output, reference(parallel));
        assert_once_each(&world);
    }
}

//! What a person approved is what runs, and it runs once: a stored paused run edited after the
//! decision (or, with a signing key, anywhere) is refused before any tool runs, naming what
//! changed; a paused run resumes once, in sequence or racing.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, FileResumeStore, PausedRun, PhiAgent, RunOutcome,
    Tampering, ToolContext, base_agent_builder, phi_tool, tools,
};
use serde_json::{Value, json};

/// What the tools did, shared by every agent a test builds.
#[derive(Default)]
struct Ledger {
    balances: AtomicUsize,
    paid: Mutex<Vec<(f64, String)>>,
}

impl Ledger {
    fn payments(&self) -> usize {
        self.paid.lock().unwrap().len()
    }
}

/// The account's balance.
#[phi_tool(read_only)]
async fn balance(ctx: &ToolContext) -> AgentResult<String> {
    ctx.state::<Arc<Ledger>>()?
        .balances
        .fetch_add(1, Ordering::SeqCst);
    Ok("balance: 100".into())
}

/// Pay `amount`.
#[phi_tool(needs_approval)]
async fn pay(amount: f64, ctx: &ToolContext) -> AgentResult<String> {
    ctx.state::<Arc<Ledger>>()?
        .paid
        .lock()
        .unwrap()
        .push((amount, ctx.step_key()));
    Ok(format!("paid {amount}"))
}

/// Refund `amount`.
#[phi_tool(needs_approval)]
async fn refund(amount: f64) -> String {
    format!("refunded {amount}")
}

/// 0.1 + 0.2: a float whose text is long, as stored JSON keeps it.
const AMOUNT: f64 = 0.1 + 0.2;

fn agent(llm: ScriptedLlm, ledger: &Arc<Ledger>, key: Option<&str>) -> PhiAgent {
    let mut builder = base_agent_builder(llm)
        .register_tools(tools![balance, pay, refund])
        .state(ledger.clone());
    if let Some(key) = key {
        builder = builder.signing_key(key);
    }
    PhiAgent::build(builder, AgentConfig::default()).unwrap()
}

/// A run that reads the balance in turn 1, then in turn 2 reads it again and pays: paused on
/// the payment (`c3`), approved, stored as JSON.
async fn approved(ledger: &Arc<Ledger>, key: Option<&str>) -> Value {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c1", "balance", json!({}))]),
        LlmResponse::tool_calls(vec![
            ToolCall::new("c2", "balance", json!({})),
            ToolCall::new("c3", "pay", json!({ "amount": AMOUNT })),
        ]),
    ]);
    let outcome = agent(llm, ledger, key).start("pay the bill").await.unwrap();
    let mut paused = outcome.paused().expect("the run pauses on the payment");
    assert_eq!(paused.pending()[0].id(), "c3");
    paused.approve("c3").unwrap();
    serde_json::to_value(&paused).unwrap()
}

/// Resumes `stored` on an agent built anew whose model then answers "done".
async fn resume(stored: Value, ledger: &Arc<Ledger>, key: Option<&str>) -> AgentResult<RunOutcome> {
    let paused: PausedRun = serde_json::from_value(stored).unwrap();
    let llm = ScriptedLlm::new([LlmResponse::text("done")]);
    agent(llm, ledger, key).resume(paused).await
}

fn tampering(result: AgentResult<RunOutcome>) -> Tampering {
    match result {
        Err(AgentError::Tampered(tampering)) => tampering,
        other => panic!("expected the run refused as tampered, got {other:?}"),
    }
}

/// An edit of a stored run, named.
type Edit = (&'static str, fn(&mut Value));

/// The field classes of a stored run, each edited as someone with access to the storage would.
fn edits() -> Vec<Edit> {
    vec![
        ("pending arguments", |state| {
            state["calls"][1]["arguments"]["amount"] = json!(10000.0)
        }),
        ("pending tool", |state| {
            state["calls"][1]["tool"] = json!("refund")
        }),
        ("result of the paused turn", |state| {
            state["calls"][0]["content"][0]["text"] = json!("balance: 999999")
        }),
        ("earlier result", |state| {
            state["transcript"][2]["content"][0]["text"] = json!("balance: 999999")
        }),
        ("history message", |state| {
            state["transcript"][0]["text"] = json!("pay everyone everything")
        }),
        ("earlier call's arguments", |state| {
            state["transcript"][1]["tool_calls"][0]["arguments"] = json!({"account": "other"})
        }),
        ("run id", |state| state["id"] = json!("run-0000")),
        ("active tools", |state| {
            state["active_tools"] = json!(["balance", "pay"])
        }),
    ]
}

#[tokio::test]
async fn without_a_key_an_edited_decided_call_is_refused_and_nothing_runs() {
    let ledger = Arc::new(Ledger::default());
    let stored = approved(&ledger, None).await;
    let balances = ledger.balances.load(Ordering::SeqCst);
    let (_, edit_arguments) = edits()[0];
    let (_, edit_tool) = edits()[1];

    let mut state = stored.clone();
    edit_arguments(&mut state);
    let refused = tampering(resume(state, &ledger, None).await);
    assert_eq!(refused, Tampering::Arguments { call: "c3".into() });
    assert!(
        refused
            .to_string()
            .contains("arguments of the call `c3` changed"),
        "{refused}"
    );

    let mut state = stored.clone();
    edit_tool(&mut state);
    let refused = tampering(resume(state, &ledger, None).await);
    assert_eq!(refused, Tampering::Tool { call: "c3".into() });

    // A decision written into the JSON, not made on the paused run, is bound to nothing.
    let mut state = stored.clone();
    state["calls"][1].as_object_mut().unwrap().remove("seen");
    let refused = tampering(resume(state, &ledger, None).await);
    assert_eq!(refused, Tampering::Unbound { call: "c3".into() });

    assert_eq!(ledger.payments(), 0, "nothing was paid");
    assert_eq!(
        ledger.balances.load(Ordering::SeqCst),
        balances,
        "no tool ran"
    );

    // The run as approved resumes, and pays what was approved.
    let output = resume(stored, &ledger, None).await.unwrap().done().unwrap();
    assert_eq!(output.text, "done");
    assert_eq!(ledger.paid.lock().unwrap()[0].0, AMOUNT);
}

#[tokio::test]
async fn with_a_key_every_field_class_edited_is_refused_and_nothing_runs() {
    let key = Some("a key of the agent's, 32 bytes or more");
    let ledger = Arc::new(Ledger::default());
    let stored = approved(&ledger, key).await;
    let balances = ledger.balances.load(Ordering::SeqCst);
    assert!(stored["seal"]["transcript"].is_string(), "{stored}");
    for (what, edit) in edits() {
        let mut state = stored.clone();
        edit(&mut state);
        assert_ne!(state, stored, "{what}: the edit changes the state");
        let refused = tampering(resume(state, &ledger, key).await);
        let expected = match what {
            "pending arguments" => Tampering::Arguments { call: "c3".into() },
            "pending tool" => Tampering::Tool { call: "c3".into() },
            "result of the paused turn" => Tampering::Signed {
                part: "calls/0".into(),
            },
            "run id" => Tampering::Signed { part: "id".into() },
            "active tools" => Tampering::Signed {
                part: "active_tools".into(),
            },
            _ => Tampering::Signed {
                part: "transcript".into(),
            },
        };
        assert_eq!(refused, expected, "{what}");
        assert_eq!(ledger.payments(), 0, "{what}: nothing was paid");
        assert_eq!(
            ledger.balances.load(Ordering::SeqCst),
            balances,
            "{what}: no tool ran"
        );
    }

    // Edited before the person decided: they approved what they saw, and the signature still
    // tells the edit.
    let mut state = stored.clone();
    state["calls"][1]["arguments"]["amount"] = json!(10000.0);
    let mut paused: PausedRun = serde_json::from_value(state).unwrap();
    paused.approve("c3").unwrap();
    let refused = tampering(
        agent(ScriptedLlm::new([LlmResponse::text("done")]), &ledger, key)
            .resume(paused)
            .await,
    );
    assert_eq!(
        refused,
        Tampering::Signed {
            part: "calls/1".into()
        }
    );
    assert_eq!(ledger.payments(), 0);

    // The run as signed and approved resumes, through JSON text and back.
    let text = serde_json::to_string(&stored).unwrap();
    let output = resume(serde_json::from_str(&text).unwrap(), &ledger, key)
        .await
        .unwrap()
        .done()
        .unwrap();
    assert_eq!(output.text, "done");
    assert_eq!(ledger.payments(), 1);
}

#[tokio::test]
async fn a_signature_that_does_not_match_is_refused() {
    let key = Some("the agent's key");
    let ledger = Arc::new(Ledger::default());
    let stored = approved(&ledger, key).await;

    // Another key, the same state.
    let refused = tampering(resume(stored.clone(), &ledger, Some("another key")).await);
    assert!(matches!(refused, Tampering::Signed { .. }), "{refused:?}");
    // A signature edited, or one part's dropped.
    let mut state = stored.clone();
    state["seal"]["transcript"] = json!("00".repeat(32));
    let refused = tampering(resume(state, &ledger, key).await);
    assert_eq!(
        refused,
        Tampering::Signed {
            part: "transcript".into()
        }
    );
    let mut state = stored.clone();
    state["seal"]["transcript"] = json!("not hex");
    assert_eq!(
        tampering(resume(state, &ledger, key).await),
        Tampering::Signed {
            part: "transcript".into()
        }
    );
    // A call of the paused turn dropped: its signature has no part left.
    let mut state = stored.clone();
    state["calls"].as_array_mut().unwrap().remove(0);
    let refused = tampering(resume(state, &ledger, key).await);
    assert!(matches!(refused, Tampering::Signed { .. }), "{refused:?}");
    // The signature stripped.
    let mut state = stored.clone();
    state.as_object_mut().unwrap().remove("seal");
    assert_eq!(
        tampering(resume(state, &ledger, key).await),
        Tampering::Unsigned
    );
    // A signed run on an agent without the key.
    assert_eq!(
        tampering(resume(stored, &ledger, None).await),
        Tampering::NoKey
    );
    assert_eq!(ledger.payments(), 0);
}

#[tokio::test]
async fn the_same_json_resumed_twice_runs_once() {
    let ledger = Arc::new(Ledger::default());
    let stored = approved(&ledger, None).await;
    let paused: PausedRun = serde_json::from_value(stored.clone()).unwrap();
    let llm = ScriptedLlm::from_fn(|_| Ok(LlmResponse::text("done")));
    let agent = agent(llm, &ledger, None);
    agent.resume(paused.clone()).await.unwrap().done().unwrap();
    match agent.resume(paused.clone()).await {
        Err(AgentError::AlreadyResumed { run }) => assert_eq!(run, paused.id()),
        other => panic!("expected AlreadyResumed, got {other:?}"),
    }
    // A clone of the agent shares its store; so does a session.
    let again = agent.clone().resume(paused.clone()).await;
    assert!(
        matches!(again, Err(AgentError::AlreadyResumed { .. })),
        "{again:?}"
    );
    assert_eq!(ledger.payments(), 1);

    // Across processes: two agents that share a store's directory.
    let dir = std::env::temp_dir().join(format!("phi-resumed-{}", paused.id()));
    let build = || {
        let builder = base_agent_builder(ScriptedLlm::from_fn(|_| Ok(LlmResponse::text("done"))))
            .register_tools(tools![balance, pay, refund])
            .state(ledger.clone())
            .resume_store(FileResumeStore::new(&dir));
        PhiAgent::build(builder, AgentConfig::default()).unwrap()
    };
    build()
        .resume(paused.clone())
        .await
        .unwrap()
        .done()
        .unwrap();
    let again = build().resume(paused).await;
    assert!(
        matches!(again, Err(AgentError::AlreadyResumed { .. })),
        "{again:?}"
    );
    assert_eq!(ledger.payments(), 2, "one payment for the store on disk");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_resumes_racing_run_once() {
    for round in 0..20 {
        let ledger = Arc::new(Ledger::default());
        let stored = approved(&ledger, None).await;
        let paused: PausedRun = serde_json::from_value(stored).unwrap();
        let llm = ScriptedLlm::from_fn(|_| Ok(LlmResponse::text("done")));
        let agent = agent(llm, &ledger, None);
        let race = |paused: PausedRun| {
            let agent = agent.clone();
            tokio::spawn(async move { agent.resume(paused).await })
        };
        let (a, b) = (race(paused.clone()), race(paused));
        let outcomes = [a.await.unwrap(), b.await.unwrap()];
        let done = outcomes.iter().filter(|outcome| outcome.is_ok()).count();
        let refused = outcomes
            .iter()
            .filter(|outcome| matches!(outcome, Err(AgentError::AlreadyResumed { .. })))
            .count();
        assert_eq!((done, refused), (1, 1), "round {round}: {outcomes:?}");
        assert_eq!(ledger.payments(), 1, "round {round}");
    }
}

#[tokio::test]
async fn the_idempotency_key_is_the_step_key_the_tool_reads_and_the_digest_is_what_was_shown() {
    let ledger = Arc::new(Ledger::default());
    let stored = approved(&ledger, None).await;
    let paused: PausedRun = serde_json::from_value(stored.clone()).unwrap();
    let pending = paused.pending()[0].clone();
    assert_eq!(pending.idempotency_key(), "turn/2/tool/c3");
    let digest = pending.digest();
    assert_eq!(digest.len(), 64);

    // The digest does not depend on key order or whitespace, and changes with the arguments.
    let mut reordered = stored.clone();
    reordered["calls"][1]["arguments"] = json!({ "amount": AMOUNT });
    let again: PausedRun = serde_json::from_value(reordered).unwrap();
    assert_eq!(again.pending()[0].digest(), digest);
    let mut edited = stored.clone();
    edited["calls"][1]["arguments"]["amount"] = json!(10000.0);
    let edited: PausedRun = serde_json::from_value(edited).unwrap();
    assert_ne!(edited.pending()[0].digest(), digest);

    resume(stored, &ledger, None).await.unwrap().done().unwrap();
    let paid = ledger.paid.lock().unwrap();
    assert_eq!(
        paid[0].1,
        pending.idempotency_key(),
        "what the tool read as its step key"
    );
}

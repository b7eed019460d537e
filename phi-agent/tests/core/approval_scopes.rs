//! Fewer prompts, on the program's terms: a decision remembered for the session or by a rule
//! (a count, a time limit on the agent's clock) decides later calls unprompted and stops when
//! spent; it survives a stored pause, under the agent's MAC; the agent's policy decides before
//! anyone is asked.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, UNIX_EPOCH};

use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentBuilder, AgentConfig, AgentError, AgentEvent, Approval, ApprovalRequest, Decided,
    DecisionRule, PausedRun, PhiAgent, Remember, RunOutput, Tampering, ToolContext, Verdict,
    base_agent_builder, phi_tool, tools,
};
use serde_json::{Value, json};

/// What the tools did and what the run reported, shared by every agent a test builds.
#[derive(Default)]
struct World {
    paid: Mutex<Vec<String>>,
    /// The agent's clock, in seconds since the epoch.
    now: AtomicU64,
    asked: Mutex<Vec<String>>,
    events: Mutex<Vec<String>>,
}

impl World {
    fn paid(&self) -> Vec<String> {
        self.paid.lock().unwrap().clone()
    }
    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
    fn events(&self) -> Vec<String> {
        self.events.lock().unwrap().clone()
    }
}

/// Pay `amount` to `to`.
#[phi_tool(needs_approval)]
async fn pay(to: String, amount: u64, ctx: &ToolContext) -> phi_agent::AgentResult<String> {
    let world = ctx.state::<Arc<World>>()?;
    world.paid.lock().unwrap().push(format!("{to}:{amount}"));
    Ok(format!("paid {amount} to {to}"))
}

/// Refund the last payment.
#[phi_tool(needs_approval)]
async fn refund() -> String {
    "refunded".into()
}

/// Pay 5 to the shop, then 5000, through the run (as a code-mode program's calls are made);
/// says what each gave.
#[phi_tool]
async fn pay_twice(ctx: &ToolContext) -> phi_agent::AgentResult<String> {
    let mut said = Vec::new();
    for amount in [5, 5000] {
        let called = ctx
            .call_tool("pay", json!({"to": "shop", "amount": amount}))
            .await?;
        let text = called.content[0].as_text().unwrap_or_default().to_string();
        said.push(format!(
            "{} {text}",
            if called.is_error { "error" } else { "ok" }
        ));
    }
    Ok(said.join("; "))
}

/// Let `seconds` pass on the agent's clock.
#[phi_tool]
async fn wait(seconds: u64, ctx: &ToolContext) -> phi_agent::AgentResult<String> {
    let world = ctx.state::<Arc<World>>()?;
    world.now.fetch_add(seconds, Ordering::SeqCst);
    Ok("waited".into())
}

fn pay_call(id: &str, to: &str, amount: u64) -> ToolCall {
    ToolCall::new(id, "pay", json!({"to": to, "amount": amount}))
}

/// A model that makes each of `turns` in turn, then says "done".
fn model(turns: Vec<Vec<ToolCall>>) -> ScriptedLlm {
    let mut replies: Vec<LlmResponse> = turns.into_iter().map(LlmResponse::tool_calls).collect();
    replies.push(LlmResponse::text("done"));
    ScriptedLlm::new(replies)
}

/// An agent on the world's clock that reports the approval events, without an approver.
fn builder(llm: ScriptedLlm, world: &Arc<World>) -> AgentBuilder {
    let clock = world.clone();
    let events = world.clone();
    base_agent_builder(llm)
        .register_tools(tools![pay, refund, wait, pay_twice])
        .state(world.clone())
        .approval_clock(move || UNIX_EPOCH + Duration::from_secs(clock.now.load(Ordering::SeqCst)))
        .observer(move |event: &AgentEvent<'_>| {
            let line = match event {
                AgentEvent::ApprovalRemembered { call, decision, .. } => {
                    format!("{} by {}", call.id, decision.decided_call)
                }
                AgentEvent::ApprovalByPolicy { call, approval, .. } => {
                    format!("{} by policy approved={}", call.id, approval.is_approved())
                }
                _ => return,
            };
            events.events.lock().unwrap().push(line);
        })
}

/// `builder` with an approver that notes each call it is asked and answers `answer(call id)`.
fn asking(llm: ScriptedLlm, world: &Arc<World>, answer: fn(&str) -> Decided) -> AgentBuilder {
    let asked = world.clone();
    builder(llm, world).approver(move |request: ApprovalRequest| {
        asked.asked.lock().unwrap().push(request.call_id.clone());
        let decided = answer(&request.call_id);
        async move { decided }
    })
}

async fn run(builder: AgentBuilder) -> RunOutput {
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    agent.run("pay the bills").await.unwrap()
}

#[tokio::test]
async fn a_session_approval_lets_later_calls_of_the_tool_run_unprompted() {
    let world = Arc::new(World::default());
    let llm = model(vec![
        vec![pay_call("c1", "shop", 5)],
        vec![
            pay_call("c2", "bank", 7),
            ToolCall::new("c3", "refund", json!({})),
        ],
    ]);
    let answer = |_: &str| Approval::Approve.remember(Remember::Session);
    let output = run(asking(llm, &world, answer)).await;
    assert_eq!(output.text, "done");
    // The refund is another tool: the session approval of `pay` does not reach it.
    assert_eq!(world.asked(), ["c1", "c3"]);
    assert_eq!(world.paid(), ["shop:5", "bank:7"]);
    assert_eq!(world.events(), ["c2 by c1"]);
    assert_eq!(output.tool_calls[1].approval, Some(Approval::Approve));
}

#[tokio::test]
async fn a_rule_with_a_count_decides_that_many_matching_calls_then_asks_again() {
    let world = Arc::new(World::default());
    let llm = model(vec![
        vec![pay_call("c1", "shop", 1)],
        vec![pay_call("c2", "bank", 2)],
        vec![pay_call("c3", "shop", 3), pay_call("c4", "shop", 4)],
        vec![pay_call("c5", "shop", 5)],
    ]);
    let answer = |id: &str| match id {
        "c1" => Approval::Approve.remember(Remember::Rule(
            DecisionRule::tool("pay")
                .matching(json!({"to": "shop"}))
                .uses(2),
        )),
        _ => Approval::Approve.into(),
    };
    let output = run(asking(llm, &world, answer)).await;
    // c2 does not match the rule; c3 and c4 use it up; c5 is asked again.
    assert_eq!(world.asked(), ["c1", "c2", "c5"]);
    assert_eq!(world.events(), ["c3 by c1", "c4 by c1"]);
    assert_eq!(world.paid().len(), 5);
    assert!(output.tool_calls.iter().all(|call| !call.is_error));
}

#[tokio::test]
async fn a_time_limited_rule_stops_applying_when_the_clock_passes_it() {
    let world = Arc::new(World::default());
    let wait_for = |id: &str, seconds: u64| ToolCall::new(id, "wait", json!({"seconds": seconds}));
    let llm = model(vec![
        vec![pay_call("c1", "shop", 1)],
        vec![wait_for("w1", 59)],
        vec![pay_call("c2", "shop", 2)],
        vec![wait_for("w2", 1)],
        vec![pay_call("c3", "shop", 3)],
    ]);
    let answer = |id: &str| match id {
        "c1" => Approval::Approve.remember(Remember::Rule(
            DecisionRule::tool("pay").for_duration(Duration::from_secs(60)),
        )),
        _ => Approval::deny("not now").into(),
    };
    let output = run(asking(llm, &world, answer)).await;
    assert_eq!(world.asked(), ["c1", "c3"]);
    assert_eq!(world.paid(), ["shop:1", "shop:2"]);
    assert!(output.tool_calls.last().unwrap().is_error);
}

#[tokio::test]
async fn a_remembered_denial_refuses_later_calls_with_its_message() {
    let world = Arc::new(World::default());
    let llm = model(vec![
        vec![pay_call("c1", "shop", 1)],
        vec![pay_call("c2", "shop", 2)],
    ]);
    let answer = |_: &str| Approval::deny("no payments today").remember(Remember::Session);
    let output = run(asking(llm, &world, answer)).await;
    assert_eq!(world.asked(), ["c1"]);
    assert!(world.paid().is_empty());
    let second = &output.tool_calls[1];
    assert!(second.is_error);
    let text = second.result[0].as_text().unwrap();
    assert!(text.contains("no payments today"), "{text}");
}

const KEY: &str = "a key only the program knows";

/// A pausing run: paused on `c1`, approved for the session, resumed; paused again on the
/// refund, with the session approval remembered. Stored as JSON.
async fn paused_with_a_remembered_approval(world: &Arc<World>) -> Value {
    let llm = model(vec![
        vec![pay_call("c1", "shop", 1)],
        vec![ToolCall::new("r1", "refund", json!({}))],
    ]);
    let agent =
        PhiAgent::build(builder(llm, world).signing_key(KEY), AgentConfig::default()).unwrap();
    let mut paused = agent.start("pay").await.unwrap().paused().unwrap();
    paused.approve("c1").unwrap();
    paused.remember("c1", Remember::Session).unwrap();
    let paused = agent.resume(paused).await.unwrap().paused().unwrap();
    assert_eq!(paused.pending()[0].id(), "r1");
    assert_eq!(paused.remembered().len(), 1);
    assert_eq!(paused.remembered()[0].decided_call, "c1");
    serde_json::to_value(&paused).unwrap()
}

/// Resumes `stored`, its refund approved, on an agent built anew (no approver) whose model
/// then pays again.
async fn resume(stored: Value, world: &Arc<World>) -> phi_agent::AgentResult<RunOutput> {
    let mut paused: PausedRun = serde_json::from_value(stored).unwrap();
    paused.approve("r1").unwrap();
    let llm = model(vec![vec![pay_call("c2", "bank", 2)]]);
    let agent =
        PhiAgent::build(builder(llm, world).signing_key(KEY), AgentConfig::default()).unwrap();
    Ok(agent.resume(paused).await?.done().unwrap())
}

#[tokio::test]
async fn a_remembered_decision_survives_a_stored_pause_in_a_new_agent() {
    let world = Arc::new(World::default());
    let stored = paused_with_a_remembered_approval(&world).await;
    let output = resume(stored, &world).await.unwrap();
    assert_eq!(output.text, "done");
    // No approver: without the remembered approval, c2 would have been denied.
    assert_eq!(world.paid(), ["shop:1", "bank:2"]);
    assert_eq!(world.events(), ["c2 by c1"]);
}

/// An edit of a stored run, named.
type Edit = (&'static str, fn(&mut Value));

#[tokio::test]
async fn an_edited_or_forged_remembered_decision_is_refused_and_nothing_runs() {
    let edits: [Edit; 3] = [
        ("widened to another tool", |state| {
            state["remembered"][0]["tool"] = json!("refund")
        }),
        ("a use limit added", |state| {
            state["remembered"][0]["uses_left"] = json!(1)
        }),
        ("a forged one added", |state| {
            let mut forged = state["remembered"][0].clone();
            forged["tool"] = json!("wait");
            state["remembered"].as_array_mut().unwrap().push(forged);
        }),
    ];
    for (name, edit) in edits {
        let world = Arc::new(World::default());
        let mut stored = paused_with_a_remembered_approval(&world).await;
        edit(&mut stored);
        let error = resume(stored, &world).await.unwrap_err();
        assert!(
            matches!(
                &error,
                AgentError::Tampered(Tampering::Signed { part }) if part == "remembered"
            ),
            "{name}: {error:?}"
        );
        assert_eq!(world.paid(), ["shop:1"], "{name}: nothing more ran");
    }
}

/// Small payments go, large ones are refused, the rest are asked.
fn policy(request: &ApprovalRequest) -> Verdict {
    match request.arguments["amount"].as_u64() {
        Some(amount) if amount <= 10 => Verdict::Approve,
        Some(amount) if amount > 1000 => Verdict::Deny("over the limit of 1000".into()),
        _ => Verdict::Ask,
    }
}

#[tokio::test]
async fn the_policy_decides_before_the_approver_and_before_remembered_decisions() {
    let world = Arc::new(World::default());
    let llm = model(vec![
        vec![
            pay_call("c1", "shop", 5),
            pay_call("c2", "shop", 5000),
            pay_call("c3", "shop", 50),
        ],
        vec![pay_call("c4", "shop", 6000), pay_call("c5", "shop", 60)],
    ]);
    let answer = |_: &str| Approval::Approve.remember(Remember::Session);
    let output = run(asking(llm, &world, answer).approval_policy(policy)).await;
    assert_eq!(world.asked(), ["c3"]);
    // c4 is refused by the policy although the session approved `pay`. The calls of a turn
    // run concurrently: their order is not the test's business.
    let mut paid = world.paid();
    paid.sort();
    assert_eq!(paid, ["shop:5", "shop:50", "shop:60"]);
    assert_eq!(
        world.events(),
        [
            "c1 by policy approved=true",
            "c2 by policy approved=false",
            "c4 by policy approved=false",
            "c5 by c3"
        ]
    );
    let refused = &output.tool_calls[1];
    assert!(refused.is_error);
    assert!(
        refused.result[0]
            .as_text()
            .unwrap()
            .contains("over the limit of 1000")
    );
    assert_eq!(
        refused.approval,
        Some(Approval::deny("over the limit of 1000"))
    );
}

#[tokio::test]
async fn a_pausing_run_does_not_pause_on_what_the_policy_decides() {
    let world = Arc::new(World::default());
    let llm = model(vec![vec![
        pay_call("c1", "shop", 5),
        pay_call("c2", "shop", 50),
    ]]);
    let agent = PhiAgent::build(
        builder(llm, &world).approval_policy(policy),
        AgentConfig::default(),
    )
    .unwrap();
    let paused = agent.start("pay").await.unwrap().paused().unwrap();
    let pending: Vec<&str> = paused.pending().iter().map(|call| call.id()).collect();
    assert_eq!(pending, ["c2"]);
    assert_eq!(
        world.paid(),
        ["shop:5"],
        "the approved call ran before the pause"
    );
}

#[tokio::test]
async fn a_cedar_policy_permits_one_argument_pattern_and_forbids_another() {
    let policy = phi_agent::CedarPolicy::new(
        r#"
        permit(principal, action == Action::"pay", resource)
            when { context.to == "shop" && context.amount <= 10 };
        @reason("payments go to the shop only")
        forbid(principal, action == Action::"pay", resource) unless { context.to == "shop" };
        "#,
    )
    .unwrap();
    let world = Arc::new(World::default());
    let llm = model(vec![vec![
        pay_call("c1", "shop", 5),
        pay_call("c2", "elsewhere", 5),
        pay_call("c3", "shop", 500),
    ]]);
    let answer = |_: &str| Approval::Approve.into();
    let output = run(asking(llm, &world, answer).approval_policy(policy)).await;
    // c3 matches no policy: a person decides it.
    assert_eq!(world.asked(), ["c3"]);
    let mut paid = world.paid();
    paid.sort();
    assert_eq!(paid, ["shop:5", "shop:500"]);
    let refused = &output.tool_calls[1];
    assert!(
        refused.result[0]
            .as_text()
            .unwrap()
            .contains("payments go to the shop only")
    );
}

#[test]
fn a_cedar_policy_that_does_not_parse_is_a_clear_error() {
    let error = phi_agent::CedarPolicy::new("permit(principal, action, resource").unwrap_err();
    assert!(
        matches!(&error, AgentError::Config(message) if message.starts_with("Cedar policy:")),
        "{error:?}"
    );
}

#[tokio::test]
async fn the_policy_decides_the_calls_a_tool_makes_through_its_run_too() {
    let world = Arc::new(World::default());
    let llm = model(vec![vec![ToolCall::new("c1", "pay_twice", json!({}))]]);
    // No approver: whatever the policy leaves to a person is denied.
    let output = run(builder(llm, &world).approval_policy(policy)).await;
    assert_eq!(world.paid(), ["shop:5"]);
    let said = output.tool_calls[0].result[0]
        .as_text()
        .unwrap()
        .to_string();
    assert!(said.starts_with("ok paid 5 to shop; error "), "{said}");
    assert!(said.contains("over the limit of 1000"), "{said}");
    assert_eq!(
        world.events(),
        [
            "c1/call/0 by policy approved=true",
            "c1/call/1 by policy approved=false"
        ]
    );
}

//! The approval check's cost: resuming a stored paused run whose one pending call (`pay`) was
//! approved, without a signing key (the decision's digest checked against the call) and with one
//! (every part of the stored run MAC-checked too), beside the dispatch of the same call in a run
//! that needs no approval. Each resume starts from the stored JSON, as a service that keeps
//! paused runs would.
//!
//! `cargo bench -p phi-agent --bench approval`. For instruction counts, `PHI_APPROVAL_LOOPS=n`
//! runs n signed resumes (unsigned with `PHI_APPROVAL_UNSIGNED=1`) and exits, under
//! `valgrind --tool=callgrind --toggle-collect='*check_integrity*'` (the check alone) or with
//! `--toggle-collect='*PhiAgent*resume*'` (the whole resume).

use std::hint::black_box;
use std::time::Instant;

use async_trait::async_trait;
use criterion::{Criterion, criterion_group};
use phi_agent::llm::{LlmClient, LlmRequest, LlmResponse, ToolCall};
use phi_agent::{
    AgentBuilder, AgentConfig, AgentResult, PausedRun, PhiAgent, ResumeStore, base_agent_builder,
    phi_tool, tools,
};
use serde_json::json;

/// Pay `amount` (needs approval).
#[phi_tool(needs_approval)]
async fn pay(amount: f64) -> String {
    format!("paid {amount}")
}

/// Pay `amount` (needs none).
#[phi_tool]
async fn pay_freely(amount: f64) -> String {
    format!("paid {amount}")
}

/// Calls `tool` on the first turn, answers on the second.
struct CallsThenAnswers(&'static str);

#[async_trait]
impl LlmClient for CallsThenAnswers {
    async fn complete(&self, request: &LlmRequest) -> AgentResult<LlmResponse> {
        if request.messages.len() > 1 {
            return Ok(LlmResponse::text("done"));
        }
        Ok(LlmResponse::tool_calls(vec![ToolCall::new(
            "c1",
            self.0,
            json!({"amount": 10.5}),
        )]))
    }
}

/// Lets every run resume any number of times: the bench resumes one stored run again and again.
struct ResumesAlways;

#[async_trait]
impl ResumeStore for ResumesAlways {
    async fn mark_resumed(&self, _run: &str) -> AgentResult<bool> {
        Ok(true)
    }
}

fn agent(tool: &'static str, key: Option<&str>) -> PhiAgent {
    let mut builder: AgentBuilder = base_agent_builder(CallsThenAnswers(tool))
        .register_tools(tools![pay, pay_freely])
        .resume_store(ResumesAlways);
    if let Some(key) = key {
        builder = builder.signing_key(key);
    }
    PhiAgent::build(builder, AgentConfig::default()).expect("valid agent")
}

/// The paused run of `agent`, its `pay` call approved, as stored JSON.
async fn stored(agent: &PhiAgent) -> String {
    let outcome = agent.start("pay the bill").await.expect("run");
    let mut paused = outcome.paused().expect("paused on pay");
    paused.approve("c1").expect("pending");
    serde_json::to_string(&paused).expect("serializable")
}

/// Resumes `json` on `agent`; the run ends with the payment made.
async fn resume(agent: &PhiAgent, json: &str) {
    let paused: PausedRun = serde_json::from_str(json).expect("stored run");
    let outcome = agent.resume(paused).await.expect("resumed");
    assert!(outcome.paused().is_none());
}

fn bench_approval(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let unsigned = agent("pay", None);
    let signed = agent("pay", Some("a key of the service's"));
    let free = agent("pay_freely", None);
    let unsigned_json = rt.block_on(stored(&unsigned));
    let signed_json = rt.block_on(stored(&signed));

    let mut group = c.benchmark_group("approval");
    group.bench_function("resume_unsigned", |b| {
        b.iter(|| rt.block_on(resume(&unsigned, black_box(&unsigned_json))))
    });
    group.bench_function("resume_signed", |b| {
        b.iter(|| rt.block_on(resume(&signed, black_box(&signed_json))))
    });
    // The same call dispatched in a run of two turns that needs no approval.
    group.bench_function("run_without_approval", |b| {
        b.iter(|| rt.block_on(async { black_box(free.run("pay the bill").await.expect("run")) }))
    });
    group.finish();
}

criterion_group!(benches, bench_approval);

fn main() {
    if let Some(loops) = std::env::var("PHI_APPROVAL_LOOPS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
    {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let key = std::env::var_os("PHI_APPROVAL_UNSIGNED")
            .is_none()
            .then_some("a key of the service's");
        let agent = agent("pay", key);
        let json = rt.block_on(stored(&agent));
        let started = Instant::now();
        for _ in 0..loops {
            rt.block_on(resume(&agent, &json));
        }
        println!("{loops} resumes in {:?}", started.elapsed());
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

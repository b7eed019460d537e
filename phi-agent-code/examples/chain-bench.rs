//! The figures of BENCHMARKS.md's code mode section, offline on the scripted model.
//!
//! - `cargo run --release -p phi-agent-code --example chain-bench -- bytes`: a chain of 10
//!   calls (each needs the one before) without and with code mode: model turns and the bytes of
//!   every request (messages, system prompt and tool definitions as JSON).
//! - `.. -- direct N` / `.. -- nested N`: one run making N calls of a tool, as the model's calls
//!   of one turn or from one program; run under `valgrind --tool=callgrind` for N = 0 and N > 0,
//!   the difference divided by N is what one call costs.

use phi_agent::llm::{LlmRequest, LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::{AgentConfig, PhiAgent, base_agent_builder, phi_tool, tools};
use phi_agent_code::{CodeLimits, RunCode};
use serde_json::json;

/// The next number of the chain.
#[phi_tool]
async fn step(
    /// The number so far.
    n: i64,
) -> i64 {
    n + 1
}

/// An agent with `step`, and `run_code` over it when `code`.
fn agent(llm: &ScriptedLlm, code: bool) -> PhiAgent {
    let tools = tools![step];
    let run_code = RunCode::new(&tools).with_limits(
        CodeLimits::default()
            .with_max_tool_calls(100_000)
            .with_max_operations(10_000_000),
    );
    let mut builder = base_agent_builder(llm.clone())
        .system_prompt("Follow the chain.")
        .register_tools(tools);
    if code {
        builder = builder.register_tool(run_code);
    }
    let config = AgentConfig::default().with_max_turns(1_000);
    PhiAgent::build(builder, config).unwrap()
}

fn bytes(request: &LlmRequest) -> usize {
    let tools: usize = request
        .tools
        .iter()
        .map(|spec| spec.name.len() + spec.description.len() + spec.schema.to_string().len())
        .sum();
    let system = request.system.as_ref().map_or(0, String::len);
    serde_json::to_string(&request.messages).unwrap().len() + system + tools
}

async fn chain() {
    // Without code mode: a turn per call, each on the result before.
    let mut script: Vec<LlmResponse> = (0..10)
        .map(|n| {
            LlmResponse::tool_calls(vec![ToolCall::new(
                format!("c{n}"),
                "step",
                json!({ "n": n }),
            )])
        })
        .collect();
    script.push(LlmResponse::text("10"));
    let direct = ScriptedLlm::new(script);
    agent(&direct, false).run("Go").await.unwrap();
    // With code mode: one program.
    let program = "let n = 0; for i in 0..10 { n = step(#{ n: n }); } n";
    let code = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "c0",
            "run_code",
            json!({ "code": program }),
        )]),
        LlmResponse::text("10"),
    ]);
    agent(&code, true).run("Go").await.unwrap();
    for (name, llm) in [("direct", &direct), ("code mode", &code)] {
        let requests = llm.requests();
        let total: usize = requests.iter().map(bytes).sum();
        let last = requests.last().map_or(0, bytes);
        println!(
            "{name}: {} model turns, {total} request bytes in all, {last} in the last request",
            requests.len()
        );
    }
}

async fn calls(nested: bool, n: usize) {
    let first = if nested {
        let program = format!("let x = 0; for i in 0..{n} {{ x = step(#{{ n: x }}); }} x");
        LlmResponse::tool_calls(vec![ToolCall::new(
            "c0",
            "run_code",
            json!({ "code": program }),
        )])
    } else if n == 0 {
        LlmResponse::tool_calls(vec![])
    } else {
        let calls = (0..n)
            .map(|i| ToolCall::new(format!("c{i}"), "step", json!({ "n": i })))
            .collect();
        LlmResponse::tool_calls(calls)
    };
    let llm = ScriptedLlm::new([first, LlmResponse::text("done")]);
    agent(&llm, true).run("Go").await.unwrap();
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n = args.get(1).and_then(|n| n.parse().ok()).unwrap_or(0);
    match args.first().map(String::as_str) {
        Some("direct") => calls(false, n).await,
        Some("nested") => calls(true, n).await,
        _ => chain().await,
    }
}

//! Record, replay, evaluate: a small dataset run through the calculator agent, its model
//! exchanges recorded once against a fake OpenAI server and replayed offline ever after.
//!
//! Replay (offline, no key; the cassette is checked in at `examples/cassettes/eval.jsonl`):
//!
//! ```sh
//! cargo run --example eval
//! ```
//!
//! Record it again against fakellm (the interop suite's fake, from its venv; see the book's
//! "Testing an agent" page):
//!
//! ```sh
//! fakellm serve --port 8700 --config interop/fakellm.yaml &
//! cargo run --example eval -- record http://127.0.0.1:8700
//! ```
//!
//! Either way it prints the evaluation's table and exits non-zero when a threshold is missed.

use std::path::Path;
use std::sync::Arc;

use phi_agent::llm::{HttpTransport, OpenAiClient, ReqwestTransport};
use phi_agent::{AgentConfig, PhiAgent, base_agent_builder, phi_tool, tools};
use phi_agent_eval::cassette::{Recorder, Redaction, Replayer};
use phi_agent_eval::eval::{Case, Evaluator, Thresholds};

/// Apply add, subtract, multiply or divide to two numbers.
#[phi_tool]
fn calculator(
    /// Left operand
    a: f64,
    /// Right operand
    b: f64,
    /// add, subtract, multiply or divide
    op: String,
) -> Result<f64, String> {
    match op.as_str() {
        "add" => Ok(a + b),
        "subtract" => Ok(a - b),
        "multiply" => Ok(a * b),
        "divide" if b != 0.0 => Ok(a / b),
        other => Err(format!("cannot {other}")),
    }
}

/// What the agent should do: calculate with the tool, and chat without it.
fn dataset() -> Vec<Case> {
    vec![
        Case::new("calculate", "What is 6 times 7, and what is 2 plus 3?")
            .expect_tools(["calculator"])
            .expect_arguments("calculator", "multiplies 6 by 7", |args| {
                args["a"] == 6.0 && args["b"] == 7.0 && args["op"] == "multiply"
            })
            .expect_answer("says 42", |text| text.contains("42"))
            .max_turns(2),
        Case::new("chat", "Say hello in one word.")
            .expect_tools::<&str>([])
            .max_turns(1),
    ]
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cassette = Path::new(env!("CARGO_MANIFEST_DIR")).join("cassettes/eval.jsonl");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (transport, base): (Arc<dyn HttpTransport>, String) = match args.as_slice() {
        [mode, url] if mode == "record" => {
            println!("recording to {} against {url}", cassette.display());
            let recorder =
                Recorder::new(ReqwestTransport::shared()?, &cassette, Redaction::default());
            (Arc::new(recorder), url.trim_end_matches('/').to_string())
        }
        [] => {
            println!("replaying {} (offline)", cassette.display());
            // Any base URL: a replay compares paths, never hosts.
            (
                Arc::new(Replayer::from_file(&cassette)?),
                "http://replay.invalid".into(),
            )
        }
        _ => return Err("usage: eval [record BASE_URL]".into()),
    };
    // A replay needs no key: the cassette's was redacted when it was recorded.
    let key = std::env::var("OPENAI_API_KEY").unwrap_or_else(|_| "sk-example-not-a-key".into());
    let llm = OpenAiClient::new(key, "gpt-4o-mini")?
        .with_base_url(format!("{base}/v1"))
        .with_http_transport(transport);
    let agent = PhiAgent::build(
        base_agent_builder(llm)
            .system_prompt("You are a careful assistant. Use the calculator for arithmetic.")
            .register_tools(tools![calculator]),
        AgentConfig::default(),
    )?;
    // One case at a time: a recording keeps the order of the dataset.
    let report = Evaluator::new(&agent).run(&dataset()).await;
    print!("{}", report.table());
    report.check(&Thresholds::default().with_success_rate(1.0))?;
    Ok(())
}

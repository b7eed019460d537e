//! The README's "Logging and tracing" set-up (as `examples/tracing.rs` has it) shows a run's
//! turns and tool calls: a line per `chat` and per `execute_tool`, with the tool's name and call
//! id, and one for the run.

use std::io::Write;
use std::sync::{Arc, Mutex};

use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::{AgentConfig, PhiAgent, base_agent_builder, phi_tool, tools};
use serde_json::json;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::fmt::format::FmtSpan;

/// Add two numbers.
#[phi_tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// What the subscriber writes, kept.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs the two-turn `add` script under a `fmt` subscriber at INFO with `spans` events, and
/// returns what it wrote.
async fn logged_run(spans: FmtSpan) -> String {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(LevelFilter::INFO)
        .with_span_events(spans)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "call_1",
            "add",
            json!({"a": 6, "b": 7}),
        )]),
        LlmResponse::text("13"),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm).register_tools(tools![add]),
        AgentConfig::default(),
    )
    .unwrap();
    assert_eq!(agent.run("6 + 7?").await.unwrap().text, "13");
    String::from_utf8(captured.0.lock().unwrap().clone()).unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn the_readme_s_subscriber_shows_turns_and_tool_calls() {
    let text = logged_run(FmtSpan::CLOSE).await;
    let lines: Vec<&str> = text.lines().collect();
    let closed = |span: &str| {
        lines
            .iter()
            .filter(|l| l.contains(span) && l.contains("close"))
            .count()
    };
    assert_eq!(closed("chat{"), 2, "a line per turn:\n{text}");
    assert_eq!(closed("execute_tool{"), 1, "a line per tool call:\n{text}");
    assert!(
        text.contains("gen_ai.tool.name=\"add\"")
            && text.contains("gen_ai.tool.call.id=\"call_1\""),
        "the call's tool and id:\n{text}"
    );
    assert!(closed("invoke_agent{") >= 1, "a line for the run:\n{text}");
}

#[tokio::test(flavor = "current_thread")]
async fn without_span_events_info_still_shows_each_reply_and_tool_result() {
    let text = logged_run(FmtSpan::NONE).await;
    let count = |message: &str| text.lines().filter(|l| l.contains(message)).count();
    assert_eq!(count("model replied"), 2, "a line per model reply:\n{text}");
    assert_eq!(count("tool finished"), 1, "a line per tool result:\n{text}");
    assert!(
        text.contains("tool_calls=1") && text.contains("is_error=false"),
        "what the reply and the result were:\n{text}"
    );
}

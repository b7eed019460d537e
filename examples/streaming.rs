//! A streamed run: the model's text printed as it is written, each tool call as its arguments
//! arrive, each tool as it runs.
//!
//! Run: `cargo run --example streaming [question]`
//!
//! The model is chosen from the environment as in `custom-tool` (`PHI_PROVIDER`, else the first
//! of `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY` that is set; see
//! `examples/provider.rs`). With none of them it runs offline on a scripted model that streams
//! in small pieces, and says so.

use std::io::Write;

use async_trait::async_trait;
use phi_agent::llm::{LlmRequest, LlmResponse, Message, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentResult, PhiAgent, StreamEvent, ToolContext, TypedTool, base_agent_builder,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
struct WordCountArgs {
    /// The text whose words to count
    text: String,
}

/// Counts words, so the model need not.
struct WordCount;

#[async_trait]
impl TypedTool for WordCount {
    type Args = WordCountArgs;
    type Output = usize;

    fn name(&self) -> &'static str {
        "word_count"
    }

    fn description(&self) -> &'static str {
        "Count the words of a text"
    }

    async fn call_typed(&self, args: WordCountArgs, _ctx: &ToolContext) -> AgentResult<usize> {
        Ok(args.text.split_whitespace().count())
    }
}

const QUESTION: &str =
    "How many words are in \"the quick brown fox\" and in \"jumps over the lazy dog\"?";

/// The offline model: asks for both counts, then answers from the results it reads back. It
/// streams its text and arguments in pieces of four characters, as a provider would.
fn scripted_model() -> ScriptedLlm {
    ScriptedLlm::from_fn(|request: &LlmRequest| {
        let results: Vec<String> = request
            .messages
            .iter()
            .filter_map(|message| match message {
                Message::Tool { content, .. } => content.first().map(|c| c.to_model_text()),
                _ => None,
            })
            .collect();
        Ok(match results.as_slice() {
            [first, second, ..] => LlmResponse::text(format!(
                "The first text has {first} words and the second has {second}."
            )),
            _ => {
                let mut reply = LlmResponse::tool_calls(vec![
                    ToolCall::new(
                        "call_1",
                        "word_count",
                        json!({"text": "the quick brown fox"}),
                    ),
                    ToolCall::new(
                        "call_2",
                        "word_count",
                        json!({"text": "jumps over the lazy dog"}),
                    ),
                ]);
                reply.text = "Let me count both.".into();
                reply
            }
        })
    })
    .with_pieces(4)
}

#[tokio::main]
async fn main() -> AgentResult<()> {
    let question = std::env::args()
        .nth(1)
        .unwrap_or_else(|| QUESTION.to_string());
    let (llm, mode) =
        phi_agent_examples::choose_model(scripted_model, "a scripted model streams the answer")?;
    println!("{mode}");
    println!("question: {question}");

    let builder = base_agent_builder(llm)
        .system_prompt("You are a careful assistant. Use word_count for every count.")
        .register_tool(WordCount);
    let agent = PhiAgent::build(builder, AgentConfig::default())?;

    let mut events = agent.run_stream(question);
    let mut out = std::io::stdout();
    // Whether the cursor is in the middle of a line of streamed text or arguments.
    let mut open_line = false;
    while let Some(event) = events.next().await {
        let event = match event {
            Ok(event) => event,
            Err(error) => {
                eprintln!("\nthe run failed: {error}");
                std::process::exit(1);
            }
        };
        // Printing to stdout fails only when it is closed; nothing is left to tell then.
        match event {
            StreamEvent::TextDelta { text, .. } => {
                let _ = write!(out, "{text}");
                open_line = true;
            }
            StreamEvent::ToolCallStarted { name, id, .. } => {
                let lead = if open_line { "\n" } else { "" };
                let _ = write!(out, "{lead}  call {name} [{id}] ");
                open_line = true;
            }
            StreamEvent::ToolArgumentsDelta { fragment, .. } => {
                let _ = write!(out, "{fragment}");
            }
            StreamEvent::ToolStarted { call, .. } => {
                if std::mem::take(&mut open_line) {
                    let _ = writeln!(out);
                }
                let _ = writeln!(out, "  -> {}({})", call.name, call.arguments);
            }
            StreamEvent::ToolFinished {
                call,
                result,
                duration,
                ..
            } => {
                let status = if result.is_error { "error" } else { "ok" };
                let text = result.to_model_text();
                let _ = writeln!(out, "  <- {} {status}: {text} ({duration:?})", call.name);
            }
            StreamEvent::TurnFinished { turn, usage } => {
                if std::mem::take(&mut open_line) {
                    let _ = writeln!(out);
                }
                let _ = writeln!(
                    out,
                    "[turn {turn} done; {}]",
                    phi_agent_examples::tokens(usage)
                );
            }
            StreamEvent::Finished(output) => {
                let _ = writeln!(out, "answer: {}", output.text);
            }
            _ => {}
        }
        let _ = out.flush();
    }
    Ok(())
}

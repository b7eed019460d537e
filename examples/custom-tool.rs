//! The calculator agent from the reference page, end to end.
//!
//! Run: `cargo run --example custom-tool [question]`
//!
//! The model is chosen from the environment (`phi_agent_examples::choose_provider`, in
//! `examples/provider.rs`):
//!
//! - `PHI_PROVIDER` names one outright: `openai`, `openai-responses`, `anthropic`, `gemini` or
//!   `offline`; its key must then be set.
//! - Otherwise the first of `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY` that is set
//!   wins, in that order:
//!   - OpenAI, or any compatible server (`OPENAI_BASE_URL`, ending in `/v1`; `OPENAI_MODEL`),
//!     through chat completions, or through the Responses API with `OPENAI_API=responses`;
//!   - Anthropic (`ANTHROPIC_BASE_URL`, `ANTHROPIC_MODEL`);
//!   - Gemini (`GEMINI_BASE_URL`, `GEMINI_MODEL`).
//! - With none of them it runs offline on a scripted model and says so.
//!
//! Every turn, tool call, result and duration is printed as it happens.

use async_trait::async_trait;
use phi_agent::llm::{LlmRequest, LlmResponse, Message, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentError, AgentEvent, AgentResult, PhiAgent, ToolContext, TypedTool,
    base_agent_builder,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// An arithmetic operation.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Op {
    Add,
    Subtract,
    Multiply,
    Divide,
}

#[derive(Deserialize, JsonSchema)]
struct CalculatorArgs {
    /// Left operand
    a: f64,
    /// Right operand
    b: f64,
    /// The operation to apply
    op: Op,
}

/// Exact arithmetic so the model does not have to guess.
struct Calculator;

#[async_trait]
impl TypedTool for Calculator {
    type Args = CalculatorArgs;
    type Output = f64;

    fn name(&self) -> &'static str {
        "calculator"
    }

    fn description(&self) -> &'static str {
        "Apply add, subtract, multiply or divide to two numbers"
    }

    async fn call_typed(&self, args: CalculatorArgs, _ctx: &ToolContext) -> AgentResult<f64> {
        match args.op {
            Op::Add => Ok(args.a + args.b),
            Op::Subtract => Ok(args.a - args.b),
            Op::Multiply => Ok(args.a * args.b),
            Op::Divide if args.b == 0.0 => {
                Err(AgentError::tool("division by zero; use a non-zero divisor"))
            }
            Op::Divide => Ok(args.a / args.b),
        }
    }
}

const QUESTION: &str = "What is 6 times 7, and what is 2 plus 3?";

/// The offline model: asks for both calculations, then answers from the tool results it reads
/// back in the request.
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
            [] => LlmResponse::tool_calls(vec![
                ToolCall::new(
                    "call_1",
                    "calculator",
                    json!({"a": 6, "b": 7, "op": "multiply"}),
                ),
                ToolCall::new("call_2", "calculator", json!({"a": 2, "b": 3, "op": "add"})),
            ]),
            [product, sum, ..] => {
                LlmResponse::text(format!("6 times 7 is {product}, and 2 plus 3 is {sum}."))
            }
            [only] => LlmResponse::text(format!("The result is {only}.")),
        })
    })
}

fn print_event(event: &AgentEvent<'_>) {
    match event {
        AgentEvent::TurnStarted { turn, tools, .. } => {
            let names: Vec<_> = tools.iter().map(|tool| tool.name).collect();
            println!(
                "turn {turn}: asking the model (tools: {})",
                names.join(", ")
            );
        }
        AgentEvent::ModelReplied { response, .. } if !response.tool_calls.is_empty() => {
            println!(
                "  model asks for {} tool call(s)",
                response.tool_calls.len()
            );
        }
        AgentEvent::ToolStarted { call, .. } => {
            println!("  -> {}({})", call.name, call.arguments);
        }
        AgentEvent::ToolFinished {
            call,
            result,
            duration,
            ..
        } => {
            let status = if result.is_error { "error" } else { "ok" };
            println!(
                "  <- {} [{}] {status}: {} ({duration:?})",
                call.name,
                call.id,
                result.to_model_text()
            );
        }
        AgentEvent::Finished { turns, usage, .. } => println!(
            "finished after {turns} turn(s); {}",
            phi_agent_examples::tokens(*usage)
        ),
        _ => {}
    }
}

#[tokio::main]
async fn main() -> AgentResult<()> {
    let question = std::env::args()
        .nth(1)
        .unwrap_or_else(|| QUESTION.to_string());
    let (llm, mode) = phi_agent_examples::choose_model(scripted_model, "a scripted model answers")?;
    println!("{mode}");
    println!("question: {question}");

    let builder = base_agent_builder(llm)
        .system_prompt("You are a careful assistant. Use the calculator for every arithmetic step.")
        .register_tool(Calculator)
        .observer(print_event);
    let agent = PhiAgent::build(builder, AgentConfig::default())?;

    match agent.run(question).await {
        Ok(output) => {
            println!("answer: {}", output.text);
            Ok(())
        }
        Err(error) => {
            eprintln!("the run failed: {error}");
            std::process::exit(1);
        }
    }
}

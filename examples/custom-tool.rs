//! The calculator agent from the reference page, end to end.
//!
//! Run: `cargo run --example custom-tool [question]`
//!
//! The model is chosen from the environment ([`choose_provider`]):
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

use std::sync::Arc;

use async_trait::async_trait;
use phi_agent::llm::{
    AnthropicClient, GeminiClient, LlmClient, LlmRequest, LlmResponse, Message, OpenAiClient,
    ResponsesClient, ScriptedLlm, ToolCall,
};
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

/// The model the example talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Provider {
    OpenAiChat,
    OpenAiResponses,
    Anthropic,
    Gemini,
    Offline,
}

/// Chooses the model from the environment, read through `get`; blank values count as unset.
///
/// Precedence: `PHI_PROVIDER` when set; otherwise the first of `OPENAI_API_KEY`,
/// `ANTHROPIC_API_KEY` and `GEMINI_API_KEY` that is set (OpenAI through the Responses API when
/// `OPENAI_API=responses`); otherwise offline. A value it does not know is an error, not a guess.
fn choose_provider(get: impl Fn(&str) -> Option<String>) -> Result<Provider, String> {
    let get = |name: &str| get(name).filter(|value| !value.trim().is_empty());
    let openai = || match get(ResponsesClient::API_VARIABLE).as_deref().map(str::trim) {
        None | Some("chat") => Ok(Provider::OpenAiChat),
        Some("responses") => Ok(Provider::OpenAiResponses),
        Some(other) => Err(format!(
            "OPENAI_API is `{other}`; use `chat` (chat completions) or `responses` (the Responses API)"
        )),
    };
    if let Some(name) = get("PHI_PROVIDER") {
        return match name.trim() {
            "openai" => openai(),
            "openai-responses" => Ok(Provider::OpenAiResponses),
            "anthropic" => Ok(Provider::Anthropic),
            "gemini" => Ok(Provider::Gemini),
            "offline" => Ok(Provider::Offline),
            other => Err(format!(
                "PHI_PROVIDER is `{other}`; use openai, openai-responses, anthropic, gemini or offline"
            )),
        };
    }
    if get("OPENAI_API_KEY").is_some() {
        openai()
    } else if get("ANTHROPIC_API_KEY").is_some() {
        Ok(Provider::Anthropic)
    } else if get("GEMINI_API_KEY").is_some() {
        Ok(Provider::Gemini)
    } else {
        Ok(Provider::Offline)
    }
}

/// The model to use, and a line that says which one it is.
fn choose_model() -> AgentResult<(Arc<dyn LlmClient>, String)> {
    let provider = choose_provider(|name| std::env::var(name).ok()).map_err(AgentError::Config)?;
    Ok(match provider {
        Provider::OpenAiChat => {
            let client = OpenAiClient::from_env()?;
            let line = format!(
                "online: OpenAI-compatible API at {}, model {}",
                client.base_url(),
                client.model()
            );
            (Arc::new(client), line)
        }
        Provider::OpenAiResponses => {
            let client = ResponsesClient::from_env()?;
            let line = format!(
                "online: OpenAI Responses API at {}, model {}",
                client.base_url(),
                client.model()
            );
            (Arc::new(client), line)
        }
        Provider::Anthropic => {
            let client = AnthropicClient::from_env()?;
            let line = format!(
                "online: Anthropic API at {}, model {}",
                client.base_url(),
                client.model()
            );
            (Arc::new(client), line)
        }
        Provider::Gemini => {
            let client = GeminiClient::from_env()?;
            let line = format!(
                "online: Gemini API at {}, model {}",
                client.base_url(),
                client.model()
            );
            (Arc::new(client), line)
        }
        Provider::Offline => {
            let line = "offline: none of OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY is \
                        set, so a scripted model answers (no network calls)"
                .to_string();
            (Arc::new(scripted_model()), line)
        }
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
            "finished after {turns} turn(s); tokens in/out: {}/{}",
            usage.input_tokens, usage.output_tokens
        ),
        _ => {}
    }
}

#[tokio::main]
async fn main() -> AgentResult<()> {
    let question = std::env::args()
        .nth(1)
        .unwrap_or_else(|| QUESTION.to_string());
    let (llm, mode) = choose_model()?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn choose(pairs: &[(&str, &str)]) -> Result<Provider, String> {
        choose_provider(|name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        })
    }

    #[test]
    fn the_first_key_set_wins_in_a_fixed_order() {
        let all = [
            ("OPENAI_API_KEY", "sk"),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("GEMINI_API_KEY", "AIza"),
        ];
        assert_eq!(choose(&all), Ok(Provider::OpenAiChat));
        assert_eq!(choose(&all[1..]), Ok(Provider::Anthropic));
        assert_eq!(choose(&all[2..]), Ok(Provider::Gemini));
        assert_eq!(choose(&[]), Ok(Provider::Offline));
        assert_eq!(
            choose(&[("OPENAI_API_KEY", " "), ("GEMINI_API_KEY", "AIza")]),
            Ok(Provider::Gemini),
            "a blank key is unset"
        );
    }

    #[test]
    fn openai_api_chooses_between_openais_two_apis() {
        let key = ("OPENAI_API_KEY", "sk");
        assert_eq!(
            choose(&[key, ("OPENAI_API", "responses")]),
            Ok(Provider::OpenAiResponses)
        );
        assert_eq!(
            choose(&[key, ("OPENAI_API", "chat")]),
            Ok(Provider::OpenAiChat)
        );
        let error = choose(&[key, ("OPENAI_API", "completions")]).unwrap_err();
        assert!(error.contains("`completions`"), "{error}");
        assert_eq!(
            choose(&[("ANTHROPIC_API_KEY", "k"), ("OPENAI_API", "responses")]),
            Ok(Provider::Anthropic),
            "OPENAI_API alone chooses no provider"
        );
    }

    #[test]
    fn phi_provider_overrides_the_keys() {
        let all = [
            ("OPENAI_API_KEY", "sk"),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("GEMINI_API_KEY", "AIza"),
        ];
        for (name, expected) in [
            ("gemini", Provider::Gemini),
            ("anthropic", Provider::Anthropic),
            ("openai", Provider::OpenAiChat),
            ("openai-responses", Provider::OpenAiResponses),
            ("offline", Provider::Offline),
        ] {
            let mut pairs = all.to_vec();
            pairs.push(("PHI_PROVIDER", name));
            assert_eq!(choose(&pairs), Ok(expected), "{name}");
        }
        let error = choose(&[("PHI_PROVIDER", "gpt")]).unwrap_err();
        assert!(error.contains("PHI_PROVIDER is `gpt`"), "{error}");
    }
}

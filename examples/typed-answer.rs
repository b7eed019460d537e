//! A typed answer: the agent looks things up with a tool, then answers with a Rust value
//! (`agent.prompt(question).typed::<TripPlan>()`), not with text to parse.
//!
//! Run: `cargo run --example typed-answer [question]`
//!
//! The model is chosen from the environment as in `custom-tool` (`PHI_PROVIDER`, else the first
//! of `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, `GEMINI_API_KEY` that is set; see
//! `examples/provider.rs`). `PHI_ANSWER_MODE=native` asks for the answer through the provider's
//! structured output on a last turn without tools (OpenAI chat completions and Responses),
//! instead of the final-answer tool.
//!
//! With none of them it runs offline on a scripted model, and says so. That model first answers
//! with a mistake (a missing field and a temperature given as text), reads the mistakes the run
//! sends back, and fixes them.

use async_trait::async_trait;
use phi_agent::llm::{LlmRequest, LlmResponse, Message, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentResult, AnswerMode, AnswerOptions, PhiAgent, ToolContext, TypedTool,
    base_agent_builder,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// The answer the program wants: its fields are what the model must fill.
#[derive(Debug, Deserialize, JsonSchema)]
struct TripPlan {
    /// The city to go to.
    city: String,
    /// The expected high, in degrees Celsius.
    high_celsius: i32,
    /// What to pack, a few items.
    pack: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
struct ForecastArgs {
    /// The city
    city: String,
}

/// A fixed forecast, so the example needs no weather service.
struct Forecast;

#[async_trait]
impl TypedTool for Forecast {
    type Args = ForecastArgs;
    type Output = String;

    fn name(&self) -> &'static str {
        "forecast"
    }

    fn description(&self) -> &'static str {
        "Tomorrow's weather in a city"
    }

    async fn call_typed(&self, args: ForecastArgs, _ctx: &ToolContext) -> AgentResult<String> {
        Ok(format!("{}: high 24 C, sunny, light wind", args.city))
    }
}

const QUESTION: &str = "I'm going to Lisbon tomorrow. Plan what to pack.";

/// The offline model: checks the forecast, answers with two mistakes, then fixes them once it
/// reads the refusal.
fn scripted_model() -> ScriptedLlm {
    ScriptedLlm::from_fn(|request: &LlmRequest| {
        let refused = request.messages.iter().any(|message| {
            matches!(message, Message::Tool { is_error: true, name, .. } if name == "final_answer")
        });
        let forecast_read = request
            .messages
            .iter()
            .any(|message| matches!(message, Message::Tool { name, .. } if name == "forecast"));
        let call = |id: &str, name: &str, arguments| {
            LlmResponse::tool_calls(vec![ToolCall::new(id, name, arguments)])
        };
        Ok(if refused {
            call(
                "answer_2",
                "final_answer",
                json!({"city": "Lisbon", "high_celsius": 24, "pack": ["sunglasses", "light jacket"]}),
            )
        } else if forecast_read {
            call(
                "answer_1",
                "final_answer",
                json!({"city": "Lisbon", "high_celsius": "24 C"}),
            )
        } else {
            call("call_1", "forecast", json!({"city": "Lisbon"}))
        })
    })
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
        .system_prompt("You plan trips. Check the forecast before you answer.")
        .register_tool(Forecast);
    let agent = PhiAgent::build(builder, AgentConfig::default())?;
    let mut options = AnswerOptions::default();
    if std::env::var("PHI_ANSWER_MODE").is_ok_and(|mode| mode == "native") {
        options = options.with_mode(AnswerMode::Native);
    }

    let answer = match agent
        .prompt(question)
        .typed::<TripPlan>()
        .options(options)
        .await
    {
        Ok(answer) => answer,
        Err(error) => {
            eprintln!("the run failed: {error}");
            std::process::exit(1);
        }
    };
    for record in &answer.run.tool_calls {
        let status = if record.is_error { "refused" } else { "ok" };
        let result: Vec<String> = record.result.iter().map(|c| c.to_model_text()).collect();
        println!(
            "  {} {} -> {status}: {}",
            record.name,
            record.arguments,
            result.join(" ")
        );
    }
    let plan = answer.value;
    println!(
        "plan ({} turns): {}, high {} C, pack: {}",
        answer.run.turns,
        plan.city,
        plan.high_celsius,
        plan.pack.join(", ")
    );
    Ok(())
}

//! Tools written as plain functions with `#[phi_tool]`, collected with `tools![]` and driven
//! through the registry the way the agent loop drives them.
//!
//! Run: `cargo run --example macro-tools`

use phi_agent::registry::ToolRegistry;
use phi_agent::{
    ActivationContext, AgentError, AgentResult, ToolConfig, ToolContext, phi_tool, tools,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Temperature units.
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Units {
    Celsius,
    Fahrenheit,
}

/// Get the current weather for a city.
///
/// Answers with one line of text.
#[phi_tool(timeout = 5_000, read_only, open_world, requirements = ["network"])]
async fn get_weather(
    /// City name, e.g. "Beijing"
    city: String,
    /// Temperature units; Celsius when absent
    units: Option<Units>,
) -> AgentResult<String> {
    // A real tool would call a weather API here.
    let (value, unit) = match units.unwrap_or(Units::Celsius) {
        Units::Celsius => (22, "°C"),
        Units::Fahrenheit => (72, "°F"),
    };
    Ok(format!("Weather in {city}: {value}{unit}, sunny"))
}

/// The result of a calculation.
#[derive(Serialize, schemars::JsonSchema)]
struct Calculation {
    /// The expression, as evaluated
    expression: String,
    /// Its value
    value: f64,
}

/// Apply `+`, `-`, `*` or `/` to two numbers, exactly.
///
/// Runs on the blocking pool: a plain `fn` never stalls the async workers.
#[phi_tool(name = "calculator", read_only, idempotent)]
fn calculate(
    /// Left operand
    a: f64,
    /// One of `+`, `-`, `*`, `/`
    op: String,
    /// Right operand
    b: f64,
) -> Result<Calculation, String> {
    let value = match op.as_str() {
        "+" => a + b,
        "-" => a - b,
        "*" => a * b,
        "/" if b == 0.0 => return Err("division by zero; use a non-zero divisor".into()),
        "/" => a / b,
        other => return Err(format!("unknown operator `{other}`; use one of + - * /")),
    };
    Ok(Calculation {
        expression: format!("{a} {op} {b}"),
        value,
    })
}

/// Convert an amount between currencies at today's rate.
///
/// Shown to the model once the calculator is active.
#[phi_tool(exposure = "deferred", requires_tools = ["calculator"])]
async fn convert_currency(
    /// Amount to convert
    amount: f64,
    /// ISO code of the source currency
    #[phi(default = String::from("USD"))]
    from: String,
    /// ISO code of the target currency
    to: String,
) -> AgentResult<String> {
    let rate = if from == to { 1.0 } else { 0.9 };
    Ok(format!("{amount} {from} = {:.2} {to}", amount * rate))
}

/// Forget everything cached for this session. Called by the program, never by the model.
#[phi_tool(exposure = "hidden", destructive)]
async fn clear_cache(ctx: &ToolContext) -> &'static str {
    if ctx.is_cancelled() {
        "cancelled"
    } else {
        "cache cleared"
    }
}

#[tokio::main]
async fn main() -> AgentResult<()> {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register_all(tools![
        get_weather,
        calculate,
        convert_currency,
        clear_cache
    ])?;

    let active = registry.visible_tools(&ActivationContext::default()).await;
    println!("The model sees {} tool(s):", active.names().len());
    for tool in registry.visible(&active) {
        println!("\n{} ({:?})", tool.name(), tool.exposure());
        println!("  description: {}", tool.description());
        println!("  parameters: {}", tool.schema());
    }

    let ctx = ToolContext::default();
    let calls = [
        (
            "get_weather",
            json!({"city": "Beijing", "units": "fahrenheit"}),
        ),
        ("calculator", json!({"a": 6, "op": "*", "b": 7})),
        ("calculator", json!({"a": 1, "op": "/", "b": 0})),
        ("convert_currency", json!({"amount": 10, "to": "EUR"})),
        ("clear_cache", json!({})),
    ];
    for (name, args) in calls {
        let result = registry.dispatch(&active, name, &args, &ctx).await;
        let status = if result.is_error { "error" } else { "ok" };
        println!("\n{name}({args}) -> {status}: {}", result.to_model_text());
    }

    let internal = registry
        .call_internal("clear_cache", &json!({}), &ctx)
        .await;
    println!(
        "\nprogram calls clear_cache -> {}",
        internal.to_model_text()
    );
    if internal.is_error {
        return Err(AgentError::tool(
            "the hidden tool should run for the program",
        ));
    }
    Ok(())
}

//! A crate that depends on phi-agent and tokio only: serde and schemars are never named.

use phi_agent::{AgentResult, Tool, ToolContext, phi_tool, tools};

/// Get current weather for a city.
///
/// Returns a one-line **summary**.
#[phi_tool(timeout = 30_000)]
pub async fn get_weather(
    /// City name, e.g. "Beijing"
    city: String,
    /// Days ahead
    #[phi(default = 3)]
    days: u8,
    units: Option<String>,
    ctx: &ToolContext,
) -> AgentResult<String> {
    Ok(format!("{city} in {days} days ({units:?}), session `{}`", ctx.session_id()))
}

/// Add two numbers.
#[phi_tool(read_only, idempotent = true)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[tokio::main]
async fn main() {
    let tools = tools![get_weather, add];
    assert_eq!(tools.len(), 2);
    let schema = tools[0].schema();
    assert_eq!(schema["properties"]["city"]["description"], "City name, e.g. \"Beijing\"");
    assert_eq!(schema["properties"]["days"]["default"], 3);
    assert_eq!(schema["required"], phi_agent::__private::serde_json::json!(["city"]));
    assert_eq!(tools[0].description(), "Get current weather for a city.\n\nReturns a one-line **summary**.");
    assert_eq!(tools[0].timeout_ms(), Some(30_000));
    assert_eq!(tools[1].options().annotations.read_only, Some(true));
    let ctx = ToolContext::default();
    let out = tools[1]
        .call(&phi_agent::__private::serde_json::json!({"a": 2, "b": 3}), &ctx)
        .await
        .unwrap();
    assert_eq!(format!("{out:?}"), format!("{:?}", vec![phi_agent::Content::json(5.into())]));
    // The fn stays callable as written.
    assert_eq!(add(1, 2), 3);
    let _: AgentResult<String> = get_weather("x".into(), 1, None, &ctx).await;
    assert_eq!(GetWeather::NAME, "get_weather");
    let _ = <Add as Tool>::metadata(&Add);
}

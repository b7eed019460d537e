//! A plain `fn` runs on the blocking pool; its panic comes back as an error result.

use phi_agent::registry::ToolRegistry;
use phi_agent::{ActivationContext, ToolConfig, ToolContext, phi_tool, tools};

/// Return the name of the thread the tool runs on.
#[phi_tool]
fn thread_name() -> String {
    std::thread::current().name().unwrap_or("unnamed").to_string()
}

/// Divide two integers.
#[phi_tool]
fn divide(a: i64, b: i64) -> i64 {
    a / b // panics on zero, on purpose
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register_all(tools![thread_name, divide, parse]).unwrap();
    let active = registry.visible_tools(&ActivationContext::default()).await;
    let ctx = ToolContext::default();
    let args = phi_agent::__private::serde_json::json!({});
    let name = registry.dispatch(&active, "thread_name", &args, &ctx).await;
    assert!(!name.is_error);
    // The current-thread runtime's worker is `main`; blocking-pool threads are named by tokio.
    assert_ne!(name.to_model_text(), "main");

    let zero = phi_agent::__private::serde_json::json!({"a": 1, "b": 0});
    let result = registry.dispatch(&active, "divide", &zero, &ctx).await;
    assert!(result.is_error);
    assert!(result.to_model_text().contains("panicked"), "{}", result.to_model_text());
    let ok = phi_agent::__private::serde_json::json!({"a": 9, "b": 3});
    assert_eq!(registry.dispatch(&active, "divide", &ok, &ctx).await.to_model_text(), "3");

    let bad = phi_agent::__private::serde_json::json!({"text": "seven"});
    let parsed = registry.dispatch(&active, "parse", &bad, &ctx).await;
    assert!(parsed.is_error);
    assert_eq!(parsed.to_model_text(), "invalid digit found in string");
}

/// Parse a number; the error type need not be `Send`.
#[phi_tool]
fn parse(text: String) -> Result<i64, Box<dyn std::error::Error>> {
    Ok(text.trim().parse::<i64>()?)
}

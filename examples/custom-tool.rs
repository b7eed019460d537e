//! The calculator from the reference page, driven through the registry the way the agent loop
//! drives it: what the model sees, then a few calls the model might make.
//!
//! Run: `cargo run --example custom-tool`

use async_trait::async_trait;
use phi_agent::registry::ToolRegistry;
use phi_agent::{ActivationContext, AgentError, AgentResult, ToolConfig, ToolContext, TypedTool};
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

#[tokio::main]
async fn main() -> AgentResult<()> {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Calculator)?;
    let active = registry.visible_tools(&ActivationContext::default()).await;

    println!("The model sees {} tool(s):", active.names().len());
    for tool in registry.visible(&active) {
        println!("  {}: {}", tool.name(), tool.description());
        println!("  parameters: {}", tool.schema());
    }

    let calls = [
        json!({"a": 6, "b": 7, "op": "multiply"}),
        json!({"a": 1, "b": 0, "op": "divide"}),
        json!({"a": 1, "op": "power"}),
    ];
    for args in calls {
        let result = registry
            .dispatch(&active, "calculator", &args, &ToolContext::default())
            .await;
        let status = if result.is_error { "error" } else { "ok" };
        println!(
            "\ncalculator({args}) -> {status}: {}",
            result.to_model_text()
        );
    }
    Ok(())
}

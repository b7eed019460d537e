//! An MCP server with four tools: `calculator`, `get_weather` and `import_rows` are listed
//! (`import_rows` reports progress and writes log messages while it runs, and runs as an MCP
//! task for clients that ask for one); `audit_log` is
//! Hidden, so MCP clients neither see nor may call it (the program itself still can). It also
//! serves a resource (`example://units`), a view of `get_weather`'s reports (MCP Apps:
//! `ui://weather/card`, `examples/views/weather-card.html`) and a prompt (`weather_report`).
//!
//! Run over stdio (what Claude Desktop, Cursor and the MCP Inspector launch):
//!     cargo run -p phi-agent --example mcp-server --features mcp
//! or over streamable HTTP on loopback, optionally with a bearer token:
//!     PHI_MCP_TOKEN=s3cret cargo run -p phi-agent --example mcp-server --features mcp -- --http 127.0.0.1:8808
//! Over HTTP, `PHI_MCP_MAX_SESSIONS` (default 1000) and `PHI_MCP_SESSION_IDLE_SECS` (default
//! 1800) bound the sessions, `PHI_MCP_STATELESS=1` serves without sessions, and
//! `PHI_MCP_ALLOWED_ORIGINS` (comma-separated, e.g. `http://localhost:6274`) allows browser
//! pages on other origins than the server's own.
//!
//! stdout carries the protocol: everything else goes to stderr.

use async_trait::async_trait;
use phi_agent::mcp::{HttpOptions, McpServer, Prompt, PromptMessage, Resource};
use phi_agent::registry::ToolRegistry;
use phi_agent::{
    AgentError, AgentResult, LogLevel, TaskSupport, ToolAnnotations, ToolConfig, ToolContext,
    ToolExposure, ToolOptions, TypedTool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

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

    fn options(&self) -> ToolOptions {
        ToolOptions::default().with_annotations(
            ToolAnnotations::default()
                .with_read_only(true)
                .with_idempotent(true)
                .with_open_world(false),
        )
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

#[derive(Deserialize, JsonSchema)]
struct WeatherArgs {
    /// City name, e.g. "Beijing"
    city: String,
}

/// Current weather in a city.
#[derive(Serialize, JsonSchema)]
struct WeatherReport {
    /// The city asked about
    city: String,
    /// Temperature in degrees Celsius
    temperature_c: f64,
    /// Sky conditions, e.g. "sunny"
    conditions: String,
}

/// The view of `get_weather`'s reports (MCP Apps): a card a host renders beside the call.
const WEATHER_CARD: &str = "ui://weather/card";

/// Weather from a fixed table, so the example runs offline and answers the same every time.
struct GetWeather;

#[async_trait]
impl TypedTool for GetWeather {
    type Args = WeatherArgs;
    type Output = WeatherReport;

    fn name(&self) -> &'static str {
        "get_weather"
    }

    fn description(&self) -> &'static str {
        "Get the current weather for a city"
    }

    fn options(&self) -> ToolOptions {
        ToolOptions::default()
            .with_annotations(
                ToolAnnotations::default()
                    .with_read_only(true)
                    .with_open_world(true),
            )
            .with_output_schema(phi_agent::schema::canonical_schema_for::<WeatherReport>())
            // Hosts that render MCP Apps show the report in this view (served in `run`).
            .with_ui_resource(WEATHER_CARD)
    }

    async fn call_typed(
        &self,
        args: WeatherArgs,
        _ctx: &ToolContext,
    ) -> AgentResult<WeatherReport> {
        let (temperature_c, conditions) = match args.city.to_lowercase().as_str() {
            "beijing" => (21.0, "sunny"),
            "london" => (12.5, "light rain"),
            "paris" => (16.0, "cloudy"),
            _ => {
                return Err(AgentError::tool(format!(
                    "no weather data for `{}`; try Beijing, London or Paris",
                    args.city
                )));
            }
        };
        Ok(WeatherReport {
            city: args.city,
            temperature_c,
            conditions: conditions.to_string(),
        })
    }
}

#[derive(Deserialize, JsonSchema)]
struct AuditArgs {
    /// How many entries to return
    limit: u32,
}

/// An operator-only tool: registered, but Hidden from every MCP client and model.
struct AuditLog;

#[async_trait]
impl TypedTool for AuditLog {
    type Args = AuditArgs;
    type Output = String;

    fn name(&self) -> &'static str {
        "audit_log"
    }

    fn description(&self) -> &'static str {
        "Read the server's audit log (operators only)"
    }

    fn exposure(&self) -> ToolExposure {
        ToolExposure::Hidden
    }

    async fn call_typed(&self, args: AuditArgs, _ctx: &ToolContext) -> AgentResult<String> {
        Ok(format!("{} audit entries (none recorded)", args.limit))
    }
}

#[derive(Deserialize, JsonSchema)]
struct ImportArgs {
    /// How many rows to import (at most 20)
    rows: u8,
}

/// A long task that says how far it got: progress for clients that extend their timeout on
/// it, and a log line per row.
struct ImportRows;

#[async_trait]
impl TypedTool for ImportRows {
    type Args = ImportArgs;
    type Output = String;

    fn name(&self) -> &'static str {
        "import_rows"
    }

    fn description(&self) -> &'static str {
        "Import rows into the example table, reporting progress"
    }

    /// A client that declares MCP's tasks extension gets the call as a task to poll (the
    /// progress is then the task's status message); others wait for the result.
    fn options(&self) -> ToolOptions {
        ToolOptions::default().with_task_support(TaskSupport::Optional)
    }

    async fn call_typed(&self, args: ImportArgs, ctx: &ToolContext) -> AgentResult<String> {
        let rows = args.rows.min(20);
        for row in 1..=rows {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            ctx.log(LogLevel::Info, format!("row {row} imported")).await;
            let message = format!("{row} of {rows} rows");
            ctx.progress(f64::from(row), Some(f64::from(rows)), Some(&message))
                .await;
        }
        Ok(format!("imported {rows} rows"))
    }
}

fn registry() -> AgentResult<ToolRegistry> {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(Calculator)?;
    registry.register(GetWeather)?;
    registry.register(ImportRows)?;
    registry.register(AuditLog)?;
    Ok(registry)
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-server: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run() -> AgentResult<()> {
    let server = McpServer::new(registry()?)
        .with_server_info("phi-agent-example", env!("CARGO_PKG_VERSION"))
        // Its first paragraph says what the tools are for: a client's tool search reads it.
        .with_instructions(
            "Arithmetic, weather reports and a row importer: phi-agent's example server.\n\n\
             Temperatures are in degrees Celsius (the units resource).",
        )
        .with_resource(
            Resource::text(
                "example://units",
                "units",
                "Temperatures are in degrees Celsius.",
            )
            .with_description("The units get_weather answers in"),
        )
        .with_app_view(
            Resource::app_view(
                WEATHER_CARD,
                "weather-card",
                include_str!("views/weather-card.html"),
            )
            .with_description("get_weather's report as a card")
            .with_meta(serde_json::json!({"ui": {"prefersBorder": true}})),
        )
        .with_prompt(
            Prompt::new("weather_report", |args| async move {
                Ok(vec![PromptMessage::user(format!(
                    "Write a short weather report for {}, using get_weather.",
                    args["city"]
                ))])
            })
            .with_description("Ask for a weather report")
            .with_argument("city", "The city to report on", true),
        );
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => server.serve_stdio().await,
        [flag, address] if flag == "--http" => {
            let address = address.parse().map_err(|error| {
                AgentError::Config(format!(
                    "`{address}` is not a socket address ({error}); use e.g. 127.0.0.1:8808"
                ))
            })?;
            let mut options = HttpOptions::default().with_bind(address);
            if let Ok(token) = std::env::var("PHI_MCP_TOKEN") {
                options = options.with_bearer_token(token);
            }
            if let Some(max) = env_number("PHI_MCP_MAX_SESSIONS")? {
                options = options.with_max_sessions(max as usize);
            }
            if let Some(seconds) = env_number("PHI_MCP_SESSION_IDLE_SECS")? {
                options =
                    options.with_session_idle_timeout(std::time::Duration::from_secs(seconds));
            }
            if std::env::var("PHI_MCP_STATELESS").is_ok_and(|value| value == "1") {
                options = options.with_stateless(true);
            }
            if let Ok(origins) = std::env::var("PHI_MCP_ALLOWED_ORIGINS") {
                for origin in origins.split(',').map(str::trim).filter(|o| !o.is_empty()) {
                    options = options.with_allowed_origin(origin);
                }
            }
            let http = server.serve_http(options).await?;
            eprintln!("MCP endpoint: {} (Ctrl-C to stop)", http.url());
            tokio::signal::ctrl_c()
                .await
                .map_err(|error| AgentError::Config(format!("cannot wait for Ctrl-C: {error}")))?;
            http.shutdown().await;
            Ok(())
        }
        _ => Err(AgentError::Config(
            "usage: mcp-server [--http <address>]".to_string(),
        )),
    }
}

/// A whole number from the environment variable `name`, if it is set.
fn env_number(name: &str) -> AgentResult<Option<u64>> {
    match std::env::var(name) {
        Err(_) => Ok(None),
        Ok(value) => value.trim().parse().map(Some).map_err(|error| {
            AgentError::Config(format!("{name}=`{value}` is not a whole number ({error})"))
        }),
    }
}

//! Every code snippet of "Custom Tools", the reference page our users wrote for this API (the
//! `Tool` trait, the weather tool by hand and typed, registering, exposure and activation), copied
//! here unchanged: the page is the API contract, and this file is where the repository keeps it.
//! The dependency is renamed `agent_base`, as on the page. Snippets that are fragments (a method,
//! an `impl` with `// ...`) sit inside the smallest scaffolding that makes them compile; scaffolding
//! lines are marked `// scaffolding`. Then the tools are called through the registry to check they
//! answer as the page says.

extern crate phi_agent as agent_base;

use std::sync::Arc;

use serde_json::json;

// --- "Example: Weather Tool" -------------------------------------------------------------------
#[rustfmt::skip]
mod weather_tool {
    use agent_base::{AgentResult, Content, Tool, ToolContext};
    use async_trait::async_trait;
    use serde_json::{Value, json};

    struct WeatherTool;

    #[async_trait]
    impl Tool for WeatherTool {
        fn name(&self) -> &'static str {
            "get_weather"
        }

        fn description(&self) -> &'static str {
            "Get current weather for a city"
        }

        fn schema(&self) -> Value {
            json!({
                "type": "object",
                "properties": {
                    "city": {
                        "type": "string",
                        "description": "City name, e.g. 'Beijing'"
                    }
                },
                "required": ["city"]
            })
        }

        async fn call(&self, args: &Value, _ctx: &ToolContext) -> AgentResult<Vec<Content>> {
            let city = args["city"].as_str().unwrap_or("unknown");
            // In production, call a real weather API here
            Ok(vec![Content::text(format!("Weather in {}: 22°C, sunny", city))])
        }
    }

    pub fn tool() -> impl Tool { WeatherTool } // scaffolding

    // --- "Registering" (the page's snippet, inside this module so it sees `WeatherTool`) ---
    pub mod registering {
        use super::WeatherTool; // scaffolding
        use crate::scaffolding::{NoModel, build_system_prompt}; // scaffolding
        use agent_base::{AgentConfig, AgentResult, PhiAgent, base_agent_builder}; // scaffolding

        #[allow(unused_variables)] // scaffolding
        pub fn register() -> AgentResult<PhiAgent> {
            let llm_client = NoModel; // scaffolding
            let config = AgentConfig::default(); // scaffolding

            let builder = base_agent_builder(llm_client)
                .system_prompt(build_system_prompt())
                .register_tool(WeatherTool);   // ← register here

            let agent = PhiAgent::build(builder, config)?;
            Ok(agent) // scaffolding
        }
    }
}

// --- "TypedTool — Schema from Types" -----------------------------------------------------------
#[rustfmt::skip]
mod typed_weather_tool {
    use agent_base::{AgentResult, Content, TypedTool, ToolContext};
    use async_trait::async_trait;
    use schemars::JsonSchema;
    use serde::Deserialize;

    #[allow(unused_imports)] // scaffolding: the page imports Content without using it
    use Content as _;

    #[derive(Deserialize, JsonSchema)]
    struct WeatherArgs {
        /// City name, e.g. "Beijing"
        city: String,
    }

    struct WeatherTool;

    #[async_trait]
    impl TypedTool for WeatherTool {
        type Args = WeatherArgs;
        type Output = String;  // String → Content::text directly; other types → JSON

        fn name(&self) -> &'static str { "get_weather" }
        fn description(&self) -> &'static str { "Get current weather for a city" }

        async fn call_typed(&self, args: WeatherArgs, _ctx: &ToolContext) -> AgentResult<String> {
            Ok(format!("Weather in {}: 22°C, sunny", args.city))
        }
    }

    pub fn tool() -> impl agent_base::Tool { WeatherTool } // scaffolding

    // --- "TypedTool implements Tool automatically — register it the same way" ---
    #[allow(unused_must_use)] // scaffolding: the page shows the call alone
    pub fn register_typed() -> AgentResult<agent_base::PhiAgent> {
        use agent_base::{AgentConfig, PhiAgent, base_agent_builder}; // scaffolding
        use crate::scaffolding::NoModel; // scaffolding
        let builder = base_agent_builder(NoModel); // scaffolding
        builder.register_tool(WeatherTool);
        let builder = base_agent_builder(NoModel).register_tool(WeatherTool); // scaffolding
        PhiAgent::build(builder, AgentConfig::default()) // scaffolding
    }
}

// --- Scaffolding shared by the snippets: a model that is never asked, a prompt -----------------
mod scaffolding {
    use agent_base::AgentResult;
    use agent_base::llm::{LlmClient, LlmRequest, LlmResponse};

    pub struct NoModel;

    #[async_trait::async_trait]
    impl LlmClient for NoModel {
        async fn complete(&self, _: &LlmRequest) -> AgentResult<LlmResponse> {
            Err(agent_base::AgentError::Config(
                "not used by this test".into(),
            ))
        }
    }

    pub fn build_system_prompt() -> String {
        "You report the weather.".to_string()
    }
}

// --- "Tool Exposure", "Metadata and Timeout", "Content" -----------------------------------------
#[rustfmt::skip]
mod exposure {
    use agent_base::{ActivationContext, AgentResult, Content, Tool, ToolContext, ToolMetadata}; // scaffolding
    use serde_json::{Value, json}; // scaffolding

    use agent_base::ToolExposure;

    pub struct MyTool; // scaffolding

    #[async_trait::async_trait] // scaffolding
    impl Tool for MyTool {
        // ...
        fn name(&self) -> &'static str { "file_summary" } // scaffolding
        fn description(&self) -> &'static str { "Summarize a file" } // scaffolding
        fn schema(&self) -> Value { json!({"type": "object", "properties": {}}) } // scaffolding
        async fn call(&self, _args: &Value, _ctx: &ToolContext) -> AgentResult<Vec<Content>> { // scaffolding
            Ok(vec![Content::text("Done")])
        } // scaffolding

        fn exposure(&self) -> ToolExposure {
            ToolExposure::Deferred  // only visible when should_activate returns true
        }

        async fn should_activate(&self, ctx: &ActivationContext) -> bool {
            // Activate only when a specific other tool is present
            ctx.current_tools.iter().any(|t| t == "file_read")
        }

        fn metadata(&self) -> ToolMetadata {
            ToolMetadata {
                name: self.name().to_string(),
                description: self.description().to_string(),
                origin: "phi-tools".to_string(),
                version: "0.2.0".to_string(),
                requirements: vec!["network".to_string()],
            }
        }

        fn timeout_ms(&self) -> Option<u64> {
            Some(30_000)  // 30 seconds
        }
    }
}

use agent_base::registry::ToolRegistry;
use agent_base::{ActivationContext, Content, Tool, ToolConfig, ToolContext, ToolExposure};

async fn call(
    tool: impl Tool + 'static,
    args: serde_json::Value,
) -> agent_base::registry::ToolCallResult {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register(tool).unwrap();
    let active = registry.visible_tools(&ActivationContext::default()).await;
    let name = registry.iter().next().unwrap().name();
    registry
        .dispatch(&active, name, &args, &ToolContext::default())
        .await
}

#[tokio::test]
async fn hand_written_weather_tool_answers_as_documented() {
    let result = call(weather_tool::tool(), json!({"city": "Beijing"})).await;
    assert!(!result.is_error);
    assert_eq!(
        result.content,
        vec![Content::text("Weather in Beijing: 22°C, sunny")]
    );
}

#[tokio::test]
async fn typed_weather_tool_answers_as_documented_and_derives_its_schema() {
    let result = call(typed_weather_tool::tool(), json!({"city": "Beijing"})).await;
    assert!(!result.is_error);
    assert_eq!(
        result.content,
        vec![Content::text("Weather in Beijing: 22°C, sunny")]
    );

    let schema = Tool::schema(&typed_weather_tool::tool());
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["city"]["type"], "string");
    assert_eq!(
        schema["properties"]["city"]["description"],
        "City name, e.g. \"Beijing\""
    );
    assert_eq!(schema["required"], json!(["city"]));

    let bad = call(typed_weather_tool::tool(), json!({"city": 7})).await;
    assert!(bad.is_error, "the typed tool validates its arguments");
    assert!(
        bad.to_model_text().contains("at `city`"),
        "{}",
        bad.to_model_text()
    );
}

#[test]
fn registering_builds_an_agent_with_the_tool() {
    let agent = weather_tool::registering::register().unwrap();
    assert_eq!(agent.system_prompt(), Some("You report the weather."));
    assert!(agent.registry().get("get_weather").is_some());
    let agent = typed_weather_tool::register_typed().unwrap();
    assert_eq!(agent.registry().len(), 1);
}

#[tokio::test]
async fn deferred_tool_activates_only_beside_file_read() {
    let tool = exposure::MyTool;
    assert_eq!(tool.exposure(), ToolExposure::Deferred);
    assert_eq!(tool.timeout_ms(), Some(30_000));
    let metadata = tool.metadata();
    assert_eq!(
        (metadata.origin.as_str(), metadata.version.as_str()),
        ("phi-tools", "0.2.0")
    );
    assert_eq!(metadata.requirements, vec!["network".to_string()]);

    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register_arc(Arc::new(exposure::MyTool)).unwrap();
    let alone = registry.visible_tools(&ActivationContext::default()).await;
    assert!(alone.names().is_empty(), "not visible without file_read");
    let beside = ActivationContext {
        current_tools: vec!["file_read".into()],
        ..Default::default()
    };
    let active = registry.visible_tools(&beside).await;
    assert_eq!(active.names(), ["file_summary"]);
    assert_eq!(
        registry.get("file_summary").unwrap().timeout().as_millis(),
        30_000
    );
}

#[test]
fn content_constructors_match_the_page() {
    fn done() -> agent_base::AgentResult<Vec<Content>> {
        Ok(vec![Content::text("Done")])
    }
    assert_eq!(done().unwrap()[0].as_text(), Some("Done"));
    let image = Content::image("aGk=", "image/png");
    assert!(matches!(image, Content::Image { ref mime_type, .. } if mime_type == "image/png"));
    assert_eq!(ToolConfig::default().default_tool_timeout_ms, 60_000);
}

//! A skill folder served by an MCP server and used by an agent, offline: `examples/skills/` is
//! read as a catalogue (each folder a `SKILL.md` and its files), served over MCP's skills
//! extension on loopback, imported by an `McpClient`, and offered to an agent whose scripted
//! model loads the skill (its instructions come back as the call's result), reads the file the
//! instructions point to, and answers.
//!
//!     cargo run -p phi-agent --example skills --features mcp,skills

use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::mcp::{HttpOptions, McpClient, McpClientOptions, McpHttpOptions, McpServer};
use phi_agent::registry::ToolRegistry;
use phi_agent::skill::{LOAD_SKILL_TOOL_NAME, READ_SKILL_FILE_TOOL_NAME, SkillCatalog};
use phi_agent::{AgentConfig, PhiAgent, base_agent_builder};
use serde_json::json;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/skills");
    let catalog = SkillCatalog::from_dir(folder)?;
    let server = McpServer::new(ToolRegistry::default())
        .with_skills(&catalog)
        .serve_http(HttpOptions::default())
        .await?;
    let client = McpClient::connect_http(
        "skills",
        &server.url(),
        McpHttpOptions::default(),
        McpClientOptions::default(),
    )
    .await?;
    // Only the listing is read here; a skill's SKILL.md is read (and checked) when it is loaded.
    let skills = client.skills().await?;
    for skill in skills.iter() {
        println!("served: {}: {}", skill.name(), skill.description());
    }

    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "c1",
            LOAD_SKILL_TOOL_NAME,
            json!({"name": "release-notes"}),
        )]),
        LlmResponse::tool_calls(vec![ToolCall::new(
            "c2",
            READ_SKILL_FILE_TOOL_NAME,
            json!({"skill": "release-notes", "path": "reference/breaking.md"}),
        )]),
        LlmResponse::text("## Breaking\n- `Client::send` takes a `Request` now."),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm).skills(skills),
        AgentConfig::default(),
    )?;
    let output = agent.run("Write the release notes for #12 and #13").await?;
    for call in &output.tool_calls {
        let text: Vec<String> = call.result.iter().map(|c| c.to_model_text()).collect();
        println!("\n{} -> {}", call.name, text.join("\n"));
    }
    println!("\nanswer: {}", output.text);
    client.close().await;
    Ok(())
}

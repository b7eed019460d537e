//! Skills over MCP (SEP-2640): a catalogue served by our server, from a `SKILL.md` folder and
//! from code, imported by our client and used by an agent; nothing read before a skill is loaded.

use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::mcp::{HttpOptions, McpClient, McpClientOptions, McpHttpOptions};
use phi_agent::registry::ToolRegistry;
use phi_agent::skill::{LOAD_SKILL_TOOL_NAME, Skill, SkillCatalog};
use phi_agent::{AgentConfig, PhiAgent, ToolConfig, base_agent_builder};
use serde_json::json;

const SKILL_MD: &str = "---\nname: pdf-forms\ndescription: Fill in PDF forms.\nlicense: MIT\nmetadata:\n  version: \"2\"\n---\n# Steps\nList the fields first; see reference/fields.md.\n";

fn catalog(folder: &std::path::Path) -> SkillCatalog {
    let skill = folder.join("pdf-forms");
    std::fs::create_dir_all(skill.join("reference")).unwrap();
    std::fs::write(skill.join("SKILL.md"), SKILL_MD).unwrap();
    std::fs::write(skill.join("reference/fields.md"), "Text, check box.\n").unwrap();
    let mut catalog = SkillCatalog::from_dir(folder).unwrap();
    catalog
        .add(
            Skill::new(
                "release-notes",
                "Write release notes: \"grouped\", short.",
                "One line each.",
            )
            .unwrap(),
        )
        .unwrap();
    catalog
}

#[tokio::test]
async fn served_skills_are_imported_checked_and_loaded_by_an_agent() {
    let folder = std::env::temp_dir().join(format!("phi-mcp-skills-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let server = phi_agent::mcp::McpServer::new(ToolRegistry::new(ToolConfig::default()))
        .with_skills(&catalog(&folder))
        .serve_http(HttpOptions::default())
        .await
        .unwrap();
    let client = McpClient::connect_http(
        "local",
        &server.url(),
        McpHttpOptions::default(),
        McpClientOptions::default(),
    )
    .await
    .unwrap();
    let skills = client.skills().await.unwrap();
    let names: Vec<(&str, &str)> = skills.iter().map(|s| (s.name(), s.description())).collect();
    assert_eq!(
        names,
        [
            ("pdf-forms", "Fill in PDF forms."),
            ("release-notes", "Write release notes: \"grouped\", short.")
        ]
    );
    let pdf = skills.get("pdf-forms").unwrap();
    assert_eq!(pdf.files(), ["reference/fields.md"]);
    // The file's frontmatter (extra fields included) matched the listing, so it loads.
    assert_eq!(
        pdf.load().await.unwrap(),
        "# Steps\nList the fields first; see reference/fields.md.\n"
    );
    assert_eq!(
        pdf.fetch_file("reference/fields.md").await.unwrap(),
        "Text, check box.\n"
    );
    assert!(pdf.fetch_file("reference/other.md").await.is_err());
    // A skill built in code is written as a SKILL.md that reads back as its frontmatter.
    let notes = skills.get("release-notes").unwrap();
    assert_eq!(notes.load().await.unwrap(), "One line each.");

    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "c1",
            LOAD_SKILL_TOOL_NAME,
            json!({"name": "pdf-forms"}),
        )]),
        LlmResponse::text("done"),
    ]);
    let agent = PhiAgent::build(
        base_agent_builder(llm.clone()).skills(skills),
        AgentConfig::default(),
    )
    .unwrap();
    let output = agent.run("Fill in my form").await.unwrap();
    let loaded = output.tool_calls[0].result[0].to_model_text();
    assert!(!output.tool_calls[0].is_error, "{loaded}");
    assert!(loaded.contains("List the fields first"), "{loaded}");
    client.close().await;
    std::fs::remove_dir_all(&folder).unwrap();
}

#[tokio::test]
async fn a_server_without_skills_has_none_to_import() {
    let server = phi_agent::mcp::McpServer::new(ToolRegistry::new(ToolConfig::default()))
        .serve_http(HttpOptions::default())
        .await
        .unwrap();
    let client = McpClient::connect_http(
        "local",
        &server.url(),
        McpHttpOptions::default(),
        McpClientOptions::default(),
    )
    .await
    .unwrap();
    assert!(client.skills().await.unwrap().is_empty());
    client.close().await;
}

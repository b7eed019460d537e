//! Result budgets: a result over its tool's limit reaches the model cut to fit, JSON still valid
//! and text cut cleanly at both ends; a turn's results share the turn's budget.

use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::registry::ToolRegistry;
use phi_agent::{
    ActivationContext, AgentConfig, Content, PhiAgent, ToolConfig, ToolContext, Toolset,
    base_agent_builder, phi_tool, tools,
};
use serde_json::{Value, json};

/// A search that returns about 1 MB of JSON hits.
#[phi_tool]
fn big_search() -> Value {
    let hits: Vec<Value> = (0..5_000)
        .map(|i| json!({"id": i, "title": format!("hit {i}"), "body": "lorem ipsum ".repeat(16)}))
        .collect();
    json!({"query": "rust", "total": 5_000, "hits": hits})
}

/// About 1 MB of text in multi-byte characters, with a recognizable start and end.
#[phi_tool]
fn big_text() -> String {
    format!("START{}END", "日本語テキスト🦀".repeat(40_000))
}

async fn dispatch(registry: &ToolRegistry, name: &str) -> Vec<Content> {
    let active = registry.visible_tools(&ActivationContext::default()).await;
    let result = registry
        .dispatch(&active, name, &json!({}), &ToolContext::default())
        .await;
    assert!(!result.is_error, "{}", result.to_model_text());
    result.content
}

#[tokio::test]
async fn a_megabyte_of_json_reaches_the_model_as_valid_json_under_the_budget() {
    let full = big_search().to_string().len();
    assert!(full > 1_000_000, "{full}");
    let mut registry = ToolRegistry::default();
    registry.register_all(tools![big_search]).unwrap();
    let limit = ToolConfig::default().max_output_bytes;
    let content = dispatch(&registry, "big_search").await;
    let Content::Json { value } = &content[0] else {
        panic!("still JSON: {content:?}");
    };
    let text = content[0].to_model_text();
    assert!(text.len() <= limit, "{} bytes", text.len());
    let reread: Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(&reread, value);
    assert_eq!(value["query"], "rust", "the small fields are kept");
    assert_eq!(value["total"], 5_000);
    let hits = value["hits"].as_array().unwrap();
    assert!(hits.len() > 100 && hits.len() < 5_000, "{}", hits.len());
    assert_eq!(hits[0]["id"], 0, "elements are dropped from the end");
    let note = content[1].as_text().unwrap();
    assert!(note.contains("output truncated: "), "{note}");
    assert!(note.contains(&format!("limit {limit}")), "{note}");
    assert!(
        note.contains(&format!("`$.hits` (kept {} of 5000 elements)", hits.len())),
        "{note}"
    );
}

#[tokio::test]
async fn a_megabyte_of_multi_byte_text_is_cut_cleanly_at_both_ends() {
    let mut registry = ToolRegistry::default();
    registry.register_all(tools![big_text]).unwrap();
    let content = dispatch(&registry, "big_text").await;
    // A `String` is valid UTF-8 by construction: a cut inside a character would have panicked.
    let text = content[0].as_text().unwrap();
    assert!(text.len() <= ToolConfig::default().max_output_bytes + 64);
    assert!(text.starts_with("START日本語"), "the head is kept");
    assert!(text.ends_with("🦀END"), "the tail is kept");
    let full = big_text().len();
    let (head, rest) = text.split_once("\n[... ").unwrap();
    let (left_out, tail) = rest.split_once(" bytes left out ...]\n").unwrap();
    let left_out: usize = left_out.parse().unwrap();
    assert_eq!(
        head.len() + left_out + tail.len(),
        full,
        "what is kept and left out adds up"
    );
    assert!(
        content[1]
            .as_text()
            .unwrap()
            .contains(&format!("output truncated: {full} bytes"))
    );
}

#[tokio::test]
async fn a_toolset_sets_its_tools_result_limit() {
    let mut registry = ToolRegistry::default();
    registry
        .register_toolset(Toolset::from(tools![big_text]).with_max_result_bytes(1_000))
        .unwrap();
    assert_eq!(registry.get("big_text").unwrap().result_limit(), 1_000);
    let content = dispatch(&registry, "big_text").await;
    assert!(content[0].as_text().unwrap().len() < 1_100);
    assert!(content[1].as_text().unwrap().contains("limit 1000"));
}

#[tokio::test]
async fn a_turns_results_share_the_turn_budget() {
    let llm = ScriptedLlm::new(vec![
        LlmResponse::tool_calls(vec![
            ToolCall::new("c1", "big_text", json!({})),
            ToolCall::new("c2", "big_search", json!({})),
        ]),
        LlmResponse::text("done"),
    ]);
    let builder = base_agent_builder(llm).register_tools(tools![big_text, big_search]);
    let config = AgentConfig::default().with_max_turn_result_bytes(50_000);
    let agent = PhiAgent::build(builder, config).unwrap();
    let output = agent.run("go").await.unwrap();
    let mut total = 0;
    for record in &output.tool_calls {
        let first = &record.result[0];
        total += first.to_model_text().len();
        if let Content::Json { value } = first {
            let reread: Value = serde_json::from_str(&first.to_model_text()).unwrap();
            assert_eq!(&reread, value);
        }
        let notes = record.result.last().unwrap().to_model_text();
        assert!(notes.contains("limit 25000"), "{notes}");
    }
    assert!(total <= 50_000 + 100, "{total}");
}

/// About 1 MB of text, with a budget of its own in bytes.
#[phi_tool(max_result = "8 KiB")]
fn capped_text() -> String {
    "x".repeat(1 << 20)
}

/// About 1 MB of text, with a budget of its own in estimated tokens.
#[phi_tool(max_result = "500 tokens")]
fn token_capped_text() -> String {
    "#".repeat(1 << 20)
}

/// A lookup with its budget as a plain integer (bytes).
#[phi_tool(max_result = 1_000)]
fn integer_capped() -> String {
    "z".repeat(5_000)
}

#[tokio::test]
async fn a_tool_sets_its_budget_in_bytes_or_tokens() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry
        .register_all(tools![capped_text, token_capped_text, integer_capped])
        .unwrap();
    assert_eq!(registry.get("capped_text").unwrap().result_limit(), 8_192);
    assert_eq!(
        registry.get("token_capped_text").unwrap().result_limit(),
        500 * phi_agent::ResultBudget::BYTES_PER_TOKEN
    );
    assert_eq!(
        registry.get("integer_capped").unwrap().result_limit(),
        1_000
    );
    for (name, fill, limit) in [
        ("capped_text", 'x', 8_192),
        ("token_capped_text", '#', 2_000),
    ] {
        let content = dispatch(&registry, name).await;
        let text: String = content.iter().map(Content::to_model_text).collect();
        // What is kept of the output is within the budget; the markers are on top.
        let kept = text.chars().filter(|&c| c == fill).count();
        assert!(kept <= limit && kept > limit - 100, "{name}: {kept}");
        assert!(
            text.contains(&format!("limit {limit}")),
            "{name}: {}",
            &text[text.len() - 200..]
        );
    }
    // A toolset's budget in tokens overrides the tool's own.
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry
        .register_toolset(
            Toolset::from(tools![capped_text])
                .with_max_result(phi_agent::ResultBudget::Tokens(100)),
        )
        .unwrap();
    assert_eq!(registry.get("capped_text").unwrap().result_limit(), 400);
}

#[test]
fn the_turn_budget_takes_tokens_too() {
    let config =
        AgentConfig::default().with_max_turn_result(phi_agent::ResultBudget::Tokens(1_000));
    assert_eq!(config.max_turn_result_bytes, 4_000);
    let config = AgentConfig::default().with_max_turn_result(phi_agent::ResultBudget::Bytes(1_234));
    assert_eq!(config.max_turn_result_bytes, 1_234);
}

/// Fetch a record, for code only.
#[phi_tool(callers = "code")]
fn fetch_record(id: u32) -> String {
    id.to_string()
}

/// Delete a record, never from code.
#[phi_tool(callers = "direct")]
fn delete_record(id: u32) -> String {
    id.to_string()
}

#[test]
fn callers_come_from_the_macro_key_and_the_toolset() {
    use phi_agent::{Tool, ToolCallers};
    let [fetch, delete, both]: [std::sync::Arc<dyn Tool>; 3] =
        tools![fetch_record, delete_record, integer_capped]
            .try_into()
            .ok()
            .unwrap();
    assert_eq!(fetch.options().callers, ToolCallers::Code);
    assert_eq!(delete.options().callers, ToolCallers::Direct);
    assert_eq!(both.options().callers, ToolCallers::Both);
    let wrapped = Toolset::from(tools![delete_record, integer_capped])
        .prefix("db")
        .with_callers(ToolCallers::Code)
        .into_tools();
    assert!(
        wrapped
            .iter()
            .all(|tool| tool.options().callers == ToolCallers::Code)
    );
    // A prefix alone keeps each tool's own.
    let prefixed = Toolset::from(tools![fetch_record])
        .prefix("db")
        .into_tools();
    assert_eq!(prefixed[0].options().callers, ToolCallers::Code);
}

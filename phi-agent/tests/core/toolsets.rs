//! Toolsets: prefixed groups route to their own tools, filters, approval and exposure apply to
//! a group, and the names a toolset makes are checked at registration like any other.

use std::sync::Arc;

use async_trait::async_trait;
use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::registry::ToolRegistry;
use phi_agent::{
    ActivationContext, AgentConfig, AgentError, AgentResult, Approval, Content, PhiAgent, Tool,
    ToolContext, ToolExposure, Toolset, base_agent_builder, phi_tool, tools,
};
use serde_json::{Value, json};

/// A `search` tool as an imported MCP server has one: same name on every server.
struct ServerSearch {
    server: &'static str,
}

#[async_trait]
impl Tool for ServerSearch {
    fn name(&self) -> &'static str {
        "search"
    }
    fn description(&self) -> &'static str {
        "Search this server"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {"query": {"type": "string"}}})
    }
    async fn call(&self, args: &Value, _ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text(format!(
            "{} found {}",
            self.server, args["query"]
        ))])
    }
}

fn server(name: &'static str) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(ServerSearch { server: name }) as Arc<dyn Tool>,
        Arc::new(Fetch),
    ]
}

/// Fetch a page.
#[phi_tool]
fn fetch(url: String) -> String {
    format!("page at {url}")
}

/// Delete a page.
#[phi_tool]
fn delete_page(page: String) -> String {
    format!("deleted {page}")
}

async fn call(registry: &ToolRegistry, name: &str, args: Value) -> (String, bool) {
    let active = registry.visible_tools(&ActivationContext::default()).await;
    let result = registry
        .dispatch(&active, name, &args, &ToolContext::default())
        .await;
    (result.to_model_text(), result.is_error)
}

#[tokio::test]
async fn two_servers_with_a_search_each_route_to_their_own() {
    let mut registry = ToolRegistry::default();
    registry
        .register_toolset(Toolset::from(server("docs")).prefix("docs"))
        .unwrap();
    registry
        .register_toolset(Toolset::from(server("web")).prefix("web"))
        .unwrap();
    let names: Vec<_> = registry.iter().map(|tool| tool.name()).collect();
    assert_eq!(
        names,
        ["docs_search", "docs_fetch", "web_search", "web_fetch"]
    );
    assert_eq!(
        registry.get("web_search").unwrap().metadata().name,
        "web_search"
    );

    let (docs, failed) = call(&registry, "docs_search", json!({"query": "rust"})).await;
    assert!(!failed, "{docs}");
    assert_eq!(docs, "docs found \"rust\"");
    let (web, _) = call(&registry, "web_search", json!({"query": "rust"})).await;
    assert_eq!(web, "web found \"rust\"");
    let (unprefixed, failed) = call(&registry, "search", json!({"query": "rust"})).await;
    assert!(failed, "the old name is gone: {unprefixed}");
}

#[tokio::test]
async fn without_a_prefix_the_second_search_is_the_usual_duplicate_error() {
    let mut registry = ToolRegistry::default();
    registry.register_toolset(server("docs").into()).unwrap();
    let error = registry.register_toolset(server("web").into()).unwrap_err();
    assert!(
        matches!(&error, AgentError::DuplicateTool { name, .. } if name == "search"),
        "{error}"
    );
}

#[test]
fn a_rename_that_clashes_is_refused_at_registration_with_the_same_error() {
    let set = Toolset::from(tools![fetch, delete_page])
        .rename("delete_page", "fetch")
        .unwrap();
    let mut registry = ToolRegistry::default();
    let error = registry.register_toolset(set).unwrap_err();
    assert!(
        matches!(&error, AgentError::DuplicateTool { name, .. } if name == "fetch"),
        "{error}"
    );
    // A prefix that makes an invalid name gets the name error, at registration.
    let long = "p".repeat(60);
    let error = registry
        .register_toolset(Toolset::from(tools![fetch]).prefix(&long))
        .unwrap_err();
    assert!(
        matches!(error, AgentError::InvalidToolName { .. }),
        "{error}"
    );
}

#[test]
fn renaming_a_tool_that_is_not_there_says_so() {
    let error = Toolset::from(tools![fetch])
        .rename("fecth", "get")
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains("no tool named `fecth`"), "{message}");
    assert!(message.contains("fetch"), "{message}");
}

#[tokio::test]
async fn filters_keep_what_they_say() {
    let set = Toolset::from(tools![fetch, delete_page])
        .merge(Toolset::from(server("docs")).prefix("docs"));
    assert_eq!(
        set.clone()
            .only(&["fetch", "docs_search"])
            .names()
            .collect::<Vec<_>>(),
        ["fetch", "docs_search"]
    );
    assert_eq!(
        set.clone()
            .without(&["delete_page"])
            .names()
            .collect::<Vec<_>>(),
        ["fetch", "docs_search", "docs_fetch"]
    );
    let searches = set.filter(|name, tool| name.ends_with("search") && tool.name() == "search");
    let mut registry = ToolRegistry::default();
    registry.register_toolset(searches).unwrap();
    assert_eq!(registry.len(), 1);
    let (text, failed) = call(&registry, "docs_search", json!({"query": "q"})).await;
    assert!(!failed && text.starts_with("docs found"), "{text}");
}

#[tokio::test]
async fn approval_for_all_or_by_predicate() {
    let ctx = ToolContext::default();
    let all = Toolset::from(tools![fetch, delete_page]).require_approval();
    let mut registry = ToolRegistry::default();
    registry.register_toolset(all).unwrap();
    let active = registry.visible_tools(&ActivationContext::default()).await;
    for name in ["fetch", "delete_page"] {
        let args = if name == "fetch" {
            json!({"url": "u"})
        } else {
            json!({"page": "p"})
        };
        assert!(
            registry.needs_approval(&active, name, &args, &ctx).await,
            "{name}"
        );
    }

    let some = Toolset::from(tools![fetch, delete_page])
        .prefix("site")
        .require_approval_if(|name, args| name == "site_delete_page" && args["page"] != "draft");
    let mut registry = ToolRegistry::default();
    registry.register_toolset(some).unwrap();
    let active = registry.visible_tools(&ActivationContext::default()).await;
    let asks = |name: &'static str, args: Value| {
        let (registry, active, ctx) = (&registry, &active, &ctx);
        async move { registry.needs_approval(active, name, &args, ctx).await }
    };
    assert!(!asks("site_fetch", json!({"url": "u"})).await);
    assert!(asks("site_delete_page", json!({"page": "home"})).await);
    assert!(!asks("site_delete_page", json!({"page": "draft"})).await);
}

#[tokio::test]
async fn an_agent_run_asks_for_a_toolset_that_requires_approval() {
    let llm = ScriptedLlm::new(vec![
        LlmResponse::tool_calls(vec![ToolCall::new(
            "c1",
            "site_delete_page",
            json!({"page": "home"}),
        )]),
        LlmResponse::text("done"),
    ]);
    let builder = base_agent_builder(llm)
        .register_toolset(
            Toolset::from(tools![delete_page])
                .prefix("site")
                .require_approval(),
        )
        .approver(|_request: phi_agent::ApprovalRequest| async { Approval::Approve });
    let agent = PhiAgent::build(builder, AgentConfig::default()).unwrap();
    let output = agent.run("delete home").await.unwrap();
    let record = &output.tool_calls[0];
    assert_eq!(record.name, "site_delete_page");
    assert_eq!(record.approval, Some(Approval::Approve));
    assert_eq!(record.result[0].as_text(), Some("deleted home"));
}

#[tokio::test]
async fn exposure_override_hides_and_defers() {
    let mut registry = ToolRegistry::default();
    registry
        .register_toolset(Toolset::from(tools![delete_page]).with_exposure(ToolExposure::Hidden))
        .unwrap();
    registry
        .register_toolset(Toolset::from(tools![fetch]).with_exposure(ToolExposure::Deferred))
        .unwrap();
    assert_eq!(
        registry.get("delete_page").unwrap().exposure(),
        ToolExposure::Hidden
    );
    assert_eq!(
        registry.get("fetch").unwrap().exposure(),
        ToolExposure::Deferred
    );
    let (text, failed) = call(&registry, "delete_page", json!({"page": "p"})).await;
    assert!(failed && text.contains("not available"), "{text}");
    // The program can still call the hidden tool.
    let result = registry
        .call_internal(
            "delete_page",
            &json!({"page": "p"}),
            &ToolContext::default(),
        )
        .await;
    assert_eq!(result.to_model_text(), "deleted p");
}

/// Write a page, once fetching is offered.
#[phi_tool(exposure = "deferred", requires_tools = ["fetch"])]
fn write_page(page: String) -> String {
    format!("wrote {page}")
}

#[tokio::test]
async fn a_prefixed_group_keeps_its_requirements_among_siblings() {
    let set = Toolset::from(tools![fetch, write_page]).prefix("site");
    let tools = set.into_tools();
    assert_eq!(tools[1].options().requires_tools, ["site_fetch"]);
    let mut registry = ToolRegistry::default();
    registry.register_all(tools).unwrap();
    registry.check_requirements().unwrap();
    let active = registry.visible_tools(&ActivationContext::default()).await;
    let (text, failed) = {
        let result = registry
            .dispatch(
                &active,
                "site_write_page",
                &json!({"page": "p"}),
                &ToolContext::default(),
            )
            .await;
        (result.to_model_text(), result.is_error)
    };
    assert!(
        !failed,
        "the deferred tool activated once `site_fetch` was active: {text}"
    );
}

#[test]
fn an_unchanged_tool_is_registered_unwrapped() {
    let tool: Arc<dyn Tool> = Arc::new(Fetch);
    let tools = Toolset::from(vec![tool.clone()])
        .only(&["fetch"])
        .into_tools();
    assert!(Arc::ptr_eq(&tools[0], &tool));
}

//! Tools as real MCP catalogues have them: several servers with tools of one name, told apart by
//! their server's name and description ([`ToolGroup`]), and descriptions in Chinese only, found
//! by English queries.

use std::sync::Arc;

use phi_agent::registry::ToolRegistry;
use phi_agent::search::ToolIndex;
use phi_agent::{Tool, ToolExposure, ToolGroup, Toolset};
use serde_json::json;

use crate::tool_search::{Listed, fixture};

fn listed(name: &'static str, description: &'static str) -> Listed {
    Listed {
        name,
        description,
        schema: json!({"type": "object", "properties": {"title": {"type": "string"}}}),
        exposure: ToolExposure::Deferred,
    }
}

/// Two servers' issue trackers, imported under short prefixes that do not say which is which:
/// only each group's name and description do.
fn trackers() -> ToolRegistry {
    let tracker = |prefix: &str, name: &str, about: &str| {
        Toolset::new()
            .with_tool(listed("create_issue", "Create an issue."))
            .with_tool(listed("list_issues", "List the open issues."))
            .prefix(prefix)
            .group(name, about)
            .into_tools()
    };
    let mut registry = ToolRegistry::default();
    registry
        .register_all(tracker(
            "t1",
            "github",
            "GitHub: repositories, issues and pull requests.",
        ))
        .unwrap();
    registry
        .register_all(tracker(
            "t2",
            "jira",
            "Jira: the company's project tracker, sprints and tickets.",
        ))
        .unwrap();
    registry
}

#[test]
fn a_tools_group_tells_apart_tools_of_one_name() {
    let registry = trackers();
    assert_eq!(
        registry.get("t2_create_issue").and_then(|t| t.group()),
        Some(&ToolGroup::new(
            "jira",
            "Jira: the company's project tracker, sprints and tickets."
        ))
    );
    let index = ToolIndex::build(&registry);
    // Registered second, found first: by its group's name, then by its group's description.
    assert_eq!(
        index.search("create a jira issue", 5)[0].name,
        "t2_create_issue"
    );
    assert_eq!(
        index.search("open issues in the sprint", 5)[0].name,
        "t2_list_issues"
    );
    assert_eq!(
        index.search("create a github issue", 5)[0].name,
        "t1_create_issue"
    );
    // A group's words are context: they do not make every tool of the group match a query
    // about one of them before the tool that says it.
    assert_eq!(index.search("github pull requests", 1).len(), 1);
}

/// Chinese-only descriptions, as many MCP servers have, under names that do not say what the
/// tool does, among the fixture's 329 English tools: English queries find them.
#[test]
fn a_chinese_only_description_is_found_by_an_english_query() {
    let (mut tools, _) = fixture();
    for (name, description) in [
        ("maps_geo", "将详细的结构化地址转换为经纬度坐标。"),
        ("rq_top", "获取微博热搜榜单。"),
    ] {
        tools.push(listed(name, description));
    }
    let tools: Vec<Arc<dyn Tool>> = tools
        .into_iter()
        .map(|t| Arc::new(t) as Arc<dyn Tool>)
        .collect();
    let mut registry = ToolRegistry::default();
    registry.register_all(tools).unwrap();
    let index = ToolIndex::build(&registry);
    for (query, expected) in [
        ("convert an address to coordinates", "maps_geo"),
        ("trending topics on weibo", "rq_top"),
    ] {
        let hits = index.search(query, 5);
        let names: Vec<&str> = hits.iter().map(|hit| hit.name).collect();
        assert!(names.contains(&expected), "{query}: {names:?}");
    }
    // And the other way: a Chinese query reaches an English description.
    let names: Vec<&str> = index.search("删除文件", 5).iter().map(|h| h.name).collect();
    assert!(names.contains(&"delete_file"), "{names:?}");
}

//! Parameter attributes: docs, defaults, renames, and serde/schemars attributes passed through.

use phi_agent::__private::serde_json::json;
use phi_agent::{Tool, ToolContext, phi_tool};

/// Search for text.
#[phi_tool]
async fn search(
    /// What to look for
    #[phi(rename = "q")]
    query: String,
    /// Results per page
    #[phi(default = 10)]
    limit: u32,
    /// Match case exactly
    #[phi(default)]
    case_sensitive: bool,
    /// Where to start
    #[schemars(range(min = 1))]
    #[serde(alias = "from")]
    page: Option<u32>,
) -> String {
    format!("{query}/{limit}/{case_sensitive}/{page:?}")
}

#[tokio::main]
async fn main() {
    let schema = Search.schema();
    let properties = schema["properties"].as_object().unwrap();
    assert_eq!(
        properties.keys().collect::<Vec<_>>(),
        ["q", "limit", "case_sensitive", "page"],
        "declaration order, renamed"
    );
    assert_eq!(schema["required"], json!(["q"]));
    assert_eq!(properties["q"]["description"], "What to look for");
    assert_eq!(properties["limit"]["default"], 10);
    assert_eq!(properties["case_sensitive"]["default"], false);
    assert_eq!(properties["page"]["minimum"], 1);

    let ctx = ToolContext::default();
    let out = Search.call(&json!({"q": "rust", "from": 2}), &ctx).await.unwrap();
    assert_eq!(out[0].as_text(), Some("rust/10/false/Some(2)"));
    let err = Search.call(&json!({"query": "rust"}), &ctx).await.unwrap_err();
    assert!(err.to_string().contains("q"), "{err}");
}

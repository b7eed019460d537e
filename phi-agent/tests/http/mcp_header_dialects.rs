//! `x-mcp-header` (SEP-2243) is for MCP peers: no schema sent to a model carries it, or any
//! other `x-mcp-*` keyword, in any dialect: OpenAI chat in strict mode and out of it, the
//! Responses API, Anthropic and Gemini. The tool's own schema, which MCP serves, keeps it.

use std::collections::BTreeMap;

use phi_agent::schema::{Dialect, to_dialect};
use phi_agent::{Tool, phi_tool, tools};
use serde_json::Value;

use crate::first_request::first_request;
use crate::providers::{ALL, Provider};

/// Deploys a service; fits OpenAI strict mode.
#[phi_tool]
fn deploy(
    #[phi(header = "Region")] region: String,
    #[phi(header = "Priority")] priority: Option<u32>,
    #[phi(header = "Dry-Run")] dry_run: bool,
) -> String {
    format!("{region} {priority:?} {dry_run}")
}

/// Labels a service; an open map keeps it out of strict mode.
#[phi_tool]
fn label(#[phi(header = "Service")] service: String, labels: BTreeMap<String, String>) -> String {
    format!("{service} {labels:?}")
}

/// Every object key in `value` (data included, which over-approximates the keywords).
fn keys(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                out.push(key.clone());
                keys(value, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| keys(item, out)),
        _ => {}
    }
}

fn mcp_keys(value: &Value) -> Vec<String> {
    let mut all = Vec::new();
    keys(value, &mut all);
    all.retain(|key| key.starts_with("x-mcp-"));
    all
}

#[test]
fn only_the_mcp_dialect_keeps_x_mcp_keywords() {
    for tool in [Tool::schema(&Deploy), Tool::schema(&Label)] {
        assert!(!mcp_keys(&tool).is_empty(), "{tool}");
        for dialect in Dialect::ALL {
            let Ok(schema) = to_dialect(&tool, dialect) else {
                // OpenAI strict mode and Gemini's OpenAPI form refuse the open map; that tool
                // goes out non-strict, and to Gemini as JSON Schema (the request test below).
                assert!(
                    matches!(dialect, Dialect::OpenAiStrict | Dialect::Gemini),
                    "{dialect}"
                );
                continue;
            };
            let found = mcp_keys(&schema);
            if dialect == Dialect::Mcp {
                assert!(!found.is_empty(), "{dialect}: {schema}");
            } else {
                assert!(found.is_empty(), "{dialect}: {found:?} in {schema}");
            }
        }
    }
}

#[tokio::test]
async fn no_provider_request_carries_x_mcp_keywords() {
    for provider in ALL {
        let request = first_request(provider, tools![deploy, label], "deploy?").await;
        let text = String::from_utf8_lossy(&request.body);
        assert!(
            text.contains("Region") || text.contains("region"),
            "{provider:?}: {text}"
        );
        assert!(!text.contains("x-mcp-"), "{provider:?}: {text}");
        if matches!(provider, Provider::OpenAi) {
            // Both OpenAI chat modes were exercised: one tool strict, one not.
            let body: Value = request.body_json().unwrap();
            assert_eq!(body["tools"][0]["function"]["strict"], true, "{body}");
            assert_eq!(body["tools"][1]["function"]["strict"], false, "{body}");
        }
        if matches!(provider, Provider::Responses) {
            let body: Value = request.body_json().unwrap();
            assert_eq!(body["tools"][0]["strict"], true, "{body}");
            assert_eq!(body["tools"][1]["strict"], false, "{body}");
        }
    }
}

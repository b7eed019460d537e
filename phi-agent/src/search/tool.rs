//! The `search_tools` tool as the model sees it: its definition, its arguments, and the text of
//! its answer.

use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{Value, json};

use super::SearchHit;
use crate::registry::ToolSpec;

/// The name of the search tool offered to the model while tool search is on. A registered tool
/// of this name is refused then.
pub const SEARCH_TOOL_NAME: &str = "search_tools";

/// Tools one search returns when the model gives no `limit`.
pub const DEFAULT_SEARCH_LIMIT: usize = 5;

/// Most tools one search returns, whatever `limit` the model asks for: each found tool stays in
/// the prompt for the rest of the session.
pub const MAX_SEARCH_LIMIT: usize = 20;

/// A description longer than this is cut in the search's answer (the tool's definition, sent from
/// the next turn on, has all of it).
const SUMMARY_CHARS: usize = 160;

/// The definition of `search_tools`, built once and shared, so that every request carries the
/// very same entry (and adapters serialize it once).
pub fn search_tool_spec() -> &'static ToolSpec {
    static SPEC: OnceLock<ToolSpec> = OnceLock::new();
    SPEC.get_or_init(|| {
        ToolSpec::new(
            SEARCH_TOOL_NAME,
            "Search for more tools. Many tools are not listed yet: describe the task in a few \
             words (e.g. \"create calendar event\") and the best matching tools are listed by \
             name with a one-line description. Every tool found can be called from your next \
             turn on.",
            json!({
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "description": "What the tool should do, in a few words"
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_SEARCH_LIMIT,
                        "description": "How many tools to return (default 5)"
                    }
                },
                "required": ["query"]
            }),
        )
    })
}

/// The model's arguments to `search_tools`.
#[derive(Debug, Deserialize)]
pub(crate) struct SearchArguments {
    pub(crate) query: String,
    #[serde(default)]
    pub(crate) limit: Option<usize>,
}

impl SearchArguments {
    /// Reads the model's arguments; the error is the text the model reads.
    pub(crate) fn parse(arguments: &Value) -> Result<Self, String> {
        let parsed = Self::deserialize(arguments).map_err(|error| {
            format!(
                "invalid arguments for `{SEARCH_TOOL_NAME}`: {error}; send {{\"query\": \"a few words\"}}"
            )
        })?;
        if parsed.query.trim().is_empty() {
            return Err(format!(
                "`{SEARCH_TOOL_NAME}` needs a non-empty `query`: describe the task in a few words"
            ));
        }
        Ok(parsed)
    }

    /// The number of tools to return: the model's `limit`, within 1 and [`MAX_SEARCH_LIMIT`].
    pub(crate) fn limit(&self) -> usize {
        self.limit
            .unwrap_or(DEFAULT_SEARCH_LIMIT)
            .clamp(1, MAX_SEARCH_LIMIT)
    }
}

/// The answer the model reads: one line per tool found, its name and the first line of its
/// description.
pub(crate) fn found_text(query: &str, hits: &[SearchHit]) -> String {
    if hits.is_empty() {
        return format!("No tool matches {query:?}. Try other words, or fewer of them.");
    }
    let mut text = format!(
        "Found {} tool{} for {query:?}; call {} from your next turn on:\n",
        hits.len(),
        if hits.len() == 1 { "" } else { "s" },
        if hits.len() == 1 { "it" } else { "them" },
    );
    for hit in hits {
        text.push_str(&format!("- {}: {}\n", hit.name, summary(hit.description)));
    }
    text.pop();
    text
}

/// The first line of `description`, cut at [`SUMMARY_CHARS`] characters.
fn summary(description: &str) -> String {
    let line = description
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    match line.char_indices().nth(SUMMARY_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_default_and_clamp() {
        let args = SearchArguments::parse(&json!({"query": "calendar"})).unwrap();
        assert_eq!(args.limit(), DEFAULT_SEARCH_LIMIT);
        let args = SearchArguments::parse(&json!({"query": "x", "limit": 1000})).unwrap();
        assert_eq!(args.limit(), MAX_SEARCH_LIMIT);
        assert!(SearchArguments::parse(&json!({"query": "  "})).is_err());
        assert!(SearchArguments::parse(&json!({"limit": 3})).is_err());
    }

    #[test]
    fn the_answer_lists_one_line_per_tool() {
        let hit = SearchHit {
            name: "create_calendar_event",
            description: "Create an event.\n\nLonger text.",
            score: 1.0,
            index: 0,
        };
        assert_eq!(
            found_text("calendar", &[hit]),
            "Found 1 tool for \"calendar\"; call it from your next turn on:\n- create_calendar_event: Create an event."
        );
        assert!(found_text("nothing", &[]).starts_with("No tool matches"));
        assert_eq!(summary(&"x".repeat(400)).chars().count(), SUMMARY_CHARS + 1);
    }
}

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
             words (e.g. \"create calendar event\"); for a task of several steps, one short \
             phrase per step separated by \";\" (e.g. \"find flights; book hotel; email the \
             plan\"), and each step gets its own results. The best matching tools are listed \
             by name with a one-line description. Every tool found can be called from your \
             next turn on.",
            json!({
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "description": "What the tool should do, in a few words; several steps separated by \";\""
                    },
                    "limit": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": MAX_SEARCH_LIMIT,
                        "description": "How many tools to return (default 5)"
                    },
                    "skip_found": {
                        "type": "boolean",
                        "description": "Leave out the tools earlier searches found: more results for one step without repeating the others"
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
    /// Leave out the tools the session's earlier searches found.
    #[serde(default)]
    pub(crate) skip_found: bool,
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
/// description; for a query of several [`steps`](super::steps), the tools under the step that
/// found them.
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
    let steps = super::steps(query);
    if steps.len() == 1 {
        for hit in hits {
            text.push_str(&format!("- {}: {}\n", hit.name, summary(hit.description)));
        }
    } else {
        for (number, step) in steps.iter().enumerate() {
            let found: Vec<&SearchHit> = hits.iter().filter(|hit| hit.step == number).collect();
            if found.is_empty() {
                continue;
            }
            text.push_str(&format!("{step}:\n"));
            for hit in found {
                text.push_str(&format!("  - {}: {}\n", hit.name, summary(hit.description)));
            }
        }
        text.push_str("(More for one step: search it alone with \"skip_found\": true.)\n");
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
            step: 0,
        };
        assert_eq!(
            found_text("calendar", &[hit]),
            "Found 1 tool for \"calendar\"; call it from your next turn on:\n- create_calendar_event: Create an event."
        );
        assert!(found_text("nothing", &[]).starts_with("No tool matches"));
        assert_eq!(summary(&"x".repeat(400)).chars().count(), SUMMARY_CHARS + 1);
    }

    #[test]
    fn the_answer_to_several_steps_lists_each_steps_tools_under_it() {
        let hit = |name, step| SearchHit {
            name,
            description: name,
            score: 1.0,
            index: step,
            step,
        };
        let text = found_text(
            "read mail; save file",
            &[
                hit("read_mail", 0),
                hit("write_file", 1),
                hit("list_mail", 0),
            ],
        );
        assert_eq!(
            text,
            "Found 3 tools for \"read mail; save file\"; call them from your next turn on:\n\
             read mail:\n  - read_mail: read_mail\n  - list_mail: list_mail\n\
             save file:\n  - write_file: write_file\n\
             (More for one step: search it alone with \"skip_found\": true.)"
        );
    }
}

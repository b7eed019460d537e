//! Where a context policy keeps the tool results it clears, and the `read_result` tool that
//! reads them back.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::content::Content;
use crate::context::{ActivationContext, ToolContext};
use crate::error::{AgentError, AgentResult};
use crate::tool::{Tool, ToolExposure};

/// The name of the tool that reads a cleared result back.
pub const READ_RESULT_TOOL_NAME: &str = "read_result";

/// The most characters one `read_result` call returns when it names no `length`.
const DEFAULT_LENGTH: usize = 8_000;

/// Where a [`ContextPolicy`](crate::ContextPolicy) keeps the tool results it clears
/// ([`ContextPolicy::with_result_store`](crate::ContextPolicy::with_result_store)), so that the
/// model can read one back with the `read_result` tool. Keyed by session and call id. Called on
/// the run's task before each model request: keep it quick.
pub trait ResultStore: Send + Sync {
    /// Keeps `content`, the result of call `call_id` in session `session_id`.
    fn put(&self, session_id: &str, call_id: &str, content: Vec<Content>);
    /// The result kept for call `call_id` in session `session_id`, if any.
    fn get(&self, session_id: &str, call_id: &str) -> Option<Vec<Content>>;
    /// Whether anything is kept for session `session_id` (`read_result` is offered only then).
    fn holds_any(&self, session_id: &str) -> bool;
}

/// A [`ResultStore`] in memory, for the life of the process.
///
/// ```
/// use phi_agent::{Content, MemoryResultStore, ResultStore};
/// let store = MemoryResultStore::default();
/// store.put("s1", "c1", vec![Content::text("a long report")]);
/// assert_eq!(store.get("s1", "c1"), Some(vec![Content::text("a long report")]));
/// assert!(store.get("s2", "c1").is_none(), "per session");
/// assert!(store.holds_any("s1") && !store.holds_any("s2"));
/// ```
#[derive(Debug, Default)]
pub struct MemoryResultStore {
    results: Mutex<HashMap<(String, String), Vec<Content>>>,
}

impl MemoryResultStore {
    fn results(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), Vec<Content>>> {
        // A panic elsewhere while holding the lock leaves whole entries behind.
        self.results
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl ResultStore for MemoryResultStore {
    fn put(&self, session_id: &str, call_id: &str, content: Vec<Content>) {
        self.results()
            .insert((session_id.to_string(), call_id.to_string()), content);
    }

    fn get(&self, session_id: &str, call_id: &str) -> Option<Vec<Content>> {
        self.results()
            .get(&(session_id.to_string(), call_id.to_string()))
            .cloned()
    }

    fn holds_any(&self, session_id: &str) -> bool {
        self.results()
            .keys()
            .any(|(session, _)| session == session_id)
    }
}

/// `read_result`: a cleared result's text, a range of characters at a time. Deferred, shown once
/// the session's store holds something.
pub(crate) struct ReadResult(pub(crate) Arc<dyn ResultStore>);

#[async_trait]
impl Tool for ReadResult {
    fn name(&self) -> &'static str {
        READ_RESULT_TOOL_NAME
    }

    fn description(&self) -> &'static str {
        "Read back a tool result that was cleared from the conversation to keep it short, by its call id, a range of characters at a time"
    }

    fn schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": "The call id the cleared result names"},
                "offset": {"type": "integer", "minimum": 0, "description": "The first character to read (default 0)"},
                "length": {"type": "integer", "minimum": 1, "description": "How many characters to read (default 8000)"}
            },
            "required": ["id"]
        })
    }

    fn exposure(&self) -> ToolExposure {
        ToolExposure::Deferred
    }

    async fn should_activate(&self, ctx: &ActivationContext) -> bool {
        self.0.holds_any(&ctx.session_id)
    }

    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        let id = args["id"]
            .as_str()
            .ok_or_else(|| AgentError::tool("`id` must be the call id a cleared result names"))?;
        let count = |key: &str, default: usize| match &args[key] {
            Value::Null => Ok(default),
            value => value
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| AgentError::tool(format!("`{key}` must be a whole number"))),
        };
        let offset = count("offset", 0)?;
        let length = count("length", DEFAULT_LENGTH)?.max(1);
        let content = self
            .0
            .get(ctx.session_id(), id)
            .ok_or_else(|| AgentError::tool(format!("no cleared result has the call id `{id}`")))?;
        let text: Vec<String> = content.iter().map(Content::to_model_text).collect();
        let text = text.join("\n");
        let total = text.chars().count();
        let start = offset.min(total);
        let end = start.saturating_add(length).min(total);
        let part: String = text.chars().skip(start).take(end - start).collect();
        Ok(vec![Content::text(format!(
            "characters {start}..{end} of {total}:\n{part}"
        ))])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reads_a_range_and_refuses_what_it_does_not_hold() {
        let store = Arc::new(MemoryResultStore::default());
        store.put("s1", "c1", vec![Content::text("héllo wörld")]);
        let tool = ReadResult(store);
        let ctx = ToolContext::new(Arc::from("s1"), std::env::temp_dir(), Default::default());
        let read = |args: Value| {
            let (tool, ctx) = (&tool, &ctx);
            async move { tool.call(&args, ctx).await }
        };
        let part = read(json!({"id": "c1", "offset": 6, "length": 3}))
            .await
            .unwrap();
        assert_eq!(part, vec![Content::text("characters 6..9 of 11:\nwör")]);
        let all = read(json!({"id": "c1"})).await.unwrap();
        assert_eq!(
            all,
            vec![Content::text("characters 0..11 of 11:\nhéllo wörld")]
        );
        let past = read(json!({"id": "c1", "offset": 50})).await.unwrap();
        assert_eq!(past, vec![Content::text("characters 11..11 of 11:\n")]);
        let unknown = read(json!({"id": "c9"})).await.unwrap_err();
        assert!(unknown.to_string().contains("`c9`"), "{unknown}");
        let bad = read(json!({"id": "c1", "offset": -1})).await.unwrap_err();
        assert!(bad.to_string().contains("`offset`"), "{bad}");
    }
}

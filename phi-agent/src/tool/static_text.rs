//! [`static_text`]: the one place the crate keeps text for the life of the process.

/// `text` as a `&'static str`, for the name or description of a tool made at run time
/// ([`Tool::name`](super::Tool::name) returns `&'static str`).
///
/// Interned: the first call with a given text keeps one copy of it for the life of the process
/// (as `Box::leak` would), and every later call with the same text returns that copy. What is
/// kept is bounded by the distinct texts, not by how often tools are made: a program that builds
/// its 200 tools again for each session keeps 200 names, not 200 per session. The cost is one
/// lock and one hash lookup per call, made when a tool is built, never per tool call.
///
/// This is the crate's one intern, and the only text it never frees: [`Tool::name`] and
/// [`Tool::description`] are `&'static str` because the reference page pins them so, and a
/// toolset's new names and an MCP server's tools (per distinct name and description, not per
/// connection) are kept here too.
///
/// [`Tool::name`]: super::Tool::name
/// [`Tool::description`]: super::Tool::description
///
/// ```
/// use phi_agent::{AgentResult, Content, Tool, ToolContext, static_text};
/// use serde_json::{Value, json};
///
/// /// One tool per table, made from the database's schema at start-up.
/// struct CountRows {
///     name: &'static str,
///     description: &'static str,
/// }
///
/// impl CountRows {
///     fn new(table: &str) -> Self {
///         CountRows {
///             name: static_text(format!("count_{table}")),
///             description: static_text(format!("Count the rows of the table `{table}`")),
///         }
///     }
/// }
///
/// #[async_trait::async_trait]
/// impl Tool for CountRows {
///     fn name(&self) -> &'static str { self.name }
///     fn description(&self) -> &'static str { self.description }
///     fn schema(&self) -> Value { json!({"type": "object", "properties": {}}) }
///     async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
///         Ok(vec![Content::text("42")])
///     }
/// }
///
/// let tools: Vec<CountRows> = ["orders", "users"].iter().map(|t| CountRows::new(t)).collect();
/// assert_eq!(tools[0].name(), "count_orders");
/// // Made again: the same copy, nothing more kept.
/// assert!(std::ptr::eq(CountRows::new("orders").name, tools[0].name));
/// ```
pub fn static_text(text: impl AsRef<str>) -> &'static str {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock, PoisonError};

    static KEPT: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let text = text.as_ref();
    // A panic while the set is held leaves it whole (an insert either happened or did not).
    let mut kept = KEPT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(copy) = kept.get(text) {
        return copy;
    }
    let copy: &'static str = Box::leak(text.to_owned().into_boxed_str());
    kept.insert(copy);
    copy
}

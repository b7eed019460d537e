//! [`TaskSupport`]: whether an MCP client may get a tool's call as a task.

use serde::Serialize;

/// Whether an MCP client may get a tool's call as a task
/// ([`ToolOptions::task_support`](super::ToolOptions::task_support)): the
/// `io.modelcontextprotocol/tasks` extension (SEP-2663, protocol 2026-07-28), through which a
/// long-running call answers at once with a task id, the tool runs on, and the client polls
/// `tasks/get` for its status and, once it is done, its result (and may `tasks/cancel` it). A
/// question the tool asks meanwhile ([`ToolContext::elicit`](crate::ToolContext::elicit),
/// [`ToolContext::sample`](crate::ToolContext::sample)) reaches the client in the task's
/// `inputRequests`, its answer in `tasks/update`; its progress is the task's status message.
/// An error the tool returns completes the task (its result has `isError`); a panic fails it
/// (`failed`, with a JSON-RPC internal error), the server's own failure.
///
/// The names and meanings are the 2025-11-25 specification's `execution.taskSupport`. Only a
/// client that declares the extension on its request gets a task.
///
/// ```
/// use phi_agent::TaskSupport;
/// assert_eq!(TaskSupport::default(), TaskSupport::Forbidden);
/// assert_eq!(TaskSupport::Optional.as_str(), "optional");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskSupport {
    /// Every call is answered with its result (the default).
    #[default]
    Forbidden,
    /// A call from a client that declared the tasks extension is answered with a task; other
    /// clients get the result as usual.
    Optional,
    /// Every call is answered with a task; a client that did not declare the tasks extension
    /// gets the error "Missing required client capability" (-32021) and the tool does not run.
    Required,
}

impl TaskSupport {
    /// The name MCP gives it: `forbidden`, `optional` or `required`.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskSupport::Forbidden => "forbidden",
            TaskSupport::Optional => "optional",
            TaskSupport::Required => "required",
        }
    }
}

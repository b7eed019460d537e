//! The registry's one hidden hook into a tool ([`Tool::__fast_path`]): what it may do instead of
//! the plain [`Tool::call`] behind `dyn Tool`. Not part of the public API; public only because a
//! public trait's method names it.
//!
//! The registry asks it once, at registration (the typed tool's schema, whether it checks its
//! own arguments, the tool a wrapper stands for), and a typed tool's dispatch asks it again for
//! the decoder, which costs one virtual call.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;

use super::contract::Tool;
use crate::content::Content;
use crate::context::ToolContext;
use crate::error::AgentResult;

/// How the registry reaches a tool's calls; see the [module docs](self).
#[doc(hidden)]
#[non_exhaustive]
pub enum FastPath<'a> {
    /// A hand-written tool: the registry checks a call's arguments against the schema (with
    /// the `schema-validation` feature) and calls [`Tool::call`].
    Plain,
    /// A tool that checks its arguments itself, against the same schema: an MCP server's tool,
    /// which its server checks under the schema's own draft (a check here under another could
    /// refuse what the server accepts).
    ChecksOwnArguments,
    /// A wrapper whose [`Tool::call`] only forwards to this tool (a toolset's renamed tool):
    /// the registry calls the inner tool directly, so that the wrapper costs nothing per call.
    Forward(&'a Arc<dyn Tool>),
    /// A [`TypedTool`](crate::TypedTool): its decoder checks and measures the arguments.
    Typed(&'a dyn TypedCall),
}

/// What a [`TypedTool`](crate::TypedTool) offers the registry behind `dyn Tool`; implemented for
/// every typed tool, and by nothing else.
#[doc(hidden)]
pub trait TypedCall: Send + Sync {
    /// The argument schema, canonical and shared by every tool with the same `Args`: the
    /// registry stores this `Arc` instead of canonicalizing a copy of [`Tool::schema`].
    fn shared_schema(&self) -> Arc<Value>;

    /// Decodes `args` as a call's arguments are decoded, for arguments checked without a call
    /// (an input example, arguments a person edited).
    fn check_arguments(&self, args: &Value) -> AgentResult<()>;

    /// [`Tool::call`], refusing arguments longer than `max_argument_bytes` or nested too deep
    /// with the registry's own errors as it decodes them: the decoder visits every part of the
    /// arguments anyway, so the registry does not walk them once more before the call.
    fn call_within<'a>(
        &'a self,
        args: &'a Value,
        ctx: &'a ToolContext,
        max_argument_bytes: usize,
    ) -> BoxFuture<'a, AgentResult<Vec<Content>>>;
}

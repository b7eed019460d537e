//! What a typed tool offers the registry behind `dyn Tool` ([`TypedCall`]), reached through
//! the registry's one hidden hook into a tool ([`FastPath::Typed`](super::FastPath::Typed)).
//! Not part of the public API; public only because a public trait's method names it.
//!
//! The registry asks the hook once, at registration (the typed tool's schema, whether it checks
//! its own arguments, the tool a wrapper stands for), and a typed tool's dispatch asks it again
//! for the decoder, which costs one virtual call.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::content::Content;
use crate::context::{ActivationContext, ToolContext};
use crate::error::AgentResult;

/// What a [`TypedTool`](crate::TypedTool) offers the registry behind `dyn Tool`; implemented for
/// every typed tool, and by nothing else.
#[doc(hidden)]
pub trait TypedCall: Send + Sync {
    /// The argument schema, canonical and shared by every tool with the same `Args`: the
    /// registry stores this `Arc` instead of canonicalizing a copy of
    /// [`Tool::schema`](crate::Tool::schema).
    fn shared_schema(&self) -> Arc<Value>;

    /// Decodes `args` as a call's arguments are decoded, for arguments checked without a call
    /// (an input example, arguments a person edited).
    fn check_arguments(&self, args: &Value) -> AgentResult<()>;

    /// [`Tool::should_activate`](crate::Tool::should_activate).
    fn should_activate<'a>(&'a self, ctx: &'a ActivationContext) -> BoxFuture<'a, bool>;

    /// [`Tool::call`](crate::Tool::call), refusing arguments longer than `max_argument_bytes` or
    /// nested too deep with the registry's own errors as it decodes them: the decoder visits
    /// every part of the arguments anyway, so the registry does not walk them once more before
    /// the call.
    fn call_within<'a>(
        &'a self,
        args: &'a Value,
        ctx: &'a ToolContext,
        max_argument_bytes: usize,
    ) -> BoxFuture<'a, AgentResult<Vec<Content>>>;
}

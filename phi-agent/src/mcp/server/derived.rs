//! What an [`McpServer`](super::McpServer) computes from its settings once, for all its sessions.
//!
//! Over stateless HTTP every request is a fresh session ([`new_session`](super::McpServer::new_session)),
//! and rmcp asks it for its `get_info` (more than once per request) and the call for its active
//! tools: rebuilt each time, the two were about 5 k instructions of a 156 k `tools/call` of
//! `add`, for answers that only change when the server's settings do.
//!
//! - The server's info (`get_info`): a function of the settings alone.
//! - The active tools, when no registered tool is Deferred: then no activation predicate is ever
//!   consulted, every session's set is the Direct tools, and it never grows, so one set serves
//!   all. With a Deferred tool the set is the session's own, evaluated and re-evaluated as before.
//!
//! Builder methods change the settings and clear what was computed from them
//! (`McpServer::shared_mut`); a clone starts empty too, so nothing computed from other settings
//! is ever kept.

use std::sync::{Arc, OnceLock};

use rmcp::model::ServerConfig;

use crate::context::ActivationContext;
use crate::registry::{ActiveTools, ToolRegistry};

/// The computed parts, each computed on first use.
#[derive(Default)]
pub(super) struct Derived {
    info: OnceLock<ServerConfig>,
    /// `None` when some tool is Deferred (the set is then per session).
    fixed_active: OnceLock<Option<Arc<ActiveTools>>>,
}

impl Clone for Derived {
    fn clone(&self) -> Self {
        // A copy of the settings is made to change them: compute afresh.
        Self::default()
    }
}

impl Derived {
    /// The server's info, built by `build` the first time.
    pub(super) fn info(&self, build: impl FnOnce() -> ServerConfig) -> ServerConfig {
        self.info.get_or_init(build).clone()
    }

    /// The active tools every session shares when no tool of `registry` is Deferred; `None`
    /// when one is, and each session evaluates its own.
    pub(super) fn fixed_active(
        &self,
        registry: &ToolRegistry,
        context: impl FnOnce() -> ActivationContext,
    ) -> Option<&Arc<ActiveTools>> {
        self.fixed_active
            .get_or_init(|| {
                // Without a Deferred tool, `visible_tools` is `active_tools`: `activate` only
                // ever asks Deferred tools' predicates.
                (!registry.has_deferred()).then(|| Arc::new(registry.active_tools(&context())))
            })
            .as_ref()
    }
}

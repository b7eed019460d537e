//! Deferred tools activate through `requires_tools` and through sync and async predicates.

use std::sync::atomic::{AtomicBool, Ordering};

use phi_agent::registry::ToolRegistry;
use phi_agent::{ActivationContext, ToolConfig, ToolExposure, phi_tool, tools};

static UNLOCKED: AtomicBool = AtomicBool::new(false);

fn unlocked(_ctx: &ActivationContext) -> bool {
    UNLOCKED.load(Ordering::SeqCst)
}

async fn in_session_42(ctx: &ActivationContext) -> bool {
    tokio::task::yield_now().await;
    ctx.session_id == "42"
}

/// Read a file.
#[phi_tool]
async fn file_read(path: String) -> String {
    path
}

/// Write a file; offered once `file_read` is.
#[phi_tool(exposure = "deferred", requires_tools = ["file_read"])]
async fn file_write(path: String) -> String {
    path
}

/// Only after unlocking.
#[phi_tool(exposure = "deferred", activate_when = unlocked)]
async fn secret() -> &'static str {
    "secret"
}

/// Only in session 42, and only once `secret` is active.
#[phi_tool(exposure = "deferred", activate_when = in_session_42, requires_tools = ["secret"])]
async fn deep_secret() -> &'static str {
    "deeper"
}

/// Never offered to the model.
#[phi_tool(exposure = "hidden")]
async fn internal() -> &'static str {
    "internal"
}

#[tokio::main]
async fn main() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry
        .register_all(tools![file_read, file_write, secret, deep_secret, internal])
        .unwrap();
    assert_eq!(registry.get("internal").unwrap().exposure(), ToolExposure::Hidden);

    let session = ActivationContext { session_id: "42".into(), ..Default::default() };
    let active = registry.visible_tools(&session).await;
    assert_eq!(active.names(), ["file_read", "file_write"]);

    UNLOCKED.store(true, Ordering::SeqCst);
    let active = registry.visible_tools(&session).await;
    assert_eq!(active.names(), ["file_read", "file_write", "secret", "deep_secret"]);

    let other = ActivationContext { session_id: "7".into(), ..Default::default() };
    let active = registry.visible_tools(&other).await;
    assert_eq!(active.names(), ["file_read", "file_write", "secret"]);
}

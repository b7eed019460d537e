//! `needs_approval` as a flag, as `= false`, and as sync and async predicates over the decoded
//! arguments.

use phi_agent::{Tool, ToolContext, phi_tool};
// As the other pass cases do: the ui-tests crate depends on phi-agent alone.
use phi_agent::__private::serde_json::json;

fn outside_tmp(args: &RemoveArgs, _ctx: &ToolContext) -> bool {
    !args.path.starts_with("/tmp/")
}

async fn large(args: &TransferArgs, _ctx: &ToolContext) -> bool {
    tokio::task::yield_now().await;
    args.cents > 10_000
}

/// Delete a file.
#[phi_tool(needs_approval, destructive)]
async fn delete_file(path: String) -> String {
    path
}

/// Read a file.
#[phi_tool(needs_approval = false)]
fn read_file(path: String) -> String {
    path
}

/// Remove a file; outside /tmp only with approval.
#[phi_tool(needs_approval = outside_tmp)]
fn remove(path: String) -> String {
    path
}

/// Transfer money; large sums only with approval.
#[phi_tool(needs_approval = self::large)]
async fn transfer(cents: u64, ctx: &ToolContext) -> String {
    format!("{cents} in {}", ctx.session_id())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let ctx = ToolContext::default();
    assert!(DeleteFile.options().approval.is_needed(&json!({"path": "a"}), &ctx).await);
    assert!(!ReadFile.options().approval.is_needed(&json!({"path": "a"}), &ctx).await);
    assert!(Remove.options().approval.is_needed(&json!({"path": "/etc/a"}), &ctx).await);
    assert!(!Remove.options().approval.is_needed(&json!({"path": "/tmp/a"}), &ctx).await);
    assert!(Transfer.options().approval.is_needed(&json!({"cents": 50_000}), &ctx).await);
    assert!(!Transfer.options().approval.is_needed(&json!({"cents": 5}), &ctx).await);
    assert!(!Transfer.options().approval.is_needed(&json!({"cents": "lots"}), &ctx).await);
}

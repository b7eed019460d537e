use phi_agent::{ActivationContext, phi_tool};

fn in_repo(ctx: &ActivationContext) -> bool {
    ctx.workspace.join(".git").exists()
}

/// Show the git log.
#[phi_tool(activate_when = in_repo)]
async fn git_log(limit: u32) -> String {
    format!("last {limit} commits")
}

fn main() {}

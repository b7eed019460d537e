use phi_agent::{ToolContext, phi_tool};

/// Where am I?
#[phi_tool]
async fn whereami(ctx: &ToolContext, again: &ToolContext) -> String {
    format!("{} {}", ctx.session_id(), again.session_id())
}

fn main() {}

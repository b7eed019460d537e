use phi_agent::{ToolContext, phi_tool};

/// Where am I?
#[phi_tool]
async fn whereami(ctx: &mut ToolContext) -> String {
    ctx.session_id().to_string()
}

fn main() {}

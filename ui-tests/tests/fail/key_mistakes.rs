use phi_agent::{ActivationContext, phi_tool};

fn in_repo(ctx: &ActivationContext) -> bool {
    ctx.workspace.join(".git").exists()
}

// A wrong value in one key does not hide the mistakes in the others.
/// Read a file.
#[phi_tool(timeout = 0, name = "fs.read", activate_when = in_repo, requirements = [fs])]
async fn read_file(path: String) -> String {
    path
}

fn main() {}

use phi_agent::phi_tool;

// Takes the path alone instead of the decoded arguments and the context.
fn outside_tmp(path: &str) -> bool {
    !path.starts_with("/tmp/")
}

/// Delete a file.
#[phi_tool(needs_approval = outside_tmp)]
async fn delete_file(path: String) -> String {
    format!("deleted {path}")
}

/// Delete a directory.
#[phi_tool(needs_approval = "always")]
async fn delete_dir(path: String) -> String {
    format!("deleted {path}")
}

fn main() {}

use phi_agent::phi_tool;

/// Delete a file.
#[phi_tool(needs_approval = yes)]
async fn delete_file(path: String) -> String {
    path
}

fn main() {}

use phi_agent::phi_tool;

/// Delete a file.
#[phi_tool(read_only = yes, strict = 1)]
async fn delete_file(path: String) -> String {
    path
}

fn main() {}

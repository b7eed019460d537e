use phi_agent::phi_tool;

/// Read a file.
#[phi_tool(name = "fs.read")]
async fn read_file(path: String) -> String {
    path
}

fn main() {}

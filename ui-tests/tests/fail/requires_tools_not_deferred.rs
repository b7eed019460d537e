use phi_agent::phi_tool;

/// Write a file.
#[phi_tool(exposure = "hidden", requires_tools = ["file_read"])]
async fn file_write(path: String, text: String) -> String {
    format!("{path}: {} bytes", text.len())
}

fn main() {}

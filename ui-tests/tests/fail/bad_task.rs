use phi_agent::phi_tool;

/// Echo the text.
#[phi_tool(task = "always")]
async fn echo(text: String) -> String {
    text
}

fn main() {}

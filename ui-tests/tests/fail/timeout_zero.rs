use phi_agent::phi_tool;

/// Echo the text.
#[phi_tool(timeout = 0)]
async fn echo(text: String) -> String {
    text
}

fn main() {}

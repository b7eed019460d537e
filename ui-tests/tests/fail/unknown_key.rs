use phi_agent::phi_tool;

/// Echo the text.
#[phi_tool(descripton = "Echo the text back")]
async fn echo(text: String) -> String {
    text
}

fn main() {}

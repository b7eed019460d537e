use phi_agent::phi_tool;

/// Echo the text.
#[phi_tool]
async fn echo(text: impl Into<String>) -> String {
    text.into()
}

fn main() {}

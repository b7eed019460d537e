use phi_agent::{phi_tool, tools};

/// Echo the text.
#[phi_tool]
async fn echo(text: String) -> String {
    text
}

fn main() {
    let _ = tools![echo, echo];
}

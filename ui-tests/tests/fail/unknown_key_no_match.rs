use phi_agent::phi_tool;

/// Echo the text.
#[phi_tool(colour = "blue", timout = 5)]
async fn echo(text: String) -> String {
    text
}

fn main() {}

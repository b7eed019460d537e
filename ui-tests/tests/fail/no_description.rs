use phi_agent::phi_tool;

#[phi_tool]
async fn echo(text: String) -> String {
    text
}

fn main() {}

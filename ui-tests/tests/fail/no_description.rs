use phi_agent::{phi_tool, tools};

#[phi_tool]
async fn echo(text: String) -> String {
    text
}

fn main() {
    // The fn and a stand-in tool type are still emitted: only the missing description is reported.
    let _ = echo(String::new());
    let _ = tools![echo];
}

use phi_agent::phi_tool;

struct Summary {
    lines: Vec<String>,
}

/// Summarize a title.
#[phi_tool]
async fn summarize(title: String) -> Summary {
    Summary { lines: vec![title] }
}

fn main() {}

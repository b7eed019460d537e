use phi_agent::phi_tools;

pub struct Summary {
    lines: Vec<String>,
}

pub struct Summarizer;

#[phi_tools]
impl Summarizer {
    /// Summarize a title.
    #[tool]
    async fn summarize(&self, title: String) -> Summary {
        Summary { lines: vec![title] }
    }
}

fn main() {}

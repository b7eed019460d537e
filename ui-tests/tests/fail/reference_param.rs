use phi_agent::phi_tool;

/// Count words in some files.
#[phi_tool]
async fn count_words(pattern: &str, files: &[String]) -> usize {
    pattern.len() + files.len()
}

fn main() {}

use phi_agent::phi_tool;

/// Add a pair.
#[phi_tool]
async fn add((a, b): (i64, i64)) -> i64 {
    a + b
}

fn main() {}

use std::collections::HashMap;

use phi_agent::phi_tool;

/// Tag a file.
#[phi_tool(strict)]
async fn tag(path: String, labels: Vec<String>, extra: HashMap<String, String>, pair: (u8, u8)) -> String {
    format!("{path} {labels:?} {extra:?} {pair:?}")
}

fn main() {}

use phi_agent::{phi_tool, tools};

/// Search the web.
#[phi_tool(name = "search")]
async fn web_search(query: String) -> String {
    query
}

/// Search the files.
#[phi_tool(name = "search")]
async fn file_search(query: String) -> String {
    query
}

fn main() {
    let _ = tools![web_search, file_search];
}

use phi_agent::{phi_tool, phi_tools};

/// Zero calls at once would never run.
#[phi_tool(concurrency = 0)]
async fn never(text: String) -> String {
    text
}

/// A count written as a string.
#[phi_tool(concurrency = "2")]
async fn quoted(text: String) -> String {
    text
}

/// A rate in days.
#[phi_tool(rate = "10/d")]
async fn daily(text: String) -> String {
    text
}

/// A rate without its quotes or its unit.
#[phi_tool(rate = 10)]
async fn bare(text: String) -> String {
    text
}

/// A flag given a word.
#[phi_tool(sequential = yes)]
async fn barrier(text: String) -> String {
    text
}

struct Bank;

#[phi_tools]
impl Bank {
    /// Pay, at most never per second.
    #[tool(rate = "0/s", sequential)]
    async fn pay(&self, amount: u64) -> String {
        format!("paid {amount}")
    }
}

fn main() {}

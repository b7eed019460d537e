use phi_agent::registry::ToolRegistry;
use phi_agent::{Tool, ToolConfig, phi_tool, phi_tools, tools};

/// Pay an amount, once the calls before it are done.
#[phi_tool(sequential, concurrency = 1, rate = "10/s")]
async fn pay(amount: u64) -> String {
    format!("paid {amount}")
}

/// Read a balance.
#[phi_tool(read_only, concurrency = 4, rate = "1_000/h")]
async fn balance() -> u64 {
    42
}

struct Bank;

#[phi_tools]
impl Bank {
    /// Transfer between accounts.
    #[tool(sequential = true, rate = "5/m")]
    async fn transfer(&self, amount: u64) -> String {
        format!("moved {amount}")
    }
}

fn main() {
    let limits = Tool::options(&Pay).limits;
    assert!(limits.sequential);
    assert_eq!(limits.concurrency.map(|calls| calls.get()), Some(1));
    assert_eq!(limits.rate.map(|rate| rate.to_string()).as_deref(), Some("10/s"));
    let limits = Tool::options(&Balance).limits;
    assert!(!limits.sequential);
    assert_eq!(limits.rate.map(|rate| rate.to_string()).as_deref(), Some("1000/h"));
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register_all(tools![pay, balance]).unwrap();
    registry.register_all(std::sync::Arc::new(Bank).tools()).unwrap();
}

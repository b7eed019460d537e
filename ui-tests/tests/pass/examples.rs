use std::sync::Arc;

use phi_agent::registry::ToolRegistry;
use phi_agent::{ResultBudget, ToolCallers, phi_tool, phi_tools, tools};

/// Get the forecast.
#[phi_tool(
    example = {"city": "Paris"},
    example = r#"{"city": "Oslo", "days": 3}"#,
    example = GetForecastArgs { city: "Rome".into(), days: Some(2) },
    max_result = "4 KiB",
    callers = "code",
)]
fn get_forecast(city: String, days: Option<u8>) -> String {
    format!("{city} {days:?}")
}

struct Store;

#[phi_tools]
impl Store {
    /// Look up an item.
    #[tool(example = {"sku": "A-1"}, max_result = "500 tokens", callers = "direct")]
    async fn lookup(&self, #[serde(rename = "sku")] id: String) -> String {
        id
    }
}

fn main() {
    let store = Arc::new(Store);
    let mut registry = ToolRegistry::default();
    registry.register_all(tools![get_forecast, store.lookup]).unwrap();
    let forecast = registry.get("get_forecast").unwrap();
    assert_eq!(forecast.input_examples().len(), 3);
    assert_eq!(forecast.input_examples()[2]["city"], "Rome");
    assert_eq!(forecast.result_limit(), 4096);
    assert_eq!(forecast.callers(), ToolCallers::Code);
    let lookup = registry.get("lookup").unwrap();
    assert_eq!(lookup.input_examples()[0]["sku"], "A-1");
    assert_eq!(lookup.result_limit(), ResultBudget::Tokens(500).bytes());
    assert_eq!(lookup.callers(), ToolCallers::Direct);
}

use phi_agent::phi_tool;

/// Tomorrow's weather for a city.
#[phi_tool(ui = "https://example.com/card")]
async fn forecast(city: String) -> String {
    city
}

fn main() {}

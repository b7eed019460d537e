use phi_agent::phi_tool;

pub struct Forecast {
    pub city: String,
}

// An example written as a Rust value must be the tool's own arguments struct.
/// Get the weather.
#[phi_tool(example = Forecast { city: "Paris".into() })]
fn get_weather(city: String) -> String {
    city
}

fn main() {}

use phi_agent::phi_tool;

// Every example's mistake is reported, each on its token.
/// Get the weather.
#[phi_tool(
    example = {city: "Paris"},
    example = {"citty": "Paris"},
    example = {"city": None},
    example = {"city": "Oslo", "days": 3,},
    example = r#"{"city" "Rome"}"#,
)]
fn get_weather(city: String, #[phi(default)] days: u8) -> String {
    format!("{city} {days}")
}

fn main() {}

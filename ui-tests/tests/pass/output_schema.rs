//! A tool returning a `JsonSchema` struct publishes its schema as the output schema.

use phi_agent::__private::{schemars, serde};
use phi_agent::{AgentResult, Tool, phi_tool};

/// A forecast.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[serde(crate = "phi_agent::__private::serde")]
#[schemars(crate = "phi_agent::__private::schemars")]
pub struct Forecast {
    /// Degrees Celsius
    pub celsius: f64,
    pub summary: String,
}

/// A struct that is serializable but has no schema.
#[derive(serde::Serialize)]
#[serde(crate = "phi_agent::__private::serde")]
pub struct Opaque {
    pub value: u8,
}

/// Forecast the weather.
#[phi_tool]
async fn get_forecast(city: String) -> AgentResult<Forecast> {
    Ok(Forecast { celsius: 21.5, summary: city })
}

/// Something opaque.
#[phi_tool]
async fn get_opaque() -> Opaque {
    Opaque { value: 1 }
}

fn main() {
    let schema = GetForecast.options().output_schema.expect("a struct output has a schema");
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["celsius"]["description"], "Degrees Celsius");
    assert_eq!(GetOpaque.options().output_schema, None);
}

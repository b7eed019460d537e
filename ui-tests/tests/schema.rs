//! A macro tool and the same tool written by hand as a `TypedTool` look identical to the model.

use phi_agent::__private::{async_trait, schemars, serde, serde_json::json};
use phi_agent::{AgentResult, Tool, ToolContext, TypedTool, phi_tool};

/// Temperature units.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(crate = "phi_agent::__private::serde", rename_all = "snake_case")]
#[schemars(crate = "phi_agent::__private::schemars")]
pub enum Units {
    /// Degrees Celsius
    Celsius,
    /// Degrees Fahrenheit
    Fahrenheit,
}

/// Get current weather for a city.
#[phi_tool]
async fn get_weather(
    /// City name, e.g. "Beijing"
    city: String,
    /// Days ahead
    #[phi(default = 3)]
    days: u8,
    /// Units of the answer
    units: Option<Units>,
    /// Extra detail
    #[phi(rename = "verbose")]
    detailed: bool,
    _ctx: &ToolContext,
) -> AgentResult<String> {
    Ok(format!("{city} {days} {units:?} {detailed}"))
}

fn three() -> u8 {
    3
}

// A macro tool's arguments refuse unknown fields; the same type by hand says so too.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(crate = "phi_agent::__private::serde", deny_unknown_fields)]
#[schemars(crate = "phi_agent::__private::schemars")]
struct HandArgs {
    /// City name, e.g. "Beijing"
    city: String,
    /// Days ahead
    #[serde(default = "three")]
    days: u8,
    /// Units of the answer
    units: Option<Units>,
    /// Extra detail
    #[serde(rename = "verbose")]
    detailed: bool,
}

struct HandWritten;

#[async_trait]
impl TypedTool for HandWritten {
    type Args = HandArgs;
    type Output = String;

    fn name(&self) -> &'static str {
        "get_weather"
    }

    fn description(&self) -> &'static str {
        "Get current weather for a city."
    }

    async fn call_typed(&self, args: HandArgs, _ctx: &ToolContext) -> AgentResult<String> {
        Ok(format!(
            "{} {} {:?} {}",
            args.city, args.days, args.units, args.detailed
        ))
    }
}

#[test]
fn macro_schema_equals_hand_written_schema() {
    assert_eq!(
        Tool::schema(&GetWeather).to_string(),
        Tool::schema(&HandWritten).to_string(),
        "byte-identical, property order included"
    );
    assert_eq!(Tool::name(&GetWeather), Tool::name(&HandWritten));
    assert_eq!(
        Tool::description(&GetWeather),
        Tool::description(&HandWritten)
    );
}

#[tokio::test]
async fn macro_tool_and_hand_written_tool_answer_alike() {
    let ctx = ToolContext::default();
    for args in [
        json!({"city": "Oslo", "verbose": true}),
        json!({"city": "Lima", "days": 1, "units": "fahrenheit", "verbose": false}),
    ] {
        let by_macro = GetWeather.call(&args, &ctx).await;
        let by_hand = HandWritten.call(&args, &ctx).await;
        assert!(by_macro.is_ok());
        assert_eq!(format!("{by_macro:?}"), format!("{by_hand:?}"));
    }
    let bad = json!({"city": 5, "verbose": true, "dayz": 1});
    let by_macro = GetWeather.call(&bad, &ctx).await.unwrap_err().to_string();
    let by_hand = HandWritten.call(&bad, &ctx).await.unwrap_err().to_string();
    assert_eq!(by_macro, by_hand);
}

/// The same tool as `get_weather`, as a method of a type with state.
pub struct WeatherService {
    prefix: String,
}

#[phi_agent::phi_tools]
impl WeatherService {
    /// Get current weather for a city.
    #[tool]
    async fn get_weather(
        &self,
        /// City name, e.g. "Beijing"
        city: String,
        /// Days ahead
        #[phi(default = 3)]
        days: u8,
        /// Units of the answer
        units: Option<Units>,
        /// Extra detail
        #[phi(rename = "verbose")]
        detailed: bool,
        _ctx: &ToolContext,
    ) -> AgentResult<String> {
        Ok(format!("{}{city} {days} {units:?} {detailed}", self.prefix))
    }
}

#[test]
fn method_schema_equals_free_fn_schema() {
    let service = std::sync::Arc::new(WeatherService {
        prefix: String::new(),
    });
    let method = service.tools().remove(0);
    assert_eq!(
        method.schema().to_string(),
        Tool::schema(&GetWeather).to_string(),
        "byte-identical, property order included"
    );
    assert_eq!(method.name(), Tool::name(&GetWeather));
    assert_eq!(method.description(), Tool::description(&GetWeather));
    assert_eq!(
        method.options().output_schema,
        Tool::options(&GetWeather).output_schema
    );
}

#[tokio::test]
async fn method_tool_and_free_fn_tool_answer_alike() {
    let service = std::sync::Arc::new(WeatherService {
        prefix: String::new(),
    });
    let method = phi_agent::tools![service.get_weather].remove(0);
    let ctx = ToolContext::default();
    for args in [
        json!({"city": "Oslo", "verbose": true}),
        json!({"city": "Lima", "days": 1, "units": "fahrenheit", "verbose": false}),
        json!({"city": 5, "verbose": true, "dayz": 1}),
    ] {
        let by_method = method.call(&args, &ctx).await;
        let by_fn = GetWeather.call(&args, &ctx).await;
        assert_eq!(format!("{by_method:?}"), format!("{by_fn:?}"));
    }
}

/// Convert an amount.
#[phi_tool]
async fn convert(
    /// The amount
    amount: f64,
    /// The unit it is in (read by a later version; named so that rustc does not warn)
    _unit: String,
) -> f64 {
    amount
}

#[tokio::test]
async fn a_leading_underscore_is_not_part_of_the_name_the_model_sees() {
    let schema = Tool::schema(&Convert);
    assert!(schema["properties"].get("unit").is_some(), "{schema}");
    assert!(schema["properties"].get("_unit").is_none(), "{schema}");
    assert_eq!(schema["required"], json!(["amount", "unit"]));
    let ctx = ToolContext::default();
    let answer = Convert
        .call(&json!({"amount": 2.5, "unit": "kg"}), &ctx)
        .await
        .unwrap();
    assert!(format!("{answer:?}").contains("2.5"), "{answer:?}");
}

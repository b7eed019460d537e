//! `tools![]` takes module paths, hand-written tools and expressions; `crate = ..` renames the
//! runtime path; the generated types share the fn's visibility.

use phi_agent::{AgentResult, Tool, ToolContext, TypedTool, tools};

mod runtime {
    pub use phi_agent as renamed;
}

pub mod weather {
    use phi_agent::phi_tool;

    /// Forecast the weather.
    #[phi_tool(crate = crate::runtime::renamed)]
    pub async fn forecast(city: String) -> String {
        format!("sunny in {city}")
    }

    /// The current temperature.
    #[phi_tool]
    pub(crate) fn r#temperature(r#type: String) -> String {
        r#type
    }
}

/// A hand-written tool.
struct Clock;

#[phi_agent::__private::async_trait]
impl TypedTool for Clock {
    type Args = weather::ForecastArgs;
    type Output = String;

    fn name(&self) -> &'static str {
        "clock"
    }

    fn description(&self) -> &'static str {
        "Tell the time in a city"
    }

    async fn call_typed(&self, args: Self::Args, _ctx: &ToolContext) -> AgentResult<String> {
        Ok(format!("noon in {}", args.city))
    }
}

fn make_clock() -> Clock {
    Clock
}

fn main() {
    let tools = tools![weather::forecast, weather::temperature, Clock, make_clock(),];
    let names: Vec<_> = tools.iter().map(|tool| tool.name()).collect();
    assert_eq!(names, ["forecast", "temperature", "clock", "clock"]);
    assert_eq!(tools![].len(), 0);
    let clock = Clock;
    assert_eq!(tools![(clock)][0].name(), "clock");
    let _: weather::Forecast = weather::Forecast;
    let args = weather::ForecastArgs { city: "Oslo".into() };
    assert_eq!(args.city, "Oslo");
    assert!(weather::Temperature.schema()["properties"]["type"].is_object());
}

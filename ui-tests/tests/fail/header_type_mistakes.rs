use phi_agent::__private::{schemars, serde};
use phi_agent::{phi_tool, phi_tools};

#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(crate = "phi_agent::__private::serde")]
#[schemars(crate = "phi_agent::__private::schemars")]
pub struct Place {
    pub city: String,
}

/// Deploys a service.
#[phi_tool]
fn deploy(
    // Not a string, integer or boolean.
    #[phi(header = "Ratio")] ratio: f64,
    #[phi(header = "Tags")] tags: Vec<String>,
    #[phi(header = "Place")] place: Place,
    #[phi(header = "Maybe")] maybe: Option<f32>,
    // Fine.
    #[phi(header = "Region")] region: Option<String>,
) -> String {
    let _ = (ratio, tags, place, maybe, region);
    String::new()
}

pub struct Deployer;

#[phi_tools]
impl Deployer {
    /// Deploys a service.
    #[tool]
    async fn rollout(&self, #[phi(header = "Weight")] weight: f64) -> String {
        weight.to_string()
    }
}

fn main() {}

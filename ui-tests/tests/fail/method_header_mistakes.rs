use phi_agent::phi_tools;

pub struct Deployer;

#[phi_tools]
impl Deployer {
    /// Deploys a service.
    #[tool]
    async fn deploy(
        &self,
        #[phi(header = "Region")] region: String,
        #[phi(header = "REGION")] zone: String,
        #[phi(header = "Bad/Name")] bad: String,
    ) -> String {
        format!("{region}{zone}{bad}")
    }
}

fn main() {}

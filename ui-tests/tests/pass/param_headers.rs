//! `#[phi(header = "..")]` (SEP-2243): each annotated property carries `x-mcp-header`, on a
//! fn and on a method alike; every primitive type is accepted, optional ones too.

use std::sync::Arc;

use phi_agent::{Tool, phi_tool, phi_tools};

/// Deploys a service.
#[phi_tool]
fn deploy(
    /// Where
    #[phi(header = "Region")]
    region: String,
    #[phi(header = "X-Priority_2.v1", default = 3)] priority: u8,
    #[phi(header = "Dry-Run")] dry_run: bool,
    #[phi(header = "Tenant", rename = "tenant_id")] tenant: Option<i64>,
    service: String,
) -> String {
    format!("{region}{priority}{dry_run}{tenant:?}{service}")
}

pub struct Deployer;

#[phi_tools]
impl Deployer {
    /// Deploys a service.
    #[tool]
    async fn rollout(&self, #[phi(header = "Region")] region: String, wave: u32) -> String {
        format!("{region}{wave}")
    }
}

fn main() {
    let schema = Tool::schema(&Deploy);
    let properties = &schema["properties"];
    assert_eq!(properties["region"]["x-mcp-header"], "Region");
    assert_eq!(properties["priority"]["x-mcp-header"], "X-Priority_2.v1");
    assert_eq!(properties["dry_run"]["x-mcp-header"], "Dry-Run");
    assert_eq!(properties["tenant_id"]["x-mcp-header"], "Tenant");
    assert!(properties["service"].get("x-mcp-header").is_none());
    let tools = Arc::new(Deployer).tools();
    assert_eq!(tools[0].schema()["properties"]["region"]["x-mcp-header"], "Region");
    assert!(tools[0].schema()["properties"]["wave"].get("x-mcp-header").is_none());
}

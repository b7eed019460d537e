use phi_agent::phi_tool;

/// Deploys a service.
#[phi_tool]
fn deploy(
    // Not RFC 9110 tokens.
    #[phi(header = "")] empty: String,
    #[phi(header = "My Region")] spaced: String,
    #[phi(header = "Region:")] colon: String,
    // The same header twice, whatever the case.
    #[phi(header = "Tenant")] tenant: String,
    #[phi(header = "tenant")] tenant_again: String,
    // Not a key of `#[phi(..)]`.
    #[phi(headers = "Typo")] typo: String,
) -> String {
    let _ = (empty, spaced, colon, tenant, tenant_again, typo);
    String::new()
}

fn main() {}

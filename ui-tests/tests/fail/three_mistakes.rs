use phi_agent::phi_tool;

/// Look up a name.
#[phi_tool(exposure = "visible")]
async fn lookup(name: &str, (x, y): (u8, u8)) -> String {
    format!("{name} {x} {y}")
}

fn main() {}

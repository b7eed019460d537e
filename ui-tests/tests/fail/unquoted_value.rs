use phi_agent::phi_tool;

/// Look a key up.
#[phi_tool(exposure = deferred, name = lookup_key, origin = crm)]
async fn lookup(key: String) -> String {
    key
}

/// Echo the text.
#[phi_tool(exposure = sometimes)]
async fn echo(text: String) -> String {
    text
}

fn main() {}

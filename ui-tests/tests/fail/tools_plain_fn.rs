use phi_agent::{phi_tool, tools};

/// Formats a price; not a tool (no `#[phi_tool]`). rustc reports the type `#[phi_tool]` would
/// have generated, next to the fn: no macro can tell, before names resolve, that a path is a
/// plain fn (see README, "A tool in a few lines").
fn plain_helper(cents: u64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

/// Look up a price.
#[phi_tool]
async fn price(sku: String) -> String {
    sku
}

fn main() {
    let _ = plain_helper(250);
    let _ = tools![plain_helper];
    // Listed beside a tool: still one error, not a second one from the check that the listed
    // tools' names are distinct.
    let _ = tools![price, plain_helper];
}

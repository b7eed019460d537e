use phi_agent::tools;

/// Formats a price; not a tool (no `#[phi_tool]`). rustc reports the type `#[phi_tool]` would
/// have generated, next to the fn: no macro can tell, before names resolve, that a path is a
/// plain fn (see README, "A tool in a few lines").
fn plain_helper(cents: u64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}

fn main() {
    let _ = plain_helper(250);
    let _ = tools![plain_helper];
}

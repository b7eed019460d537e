use phi_agent::phi_tool;

#[derive(Debug)]
struct LookupFailed;

/// Look up a user.
#[phi_tool]
async fn lookup(id: u64) -> Result<String, LookupFailed> {
    if id == 0 { Err(LookupFailed) } else { Ok(format!("user {id}")) }
}

fn main() {}

use phi_agent::phi_tool;

/// Roll dice.
#[phi_tool]
async fn roll(#[phi(defualt = 6)] sides: u32) -> u32 {
    sides
}

fn main() {}

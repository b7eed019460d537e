use std::rc::Rc;

use phi_agent::phi_tool;

/// Count to three.
#[phi_tool]
async fn count(start: u32) -> u32 {
    let shared = Rc::new(start);
    tokio::task::yield_now().await;
    *shared + 3
}

fn main() {}

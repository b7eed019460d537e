use std::cell::Cell;

use phi_agent::phi_tools;

pub struct Counter {
    count: Cell<u32>,
}

#[phi_tools]
impl Counter {
    /// Add one to the counter.
    #[tool]
    async fn increment(&self) -> u32 {
        self.count.set(self.count.get() + 1);
        self.count.get()
    }
}

fn main() {}

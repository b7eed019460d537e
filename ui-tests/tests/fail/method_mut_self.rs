use phi_agent::phi_tools;

pub struct Counter {
    count: u32,
}

#[phi_tools]
impl Counter {
    /// Add one to the counter.
    #[tool]
    async fn increment(&mut self) -> u32 {
        self.count += 1;
        self.count
    }
}

fn main() {}

use phi_agent::phi_tools;

pub struct Store;

#[phi_tools]
impl Store {
    /// Look a key up (but not marked `#[tool]`).
    pub async fn lookup(&self, key: String) -> String {
        key
    }
}

fn main() {}

use phi_agent::phi_tools;

pub trait Lookup {
    async fn lookup(&self, key: String) -> String;
}

pub struct Store;

#[phi_tools]
impl Lookup for Store {
    /// Look a key up.
    #[tool]
    async fn lookup(&self, key: String) -> String {
        key
    }
}

fn main() {}

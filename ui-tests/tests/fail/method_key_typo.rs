use phi_agent::phi_tools;

pub struct Store;

// Inside `#[phi_tools]`, a key mistake names the attribute as written: `#[tool(..)]`.
#[phi_tools]
impl Store {
    /// Look a key up.
    #[tool(readonly, needs_approval = yes)]
    async fn lookup(&self, key: String) -> String {
        key
    }
}

fn main() {}

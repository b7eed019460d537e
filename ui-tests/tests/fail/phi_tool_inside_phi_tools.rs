use phi_agent::phi_tools;

pub struct Store;

#[phi_tools]
impl Store {
    /// Look a key up.
    #[phi_agent::phi_tool(read_only)]
    async fn lookup(&self, key: String) -> String {
        key
    }
}

fn main() {}

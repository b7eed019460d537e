use phi_agent::{phi_tools, tools};

pub struct Store;

#[phi_tools]
impl Store {
    /// Look a key up.
    #[tool]
    async fn lookup(&self, key: String) -> String {
        key
    }
}

fn main() {
    let store = Store;
    let _ = tools![store.lookup];
}

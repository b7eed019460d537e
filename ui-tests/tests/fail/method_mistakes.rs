use phi_agent::phi_tools;

pub struct Store;

// Every mistake of the block is reported at once, each on its own tokens.
#[phi_tools(tools = "all")]
impl Store {
    /// Look a key up.
    #[tool(nme = "find", timeout = "5s")]
    async fn lookup(&self, key: &str) -> String {
        key.to_owned()
    }

    #[tool(read_only)]
    async fn undocumented(&self) -> String {
        String::new()
    }
}

fn main() {}

use phi_agent::phi_tools;

pub struct Files;

#[phi_tools]
impl Files {
    /// Read a file.
    #[tool]
    async fn read(&self, path: String) -> String {
        path
    }

    /// Read a file, older version.
    #[tool(name = "read")]
    async fn read_v1(&self, path: String) -> String {
        path
    }
}

fn main() {}

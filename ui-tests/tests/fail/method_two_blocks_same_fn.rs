use phi_agent::phi_tools;

pub struct Catalog;

mod read {
    #[phi_agent::phi_tools]
    impl super::Catalog {
        /// List the items.
        #[tool]
        pub async fn list_items(&self) -> Vec<String> {
            Vec::new()
        }
    }
}

// A second block needs its own `tools_fn`.
#[phi_tools]
impl Catalog {
    /// Count the items.
    #[tool]
    pub async fn count_items(&self) -> usize {
        0
    }
}

fn main() {}

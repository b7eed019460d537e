use phi_agent::phi_tools;

pub struct Store;

#[phi_tools]
impl Store {
    /// Save a value.
    #[tool]
    async fn save<T: std::fmt::Debug>(&self, value: T) -> String {
        format!("{value:?}")
    }
}

fn main() {}

use phi_agent::tool;

pub struct Greeter;

impl Greeter {
    /// Greet someone.
    #[tool]
    async fn greet(&self, name: String) -> String {
        format!("hello {name}")
    }
}

fn main() {
    let _ = Greeter;
}

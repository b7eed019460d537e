use phi_agent::phi_tools;

pub struct Greeter {
    greeting: String,
}

#[phi_tools]
impl Greeter {
    /// Greet someone.
    #[tool]
    fn greet(&self, name: String) -> String {
        format!("{} {name}", self.greeting)
    }
}

fn main() {}

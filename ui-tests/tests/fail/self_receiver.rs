use phi_agent::phi_tool;

struct Greeter {
    greeting: String,
}

impl Greeter {
    /// Greet someone.
    #[phi_tool]
    async fn greet(&self, name: String) -> String {
        format!("{} {name}", self.greeting)
    }
}

fn main() {
    let _ = Greeter { greeting: "hi".into() };
}

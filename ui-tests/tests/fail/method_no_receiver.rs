use phi_agent::phi_tools;

pub struct Clock;

#[phi_tools]
impl Clock {
    /// The current time.
    #[tool]
    async fn now() -> String {
        "noon".into()
    }
}

fn main() {}

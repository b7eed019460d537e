use phi_agent::phi_tools;

pub struct Report {
    text: String,
}

#[phi_tools]
impl Report {
    /// Publish the report.
    #[tool]
    async fn publish(self) -> String {
        self.text
    }
}

fn main() {}

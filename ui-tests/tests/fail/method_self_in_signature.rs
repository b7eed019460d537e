use phi_agent::phi_tools;

pub struct Point {
    x: f64,
}

#[phi_tools]
impl Point {
    /// Move the point.
    #[tool]
    async fn moved(&self, to: Self) -> Self {
        to
    }
}

fn main() {}

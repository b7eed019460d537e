use phi_agent::phi_tools;

pub struct View<'a> {
    rows: &'a [String],
}

#[phi_tools]
impl<'a> View<'a> {
    /// Count the rows.
    #[tool]
    async fn count_rows(&self) -> usize {
        self.rows.len()
    }
}

fn main() {}

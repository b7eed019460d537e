use phi_agent::phi_tools;

pub trait Backend: Send + Sync + 'static {
    type Key;
}

pub struct Store<B: Backend> {
    backend: B,
}

#[phi_tools]
impl<B: Backend> Store<B> {
    /// Look a key up.
    #[tool]
    async fn lookup(&self, key: B::Key) -> String {
        let _ = (&self.backend, key);
        String::new()
    }
}

fn main() {}

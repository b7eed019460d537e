//! A generic impl: the tools are generic over the same parameters, with the impl's bounds.

use std::sync::Arc;

use phi_agent::__private::serde_json::json;
use phi_agent::{AgentResult, ToolContext, phi_tools, tools};

pub trait Backend: Send + Sync + 'static {
    fn get(&self, key: &str) -> Option<String>;
}

pub struct Memory;

impl Backend for Memory {
    fn get(&self, key: &str) -> Option<String> {
        (key == "a").then(|| "1".to_owned())
    }
}

pub struct Store<B: Backend> {
    backend: B,
    prefix: String,
}

#[phi_tools]
impl<B: Backend> Store<B>
where
    B: Sized,
{
    /// Look a key up.
    #[tool(read_only)]
    pub async fn lookup(&self, key: String) -> AgentResult<Option<String>> {
        Ok(self.backend.get(&key).map(|value| format!("{}{value}", self.prefix)))
    }

    /// The store's prefix.
    #[tool]
    pub async fn prefix(self: Arc<Self>) -> String {
        self.prefix.clone()
    }
}

#[tokio::main]
async fn main() {
    let store = Arc::new(Store { backend: Memory, prefix: "v=".into() });
    let all = Arc::clone(&store).tools();
    assert_eq!(all.len(), 2);
    let ctx = ToolContext::default();
    let out = all[0].call(&json!({"key": "a"}), &ctx).await.unwrap();
    assert_eq!(format!("{out:?}"), format!("{:?}", vec![phi_agent::Content::json(json!("v=1"))]));
    let listed = tools![store.lookup, store.prefix];
    assert_eq!(listed[1].name(), "prefix");
    assert_eq!(StoreLookup::<Memory>::NAME, "lookup");
}

//! `&self`, `self: &Self` and `self: Arc<Self>` receivers, `&ToolContext` injected, keys per
//! method, methods that are not tools untouched, registration through `tools()` and `tools![]`.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use phi_agent::__private::serde_json::json;
use phi_agent::{AgentResult, ToolContext, ToolExposure, phi_tools, tools};

pub struct Counter {
    count: AtomicU32,
}

#[phi_tools]
impl Counter {
    /// Add to the counter.
    ///
    /// Returns the new count.
    #[tool(timeout = 5_000, idempotent = false)]
    pub async fn add(
        &self,
        /// How much to add
        #[phi(default = 1)]
        by: u32,
    ) -> u32 {
        self.count.fetch_add(by, Ordering::SeqCst) + by
    }

    /// Read the counter.
    #[tool(read_only, name = "current")]
    async fn read(self: &Self, ctx: &ToolContext) -> AgentResult<String> {
        Ok(format!("{} in {}", self.count.load(Ordering::SeqCst), ctx.session_id()))
    }

    /// Hand the counter to a background task.
    #[tool(exposure = "hidden")]
    async fn share(self: Arc<Self>) -> u32 {
        let counter = Arc::clone(&self);
        tokio::spawn(async move { counter.count.load(Ordering::SeqCst) }).await.unwrap()
    }

    /// Not a tool.
    pub fn reset(&self) {
        self.count.store(0, Ordering::SeqCst);
    }

    /// Not a tool either, and without a receiver.
    pub fn new() -> Self {
        Counter { count: AtomicU32::new(0) }
    }
}

#[tokio::main]
async fn main() {
    let counter = Arc::new(Counter::new());
    let all = Arc::clone(&counter).tools();
    let names: Vec<_> = all.iter().map(|tool| tool.name()).collect();
    assert_eq!(names, ["add", "current", "share"]);
    assert_eq!(all[0].description(), "Add to the counter.\n\nReturns the new count.");
    assert_eq!(all[0].timeout_ms(), Some(5_000));
    assert_eq!(all[0].options().annotations.idempotent, Some(false));
    assert_eq!(all[1].options().annotations.read_only, Some(true));
    assert_eq!(all[2].exposure(), ToolExposure::Hidden);
    assert!(all[1].schema()["properties"].get("ctx").is_none());

    let ctx = ToolContext::default();
    let out = all[0].call(&json!({"by": 2}), &ctx).await.unwrap();
    assert_eq!(format!("{out:?}"), format!("{:?}", vec![phi_agent::Content::json(2.into())]));
    // `tools![]` builds the same tools around the same counter.
    let listed = tools![counter.add, counter.read, (&counter).share];
    listed[0].call(&json!({}), &ctx).await.unwrap();
    let out = listed[1].call(&json!({}), &ctx).await.unwrap();
    assert_eq!(format!("{out:?}"), format!("{:?}", vec![phi_agent::Content::text(format!("3 in {}", ctx.session_id()))]));
    let out = listed[2].call(&json!({}), &ctx).await.unwrap();
    assert_eq!(format!("{out:?}"), format!("{:?}", vec![phi_agent::Content::json(3.into())]));

    // The methods stay callable as written; the generated types have documented names.
    assert_eq!(counter.add(1).await, 4);
    counter.reset();
    assert_eq!(CounterRead::NAME, "current");
    let _args = CounterAddArgs { by: 1 };
    let _tool: CounterAdd = CounterAdd::clone(&CounterAdd(Arc::clone(&counter)));
    assert!(Arc::strong_count(&counter) > 1, "the tools hold the counter");
}

//! Tools that misbehave: every fault becomes an error result, the registry keeps serving, and
//! nothing outlives its call unless it chose to ignore its cancellation token.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use phi_agent::registry::{ToolCallResult, ToolRegistry};
use phi_agent::{ActivationContext, AgentResult, Content, Tool, ToolConfig, ToolContext};
use serde_json::{Value, json};

/// A tool built from a closure over its context.
struct Faulty<F> {
    name: &'static str,
    timeout_ms: Option<u64>,
    run: F,
}

#[async_trait]
impl<F, Fut> Tool for Faulty<F>
where
    F: Fn(ToolContext) -> Fut + Send + Sync,
    Fut: Future<Output = AgentResult<Vec<Content>>> + Send,
{
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        "a misbehaving tool"
    }
    fn schema(&self) -> Value {
        json!({"type": "object"})
    }
    async fn call(&self, _args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        (self.run)(ctx.clone()).await
    }
    fn timeout_ms(&self) -> Option<u64> {
        self.timeout_ms
    }
}

fn tool<F, Fut>(name: &'static str, timeout_ms: Option<u64>, run: F) -> Faulty<F>
where
    F: Fn(ToolContext) -> Fut + Send + Sync,
    Fut: Future<Output = AgentResult<Vec<Content>>> + Send,
{
    Faulty {
        name,
        timeout_ms,
        run,
    }
}

async fn call(registry: &ToolRegistry, name: &str, ctx: &ToolContext) -> ToolCallResult {
    let active = registry.visible_tools(&ActivationContext::default()).await;
    registry.dispatch(&active, name, &json!({}), ctx).await
}

/// Panics when dropped.
struct BombOnDrop;

impl Drop for BombOnDrop {
    fn drop(&mut self) {
        panic!("exploded in Drop");
    }
}

#[tokio::test]
async fn a_panic_inside_drop_is_contained() {
    let mut registry = ToolRegistry::default();
    registry
        .register(tool("drop_bomb", None, |_ctx| async {
            let _bomb = BombOnDrop;
            Ok(vec![Content::text("never seen")])
        }))
        .unwrap();
    let result = call(&registry, "drop_bomb", &ToolContext::default()).await;
    assert!(result.is_error);
    assert!(
        result.to_model_text().contains("exploded in Drop"),
        "{}",
        result.to_model_text()
    );
}

#[tokio::test(start_paused = true)]
async fn a_panic_while_a_timed_out_tool_is_dropped_is_contained() {
    let mut registry = ToolRegistry::default();
    registry
        .register(tool("slow_bomb", Some(100), |_ctx| async {
            let _bomb = BombOnDrop;
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok(vec![])
        }))
        .unwrap();
    let result = call(&registry, "slow_bomb", &ToolContext::default()).await;
    assert!(result.is_error);
    // The timed-out future is dropped inside the panic guard, so the panic is what gets reported.
    let text = result.to_model_text();
    assert!(
        text.contains("tool `slow_bomb` failed unexpectedly (it panicked: exploded in Drop)"),
        "{text}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_hanging_tool_is_ended_by_its_timeout() {
    let mut registry = ToolRegistry::default();
    registry
        .register(tool("hang", Some(2_000), |_ctx| std::future::pending()))
        .unwrap();
    let start = tokio::time::Instant::now();
    let result = call(&registry, "hang", &ToolContext::default()).await;
    assert!(result.to_model_text().contains("timed out after 2000 ms"));
    assert_eq!(start.elapsed(), Duration::from_secs(2));
}

#[tokio::test(start_paused = true)]
async fn a_tool_that_ignores_cancellation_is_still_stopped() {
    let polls_after_timeout = Arc::new(AtomicUsize::new(0));
    let counter = polls_after_timeout.clone();
    let mut registry = ToolRegistry::default();
    registry
        .register(tool("stubborn", Some(500), move |_ctx| {
            let counter = counter.clone();
            async move {
                // Never looks at its token; keeps working in small steps.
                loop {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    counter.fetch_add(1, Ordering::SeqCst);
                }
            }
        }))
        .unwrap();
    let result = call(&registry, "stubborn", &ToolContext::default()).await;
    assert!(result.to_model_text().contains("timed out after 500 ms"));
    let steps = polls_after_timeout.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(
        polls_after_timeout.load(Ordering::SeqCst),
        steps,
        "dropped, so it runs no more"
    );
}

#[tokio::test(start_paused = true)]
async fn work_spawned_by_a_tool_can_stop_when_the_call_is_cancelled() {
    let stopped = Arc::new(AtomicBool::new(false));
    let flag = stopped.clone();
    let mut registry = ToolRegistry::default();
    registry
        .register(tool("spawner", Some(300), move |ctx| {
            let flag = flag.clone();
            async move {
                let token = ctx.cancellation().clone();
                tokio::spawn(async move {
                    token.cancelled().await;
                    flag.store(true, Ordering::SeqCst);
                });
                std::future::pending().await
            }
        }))
        .unwrap();
    let ctx = ToolContext::default();
    let result = call(&registry, "spawner", &ctx).await;
    assert!(result.is_error);
    tokio::task::yield_now().await;
    tokio::time::sleep(Duration::from_millis(1)).await;
    assert!(
        stopped.load(Ordering::SeqCst),
        "the spawned task saw the call's token cancelled"
    );
}

#[tokio::test]
async fn a_hundred_megabyte_output_is_truncated() {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry
        .register(tool("flood", None, |_ctx| async {
            Ok(vec![Content::text("y".repeat(100 * 1024 * 1024))])
        }))
        .unwrap();
    let result = call(&registry, "flood", &ToolContext::default()).await;
    assert!(!result.is_error);
    let total: usize = result
        .content
        .iter()
        .filter_map(Content::as_text)
        .map(str::len)
        .sum();
    let limit = ToolConfig::default().max_output_bytes;
    assert!(total <= limit + 200, "kept {total} bytes");
    assert!(
        result
            .to_model_text()
            .contains("output truncated: 104857600 bytes")
    );
}

#[tokio::test]
async fn many_panics_in_a_row_leave_the_registry_serving() {
    let mut registry = ToolRegistry::default();
    registry
        .register(tool("bomb", None, |_ctx| async { panic!("again") }))
        .unwrap();
    registry
        .register(tool("ok", None, |_ctx| async {
            Ok(vec![Content::text("fine")])
        }))
        .unwrap();
    for _ in 0..200 {
        assert!(
            call(&registry, "bomb", &ToolContext::default())
                .await
                .is_error
        );
    }
    assert_eq!(
        call(&registry, "ok", &ToolContext::default())
            .await
            .to_model_text(),
        "fine"
    );
}

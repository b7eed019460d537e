//! Dispatch cost against its floor: decoding the arguments (borrowed, no clone of the `Value`)
//! plus a direct call of the function. Both are measured in the same run and in the same loop
//! shape (one `block_on` per batch), so their ratio is meaningful on a noisy machine.

use std::hint::black_box;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use criterion::{Criterion, criterion_group, criterion_main};
use phi_agent::registry::ActiveTools;
use phi_agent::registry::ToolRegistry;
use phi_agent::{ActivationContext, AgentResult, ToolContext, Toolset, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

fn add(a: i64, b: i64) -> i64 {
    a + b
}

struct Add;

#[async_trait]
impl TypedTool for Add {
    type Args = AddArgs;
    type Output = i64;
    fn name(&self) -> &'static str {
        "add"
    }
    fn description(&self) -> &'static str {
        "Add two integers"
    }
    async fn call_typed(&self, args: AddArgs, _ctx: &ToolContext) -> AgentResult<i64> {
        Ok(add(args.a, args.b))
    }
}

#[derive(Deserialize, JsonSchema)]
struct Address {
    street: String,
    city: String,
    zip: String,
}

#[derive(Deserialize, JsonSchema)]
struct Customer {
    name: String,
    email: String,
    tags: Vec<String>,
    address: Address,
}

#[derive(Deserialize, JsonSchema)]
struct CreateOrderArgs {
    customer: Customer,
    items: Vec<Item>,
    note: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct Item {
    sku: String,
    quantity: u32,
    price_cents: u64,
}

#[derive(Serialize)]
struct OrderSummary {
    items: usize,
    total_cents: u64,
}

fn create_order(args: CreateOrderArgs) -> OrderSummary {
    let customer = &args.customer;
    black_box((&customer.name, &customer.email, &customer.tags, &args.note));
    black_box((
        &customer.address.street,
        &customer.address.city,
        &customer.address.zip,
    ));
    let skus: Vec<&str> = args.items.iter().map(|i| i.sku.as_str()).collect();
    black_box(skus);
    OrderSummary {
        items: args.items.len(),
        total_cents: args
            .items
            .iter()
            .map(|i| i.price_cents * u64::from(i.quantity))
            .sum(),
    }
}

/// The same order tool answering in text, the most common tool output.
fn create_order_text(args: CreateOrderArgs) -> String {
    let summary = create_order(args);
    format!(
        "order created: {} items, {} cents",
        summary.items, summary.total_cents
    )
}

struct CreateOrder;

#[async_trait]
impl TypedTool for CreateOrder {
    type Args = CreateOrderArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "create_order"
    }
    fn description(&self) -> &'static str {
        "Create an order"
    }
    async fn call_typed(&self, args: CreateOrderArgs, _ctx: &ToolContext) -> AgentResult<String> {
        Ok(create_order_text(args))
    }
}

struct CreateOrderJson;

#[async_trait]
impl TypedTool for CreateOrderJson {
    type Args = CreateOrderArgs;
    type Output = OrderSummary;
    fn name(&self) -> &'static str {
        "create_order_json"
    }
    fn description(&self) -> &'static str {
        "Create an order, answering in JSON"
    }
    async fn call_typed(
        &self,
        args: CreateOrderArgs,
        _ctx: &ToolContext,
    ) -> AgentResult<OrderSummary> {
        Ok(create_order(args))
    }
}

fn order_args() -> Value {
    json!({
        "customer": {
            "name": "Ada Lovelace",
            "email": "ada@example.com",
            "tags": ["vip", "early"],
            "address": {"street": "12 St James's Square", "city": "London", "zip": "SW1Y 4JH"}
        },
        "items": [
            {"sku": "A-1", "quantity": 2, "price_cents": 1250},
            {"sku": "B-7", "quantity": 1, "price_cents": 9900}
        ],
        "note": "leave at the door"
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// The same tools inside a prefixed, filtered toolset (`calc_add`, `calc_create_order`): each
/// is one forwarding wrapper away from the tool, which dispatch should not notice.
fn toolset_registry() -> ToolRegistry {
    let mut registry = ToolRegistry::default();
    let set = Toolset::new()
        .with_tool(Add)
        .with_tool(CreateOrder)
        .with_tool(CreateOrderJson)
        .prefix("calc")
        .only(&["calc_add", "calc_create_order"]);
    registry.register_toolset(set).unwrap();
    registry
}

/// `calls` dispatches of `name`, for instruction counts: with `PHI_DISPATCH_COUNT=<calls>` the
/// bench runs these instead of criterion, so that
/// `valgrind --tool=callgrind --toggle-collect='*count_*'` sees a known number of calls.
#[inline(never)]
fn count_calls(
    rt: &tokio::runtime::Runtime,
    registry: &ToolRegistry,
    active: &ActiveTools,
    name: &str,
    args: &Value,
    calls: usize,
) {
    let ctx = ToolContext::default();
    rt.block_on(async {
        for _ in 0..calls {
            black_box(registry.dispatch(active, name, black_box(args), &ctx).await);
        }
    });
}

#[inline(never)]
fn count_add_alone(rt: &tokio::runtime::Runtime, r: &ToolRegistry, a: &ActiveTools, n: usize) {
    count_calls(rt, r, a, "add", &json!({"a": 2, "b": 3}), n);
}

#[inline(never)]
fn count_add_toolset(rt: &tokio::runtime::Runtime, r: &ToolRegistry, a: &ActiveTools, n: usize) {
    count_calls(rt, r, a, "calc_add", &json!({"a": 2, "b": 3}), n);
}

#[inline(never)]
fn count_nested_alone(rt: &tokio::runtime::Runtime, r: &ToolRegistry, a: &ActiveTools, n: usize) {
    count_calls(rt, r, a, "create_order", &order_args(), n);
}

#[inline(never)]
fn count_nested_toolset(rt: &tokio::runtime::Runtime, r: &ToolRegistry, a: &ActiveTools, n: usize) {
    count_calls(rt, r, a, "calc_create_order", &order_args(), n);
}

/// The floor of `count_nested_alone`: the same arguments decoded (borrowed) and the same fn
/// called directly, `calls` times.
#[inline(never)]
fn count_nested_floor(rt: &tokio::runtime::Runtime, calls: usize) {
    let args = order_args();
    rt.block_on(async {
        for _ in 0..calls {
            let decoded = CreateOrderArgs::deserialize(black_box(&args)).unwrap();
            black_box(create_order_text(decoded));
        }
    });
}

/// The typed tool's own `Tool::call` on the same arguments, without the registry.
#[inline(never)]
fn count_nested_tool_call(rt: &tokio::runtime::Runtime, calls: usize) {
    let args = order_args();
    let ctx = ToolContext::default();
    rt.block_on(async {
        for _ in 0..calls {
            let result = phi_agent::Tool::call(&CreateOrder, black_box(&args), &ctx).await;
            black_box(result).ok();
        }
    });
}

fn bench_dispatch(c: &mut Criterion) {
    let rt = runtime();
    let mut registry = ToolRegistry::default();
    registry.register(Add).unwrap();
    registry.register(CreateOrder).unwrap();
    registry.register(CreateOrderJson).unwrap();
    let active = rt.block_on(registry.visible_tools(&ActivationContext::default()));
    let ctx = ToolContext::default();
    let toolset = toolset_registry();
    let toolset_active = rt.block_on(toolset.visible_tools(&ActivationContext::default()));

    if let Some(calls) = std::env::var("PHI_DISPATCH_COUNT")
        .ok()
        .and_then(|calls| calls.parse().ok())
    {
        count_add_alone(&rt, &registry, &active, calls);
        count_add_toolset(&rt, &toolset, &toolset_active, calls);
        count_nested_alone(&rt, &registry, &active, calls);
        count_nested_toolset(&rt, &toolset, &toolset_active, calls);
        count_nested_floor(&rt, calls);
        count_nested_tool_call(&rt, calls);
        return;
    }

    let mut group = c.benchmark_group("dispatch");
    let add_args = json!({"a": 2, "b": 3});
    group.bench_function("add/floor", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let args = AddArgs::deserialize(black_box(&add_args)).unwrap();
                    black_box(add(args.a, args.b));
                }
                start.elapsed()
            })
        })
    });
    group.bench_function("add/tool_call", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let result = phi_agent::Tool::call(&Add, black_box(&add_args), &ctx).await;
                    black_box(result).ok();
                }
                start.elapsed()
            })
        })
    });
    group.bench_function("add/registry", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let result = registry
                        .dispatch(&active, "add", black_box(&add_args), &ctx)
                        .await;
                    black_box(result);
                }
                start.elapsed()
            })
        })
    });

    // What the agent loop does for every call: a context of its own (call id, cancellation
    // under the run's token), built inside the timed loop from the run's context. Its cost over
    // `add/registry` is the per-call context.
    let run_token = CancellationToken::new();
    let run_ctx = ctx.for_run(run_token.clone());
    group.bench_function("add/registry_per_call_context", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let call_ctx = run_ctx.for_call_in_run(black_box("call_1"));
                    let result = registry
                        .dispatch(&active, "add", black_box(&add_args), &call_ctx)
                        .await;
                    black_box(result);
                }
                start.elapsed()
            })
        })
    });
    // The same under a token the call holds (what the MCP server does per request): cloning a
    // token locks its mutex, and dropping the clone again.
    group.bench_function("add/registry_per_call_context_under", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let call_ctx = ctx.for_call_under(black_box("call_1"), &run_token);
                    let result = registry
                        .dispatch(&active, "add", black_box(&add_args), &call_ctx)
                        .await;
                    black_box(result);
                }
                start.elapsed()
            })
        })
    });
    // The same with the call's token made up front, as `for_call` takes it.
    group.bench_function("add/registry_per_call_context_eager_token", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let call_ctx = ctx.for_call(black_box("call_1"), run_token.child_token());
                    let result = registry
                        .dispatch(&active, "add", black_box(&add_args), &call_ctx)
                        .await;
                    black_box(result);
                }
                start.elapsed()
            })
        })
    });

    let args = order_args();
    group.bench_function("nested/floor", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let decoded = CreateOrderArgs::deserialize(black_box(&args)).unwrap();
                    black_box(create_order_text(decoded));
                }
                start.elapsed()
            })
        })
    });
    // The typed tool's own `Tool::call` (decoding, the two boxed futures, the output), without
    // the registry: splits the registry's share from the trait's.
    group.bench_function("nested/tool_call", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let result = phi_agent::Tool::call(&CreateOrder, black_box(&args), &ctx).await;
                    black_box(result).ok();
                }
                start.elapsed()
            })
        })
    });
    group.bench_function("nested/registry", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let result = registry
                        .dispatch(&active, "create_order", black_box(&args), &ctx)
                        .await;
                    black_box(result);
                }
                start.elapsed()
            })
        })
    });
    // The floor here is the same as for `nested`: the difference is the JSON output conversion.
    // The same calls of the same tools inside a prefixed, filtered toolset.
    let add_args_toolset = json!({"a": 2, "b": 3});
    group.bench_function("add/toolset", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let result = toolset
                        .dispatch(
                            &toolset_active,
                            "calc_add",
                            black_box(&add_args_toolset),
                            &ctx,
                        )
                        .await;
                    black_box(result);
                }
                start.elapsed()
            })
        })
    });
    group.bench_function("nested/toolset", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let result = toolset
                        .dispatch(&toolset_active, "calc_create_order", black_box(&args), &ctx)
                        .await;
                    black_box(result);
                }
                start.elapsed()
            })
        })
    });
    group.bench_function("nested_json_output/registry", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let result = registry
                        .dispatch(&active, "create_order_json", black_box(&args), &ctx)
                        .await;
                    black_box(result);
                }
                start.elapsed()
            })
        })
    });
    // The failure path: arguments that do not decode, answered with the model's error text (a
    // wrong type, a missing field and an unknown field at once). A model sends few of these; the
    // success path is the one kept within its budget.
    let bad_add = json!({"a": "two", "c": 3});
    group.bench_function("add/refused", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let result = registry
                        .dispatch(&active, "add", black_box(&bad_add), &ctx)
                        .await;
                    black_box(result);
                }
                start.elapsed()
            })
        })
    });
    let mut bad_order = order_args();
    bad_order["items"][1]["quantity"] = json!("one");
    bad_order["customer"]["address"]
        .as_object_mut()
        .unwrap()
        .remove("city");
    bad_order["customer"]["emial"] = json!("ada@example.com");
    group.bench_function("nested/refused", |b| {
        b.iter_custom(|iters| {
            rt.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    let result = registry
                        .dispatch(&active, "create_order", black_box(&bad_order), &ctx)
                        .await;
                    black_box(result);
                }
                start.elapsed()
            })
        })
    });
    group.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_dispatch
}
criterion_main!(benches);

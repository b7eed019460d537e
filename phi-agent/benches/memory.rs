//! Memory (the memory target of BENCHMARKS.md), reported: what 10,000 registered tools hold,
//! counted by a global allocator, and what they hold once every tool has been offered to a model
//! (as if all were). The bound itself is asserted by `tests/memory.rs`; byte counts do not vary
//! between runs, so this prints instead of sampling.

#[path = "../tests/memory/many_tools.rs"]
mod many_tools;

use std::sync::Arc;

use phi_agent::llm::{LlmRequest, OpenAiClient, ToolSpec};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

fn mib(bytes: isize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let (registry, registered) = many_tools::registry_bytes(ALLOCATOR);
    let client = OpenAiClient::new("sk-bench", "gpt-4o-mini").expect("client");
    let region = Region::new(ALLOCATOR);
    let tools: Arc<[ToolSpec]> = registry.iter().map(|tool| tool.spec()).collect();
    let request = LlmRequest::default().with_tools(tools);
    // The body itself is the request's, not the registry's: only what stays is counted (parsed
    // schemas, dialect schemas, the tool list and the adapter's cached tools bytes).
    drop(client.request_bytes(&request));
    let read = many_tools::live_bytes(&region);
    let tools = many_tools::TOOLS as isize;
    println!(
        "memory/registered: {} tools hold {registered} bytes ({:.2} MiB, {} per tool; target 20 MiB)",
        many_tools::TOOLS,
        mib(registered),
        registered / tools
    );
    println!(
        "memory/all_schemas_read: +{read} bytes ({:.2} MiB, {} per tool) once every tool is offered \
         to OpenAI: schema parsed, strict dialect derived, tool list and cached tools bytes held",
        mib(read),
        read / tools
    );
    drop((request, client, registry));
}

//! Memory (performance target 5), reported: what 10,000 registered tools hold, counted by a global
//! allocator, and what they hold once every tool's schema has been read and converted for a
//! provider (as if all were offered to a model). The bound itself is asserted by
//! `tests/memory.rs`; byte counts do not vary between runs, so this prints instead of sampling.

#[path = "../tests/memory/many_tools.rs"]
mod many_tools;

use phi_agent::llm::ToolSpec;
use phi_agent::schema::definition;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

fn mib(bytes: isize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let (registry, registered) = many_tools::registry_bytes(ALLOCATOR);
    let region = Region::new(ALLOCATOR);
    let specs: Vec<ToolSpec> = registry.iter().map(|tool| tool.spec()).collect();
    let definitions: Vec<_> = specs.iter().map(definition::openai).collect();
    let read = many_tools::live_bytes(&region);
    let tools = many_tools::TOOLS as isize;
    println!(
        "memory/registered: {} tools hold {registered} bytes ({:.2} MiB, {} per tool; target 20 MiB)",
        many_tools::TOOLS,
        mib(registered),
        registered / tools
    );
    println!(
        "memory/all_schemas_read: +{read} bytes ({:.2} MiB, {} per tool) once every schema is parsed, \
         its OpenAI dialect derived and its definition built",
        mib(read),
        read / tools
    );
    drop((definitions, specs, registry));
}

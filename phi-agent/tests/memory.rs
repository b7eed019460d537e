//! Memory of a large registry, counted by a global allocator: 10,000 registered tools must cost at
//! most 20 MiB (the memory target of BENCHMARKS.md). Byte counts are deterministic, so the bound is a test; the
//! `memory` bench reports the same figure, and what tools cost once their schemas are read.

#[path = "memory/many_tools.rs"]
mod many_tools;

use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

// The only test of this binary: the allocator counts every thread, so a test running beside it
// would be counted too.
#[test]
fn ten_thousand_tools_fit_in_twenty_mebibytes() {
    let (registry, bytes) = many_tools::registry_bytes(ALLOCATOR);
    let mib = bytes as f64 / (1024.0 * 1024.0);
    println!(
        "{} registered tools: {bytes} bytes ({mib:.2} MiB), {} bytes per tool",
        many_tools::TOOLS,
        bytes / many_tools::TOOLS as isize
    );
    assert_eq!(registry.len(), many_tools::TOOLS);
    assert!(bytes > 0, "the allocator counted the registry");
    assert!(mib <= 20.0, "10,000 tools cost {mib:.2} MiB");
}

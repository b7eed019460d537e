//! Memory, counted by a global allocator. 10,000 registered tools must cost at most 20 MiB (the
//! memory target of BENCHMARKS.md); and an MCP HTTP server whose sessions were opened and
//! abandoned by thousands of clients must give their heap back once they expire. Byte counts
//! are deterministic enough to be tests; the `memory` bench reports the first figure, and what
//! tools cost once their schemas are read.

#[path = "memory/many_tools.rs"]
mod many_tools;

use std::sync::Mutex;
use std::time::{Duration, Instant};

use phi_agent::mcp::{HttpOptions, HttpServer, McpServer};
use phi_agent::registry::ToolRegistry;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// The allocator counts every thread, so a test running beside another would count the other's
/// bytes too: each test holds this for its whole run.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn ten_thousand_tools_fit_in_twenty_mebibytes() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
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

/// As many abandoned sessions as the report that asked for the bound had.
const ABANDONED: usize = 2_000;
/// The sessions of a first round, so that what is allocated once (runtime, I/O driver, lazily
/// built statics, thread-locals of the workers) is part of the baseline.
const WARM_UP: usize = 200;
/// Longer than opening [`ABANDONED`] sessions takes, so that the peak holds them all.
const IDLE: Duration = Duration::from_secs(3);

/// One `initialize` over a fresh connection that the server closes after its answer; the
/// client keeps nothing, so what stays allocated is the server's.
async fn abandon_one(server: &HttpServer) {
    let address = server.local_addr();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"abandoned","version":"0"}}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("the server ends its answer")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer).to_ascii_lowercase();
    assert!(answer.starts_with("http/1.1 200"), "{answer}");
    assert!(answer.contains("mcp-session-id:"), "{answer}");
}

/// Abandons `sessions` sessions, four clients at a time.
async fn abandon(server: &HttpServer, sessions: usize) {
    let client = |count: usize| async move {
        for _ in 0..count {
            abandon_one(server).await;
        }
    };
    futures_util::future::join_all(
        (0..4).map(|i| client(sessions / 4 + usize::from(i < sessions % 4))),
    )
    .await;
}

async fn wait_for_no_sessions(server: &HttpServer) {
    let start = Instant::now();
    while server.live_sessions().await > 0 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "sessions never expired"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn live_bytes(region: &Region<'_, std::alloc::System>) -> isize {
    many_tools::live_bytes(region)
}

#[test]
fn abandoned_mcp_sessions_give_their_heap_back() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let region = Region::new(ALLOCATOR);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let options = HttpOptions::default()
            .with_max_sessions(ABANDONED)
            .with_session_idle_timeout(IDLE);
        let server = McpServer::new(ToolRegistry::default())
            .serve_http(options)
            .await
            .unwrap();
        abandon(&server, WARM_UP).await;
        wait_for_no_sessions(&server).await;
        // The expired sessions' last tasks end just after they leave the session map.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let start = live_bytes(&region);

        let opening = Instant::now();
        abandon(&server, ABANDONED).await;
        let opened = opening.elapsed();
        let live = server.live_sessions().await;
        let peak = live_bytes(&region);
        wait_for_no_sessions(&server).await;

        // The last tasks of an expired session (its service loop, its connection) end just
        // after it leaves the map: give them a moment, then compare.
        let tolerance = start / 20;
        let mut end = live_bytes(&region);
        for _ in 0..50 {
            if (end - start).abs() <= tolerance {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
            end = live_bytes(&region);
        }
        let per_session = (peak - start) / live.max(1) as isize;
        println!(
            "MCP HTTP server heap: {start} bytes after warm-up, {peak} with {live} of {ABANDONED} abandoned sessions live (opened in {opened:?}; {per_session} bytes each), {end} once they expired ({:+} bytes, {:+.2}%)",
            end - start,
            (end - start) as f64 * 100.0 / start as f64
        );
        assert!(live > 0 && peak > start, "the allocator counted the sessions");
        assert!(
            (end - start).abs() <= tolerance,
            "the heap went from {start} to {end} bytes, more than 5% away"
        );
        server.shutdown().await;
    });
}

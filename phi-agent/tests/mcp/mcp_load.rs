//! Load on loopback, ignored in the ordinary run (`.ci/run` runs it with small numbers):
//!
//!     cargo test -p phi-agent --test mcp -- --ignored mcp_load:: --nocapture
//!
//! `many_clients_call_tools` runs concurrent rmcp clients, each calling `echo` in a loop for a
//! bounded time and count, against a session server and a stateless one, and prints latency
//! percentiles, throughput, errors (asserted 0) and this process's resident memory (server and
//! clients together). `abandoned_sessions_stay_bounded` opens twice the default session cap
//! with `initialize` requests that never come back, and prints resident memory before, at the
//! peak and once the idle ones expired. Knobs (environment): `PHI_MCP_LOAD_CLIENTS` (16),
//! `PHI_MCP_LOAD_SECONDS` (3), `PHI_MCP_LOAD_CALLS` (most calls per client, 20,000),
//! `PHI_MCP_LOAD_ABANDONED` (2,000).

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use phi_agent::mcp::rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation,
};
use phi_agent::mcp::rmcp::transport::StreamableHttpClientTransport;
use phi_agent::mcp::rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use phi_agent::mcp::rmcp::{ClientLifecycleMode, ClientServiceExt};
use phi_agent::mcp::{HttpOptions, HttpServer};
use serde_json::json;

use crate::raw::{echo_server, initialize_body, post, send, wait_for_no_sessions};

fn knob(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// This process's resident memory, in KiB (`VmRSS` of `/proc/self/status`).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn mib(kib: u64) -> String {
    format!("{:.1} MiB", kib as f64 / 1024.0)
}

/// What one client did: each call's latency, and the calls that failed.
struct ClientRun {
    latencies: Vec<Duration>,
    errors: Vec<String>,
}

async fn client_loop(
    server_url: String,
    client: usize,
    deadline: Instant,
    max_calls: u64,
) -> ClientRun {
    let mut run = ClientRun {
        latencies: Vec::new(),
        errors: Vec::new(),
    };
    let transport = StreamableHttpClientTransport::with_client(
        crate::raw::new_client(),
        StreamableHttpClientTransportConfig::with_uri(server_url),
    );
    let connected = ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new(format!("load-{client}"), "0.0.0"),
    )
    .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
    .await;
    let peer = match connected {
        Ok(peer) => peer,
        Err(error) => {
            run.errors
                .push(format!("client {client}: handshake: {error}"));
            return run;
        }
    };
    let mut call = 0u64;
    while call < max_calls && Instant::now() < deadline {
        let text = format!("{client}:{call}");
        let mut arguments = serde_json::Map::new();
        arguments.insert("text".into(), json!(text));
        let started = Instant::now();
        let result = peer
            .peer()
            .call_tool(CallToolRequestParams::new("echo").with_arguments(arguments))
            .await;
        run.latencies.push(started.elapsed());
        match result {
            Ok(result)
                if result.is_error == Some(false)
                    && result.content[0].as_text().map(|t| t.text.as_str())
                        == Some(text.as_str()) => {}
            Ok(result) => run.errors.push(format!("client {client}: {result:?}")),
            Err(error) => run.errors.push(format!("client {client}: {error}")),
        }
        call += 1;
    }
    if let Err(error) = peer.cancel().await {
        run.errors.push(format!("client {client}: close: {error}"));
    }
    run
}

fn percentile(sorted: &[Duration], percent: usize) -> Duration {
    sorted[(sorted.len() * percent / 100).min(sorted.len() - 1)]
}

async fn load(server: &HttpServer, label: &str) {
    let clients = knob("PHI_MCP_LOAD_CLIENTS", 16) as usize;
    let seconds = knob("PHI_MCP_LOAD_SECONDS", 3);
    let max_calls = knob("PHI_MCP_LOAD_CALLS", 20_000);
    let rss_start = rss_kib();
    let started = Instant::now();
    let deadline = started + Duration::from_secs(seconds);
    let runs = futures_util::future::join_all(
        (0..clients)
            .map(|client| tokio::spawn(client_loop(server.url(), client, deadline, max_calls))),
    )
    .await;
    let elapsed = started.elapsed();
    let mut latencies = Vec::new();
    let mut errors = Vec::new();
    for run in runs {
        let run = run.expect("a client task ends without a panic");
        latencies.extend(run.latencies);
        errors.extend(run.errors);
    }
    latencies.sort();
    let rss_end = rss_kib();
    assert!(!latencies.is_empty(), "{label}: no call was made");
    println!(
        "mcp load, {label}: {clients} clients, {} calls in {:.2} s = {:.0} calls/s; latency p50 {:?}, p99 {:?}, max {:?}; {} errors; RSS {} -> {}",
        latencies.len(),
        elapsed.as_secs_f64(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        percentile(&latencies, 50),
        percentile(&latencies, 99),
        latencies[latencies.len() - 1],
        errors.len(),
        mib(rss_start),
        mib(rss_end),
    );
    assert!(errors.is_empty(), "{label}: {errors:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a load run; `cargo test -p phi-agent --test mcp -- --ignored mcp_load:: --nocapture`"]
async fn many_clients_call_tools() {
    let sessions = echo_server()
        .serve_http(HttpOptions::default())
        .await
        .unwrap();
    load(&sessions, "sessions").await;
    sessions.shutdown().await;

    let stateless = echo_server()
        .serve_http(HttpOptions::default().with_stateless(true))
        .await
        .unwrap();
    load(&stateless, "stateless").await;
    stateless.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a load run; `cargo test -p phi-agent --test mcp -- --ignored mcp_load:: --nocapture`"]
async fn abandoned_sessions_stay_bounded() {
    let abandoned = knob("PHI_MCP_LOAD_ABANDONED", 2_000);
    // Longer than opening them all takes, so that the cap, not expiry, decides who is served.
    let idle = Duration::from_secs(5);
    let rss_start = rss_kib();
    let server = echo_server()
        .serve_http(HttpOptions::default().with_session_idle_timeout(idle))
        .await
        .unwrap();
    let started = Instant::now();
    let statuses: Vec<u16> = futures_util::stream::iter(0..abandoned)
        .map(|id| {
            let request = post(&server, initialize_body(id));
            async move { send(request).await.status }
        })
        .buffer_unordered(8)
        .collect()
        .await;
    let opened = started.elapsed();
    let served = statuses.iter().filter(|&&status| status == 200).count();
    let refused = statuses.iter().filter(|&&status| status == 503).count();
    let live = server.live_sessions().await;
    let rss_peak = rss_kib();
    let cap = HttpOptions::DEFAULT_MAX_SESSIONS.min(abandoned as usize);
    assert_eq!(served + refused, abandoned as usize, "only 200s and 503s");
    if opened < idle {
        assert_eq!(served, cap, "{statuses:?}");
        assert_eq!(live, cap);
    }
    let waited = wait_for_no_sessions(&server, Duration::from_secs(30)).await;
    let rss_end = rss_kib();
    println!(
        "mcp abandoned sessions: {abandoned} initialize requests in {:.2} s: {served} served, {refused} refused (503) at the cap of {cap}; all expired {waited:?} after (idle timeout {idle:?}); RSS {} at start, {} with {live} live sessions, {} once they expired",
        opened.as_secs_f64(),
        mib(rss_start),
        mib(rss_peak),
        mib(rss_end),
    );
    server.shutdown().await;
}

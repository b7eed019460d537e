//! Names, descriptions, metadata, timeouts and annotations from the attribute.

use phi_agent::{TaskSupport, Tool, ToolAnnotations, ToolExposure, phi_tool};

/// Fetch a URL.
///
/// - follows redirects
/// - gives up after 10 seconds
#[phi_tool(
    name = "http-get",
    timeout = 10_000,
    origin = "net-tools",
    version = "2.1.0",
    requirements = ["network"],
    read_only,
    open_world = true,
    destructive = false,
)]
async fn fetch(url: String) -> String {
    url
}

/// Defaults everywhere.
#[phi_tool(description = "Overrides the doc comment")]
async fn plain() -> &'static str {
    "plain"
}

fn main() {
    assert_eq!(Fetch.name(), "http-get");
    assert_eq!(Fetch::NAME, "http-get");
    assert_eq!(
        Fetch.description(),
        "Fetch a URL.\n\n- follows redirects\n- gives up after 10 seconds"
    );
    assert_eq!(Fetch.timeout_ms(), Some(10_000));
    let metadata = Fetch.metadata();
    assert_eq!(
        (metadata.origin.as_str(), metadata.version.as_str()),
        ("net-tools", "2.1.0")
    );
    assert_eq!(metadata.requirements, ["network"]);
    assert_eq!(
        Fetch.options().annotations,
        ToolAnnotations::default()
            .with_read_only(true)
            .with_destructive(false)
            .with_open_world(true)
    );

    assert_eq!(Plain.description(), "Overrides the doc comment");
    assert_eq!(Plain.timeout_ms(), None);
    assert_eq!(Plain.exposure(), ToolExposure::Direct);
    assert_eq!(Plain.options().annotations, ToolAnnotations::default());
    // Origin and version default to the crate that uses the macro.
    let metadata = Plain.metadata();
    assert_eq!(metadata.origin, env!("CARGO_PKG_NAME"));
    assert_eq!(metadata.version, env!("CARGO_PKG_VERSION"));
    assert_ne!(metadata.origin, "phi-agent");

    assert_eq!(Plain.options().task_support, TaskSupport::Forbidden);
    assert_eq!(Report.options().task_support, TaskSupport::Optional);
    assert_eq!(Rebuild.options().task_support, TaskSupport::Required);
}

/// Builds a long report; an MCP client may get the call as a task.
#[phi_tool(task = "optional")]
async fn report() -> &'static str {
    "report"
}

/// Rebuilds the index; always a task over MCP.
#[phi_tool(task = "required", timeout = 600_000)]
async fn rebuild() -> &'static str {
    "rebuilt"
}

/// Strict mode accepts standard scalar and collection types.
#[phi_tool(strict)]
async fn strict_ok(
    name: String,
    count: Option<u32>,
    tags: Vec<String>,
    weights: [f64; 3],
    queue: std::collections::VecDeque<i64>,
) -> String {
    format!("{name} {count:?} {tags:?} {weights:?} {queue:?}")
}

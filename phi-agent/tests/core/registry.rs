//! The registry's rules: names, exposure, activation and dispatch.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use phi_agent::registry::{ToolCallResult, ToolRegistry};
use phi_agent::{
    ActivationContext, AgentConfig, AgentError, AgentResult, Content, PhiAgent, Tool, ToolConfig,
    ToolContext, ToolExposure, TypedTool, base_agent_builder,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

type Activation = Box<dyn Fn(&ActivationContext) -> bool + Send + Sync>;

/// A tool whose every trait answer is configurable.
struct TestTool {
    name: &'static str,
    exposure: ToolExposure,
    timeout_ms: Option<u64>,
    activate: Activation,
    behaviour: Behaviour,
}

enum Behaviour {
    Echo,
    Sleep(Duration),
    Panic,
    Output(usize),
}

impl TestTool {
    fn new(name: &'static str) -> Self {
        Self {
            name,
            exposure: ToolExposure::Direct,
            timeout_ms: None,
            activate: Box::new(|_| true),
            behaviour: Behaviour::Echo,
        }
    }
    fn exposure(mut self, exposure: ToolExposure) -> Self {
        self.exposure = exposure;
        self
    }
    fn activate_when(
        mut self,
        f: impl Fn(&ActivationContext) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.exposure = ToolExposure::Deferred;
        self.activate = Box::new(f);
        self
    }
    fn behaviour(mut self, behaviour: Behaviour) -> Self {
        self.behaviour = behaviour;
        self
    }
    fn timeout_ms(mut self, ms: u64) -> Self {
        self.timeout_ms = Some(ms);
        self
    }
}

#[async_trait]
impl Tool for TestTool {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        "a test tool"
    }
    fn schema(&self) -> Value {
        json!({"type": "object"})
    }
    async fn call(&self, args: &Value, _ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        match self.behaviour {
            Behaviour::Echo => Ok(vec![Content::text(format!("{} {}", self.name, args))]),
            Behaviour::Sleep(duration) => {
                tokio::time::sleep(duration).await;
                Ok(vec![Content::text(format!("{} slept", self.name))])
            }
            Behaviour::Panic => panic!("boom in {}", self.name),
            Behaviour::Output(len) => Ok(vec![Content::text("x".repeat(len))]),
        }
    }
    fn timeout_ms(&self) -> Option<u64> {
        self.timeout_ms
    }
    fn exposure(&self) -> ToolExposure {
        self.exposure
    }
    async fn should_activate(&self, ctx: &ActivationContext) -> bool {
        (self.activate)(ctx)
    }
}

fn registry(tools: Vec<TestTool>) -> ToolRegistry {
    registry_with(ToolConfig::default(), tools)
}

fn registry_with(config: ToolConfig, tools: Vec<TestTool>) -> ToolRegistry {
    let mut registry = ToolRegistry::new(config);
    for tool in tools {
        registry.register(tool).unwrap();
    }
    registry
}

async fn dispatch(registry: &ToolRegistry, name: &str, args: Value) -> ToolCallResult {
    let active = registry.visible_tools(&ActivationContext::default()).await;
    registry
        .dispatch(&active, name, &args, &ToolContext::default())
        .await
}

#[tokio::test]
async fn hidden_inactive_and_unknown_tools_get_the_same_refusal() {
    let registry = registry(vec![
        TestTool::new("visible"),
        TestTool::new("secret").exposure(ToolExposure::Hidden),
        TestTool::new("later").activate_when(|_| false),
    ]);
    let mut messages = Vec::new();
    for name in ["secret", "later", "nowhere"] {
        let result = dispatch(&registry, name, json!({})).await;
        assert!(result.is_error);
        messages.push(result.to_model_text().replace(name, "NAME"));
    }
    assert_eq!(
        messages[0],
        "tool `NAME` is not available; available tools: visible"
    );
    assert_eq!(messages[0], messages[1]);
    assert_eq!(messages[1], messages[2]);
}

#[tokio::test]
async fn hidden_tools_stay_callable_by_the_program() {
    let registry = registry(vec![TestTool::new("secret").exposure(ToolExposure::Hidden)]);
    let result = registry
        .call_internal("secret", &json!({"k": 1}), &ToolContext::default())
        .await;
    assert!(!result.is_error);
    assert_eq!(result.to_model_text(), r#"secret {"k":1}"#);
    let active = registry.visible_tools(&ActivationContext::default()).await;
    assert_eq!(registry.visible(&active).count(), 0, "never visible");
}

#[test]
fn invalid_names_are_refused() {
    for name in [
        "",
        "has space",
        "dotted.name",
        "ünï",
        &*"x".repeat(65).leak(),
    ] {
        let mut registry = ToolRegistry::default();
        let err = registry.register(TestTool::new(name)).unwrap_err();
        assert!(
            matches!(err, AgentError::InvalidToolName { .. }),
            "{name:?}: {err}"
        );
        assert!(err.to_string().contains("1 to 64 characters"), "{err}");
    }
    let mut registry = ToolRegistry::default();
    registry
        .register(TestTool::new(&*"x".repeat(64).leak()))
        .unwrap();
    registry.register(TestTool::new("a-B_9")).unwrap();
}

#[test]
fn duplicate_names_are_refused_naming_both_tools() {
    let mut registry = ToolRegistry::default();
    registry.register(TestTool::new("twice")).unwrap();
    let err = registry.register(TestTool::new("twice")).unwrap_err();
    let message = err.to_string();
    assert!(
        message.starts_with(
            "tool name `twice` is registered twice: first `twice` from custom unknown"
        ),
        "{message}"
    );
    assert!(
        message.contains("then `twice`") && message.contains("rename one"),
        "{message}"
    );
    assert_eq!(registry.len(), 1, "the first registration stays");
}

#[test]
fn the_agent_builder_refuses_bad_and_duplicate_names() {
    struct NoModel;
    #[async_trait]
    impl phi_agent::LlmClient for NoModel {
        async fn complete(
            &self,
            _: &phi_agent::llm::LlmRequest,
        ) -> AgentResult<phi_agent::llm::LlmResponse> {
            Err(AgentError::Config("unused".into()))
        }
    }
    let duplicate = base_agent_builder(NoModel)
        .register_tool(TestTool::new("same"))
        .register_tools(vec![Arc::new(TestTool::new("same"))]);
    assert!(matches!(
        PhiAgent::build(duplicate, AgentConfig::default()),
        Err(AgentError::DuplicateTool { .. })
    ));
    let invalid = base_agent_builder(NoModel).register_tool(TestTool::new("a.b"));
    assert!(matches!(
        PhiAgent::build(invalid, AgentConfig::default()),
        Err(AgentError::InvalidToolName { .. })
    ));
}

#[tokio::test(start_paused = true)]
async fn a_timeout_fires_at_its_limit_without_holding_up_other_calls() {
    let registry = registry(vec![
        TestTool::new("slow")
            .behaviour(Behaviour::Sleep(Duration::from_secs(3600)))
            .timeout_ms(1_000),
        TestTool::new("quick").behaviour(Behaviour::Sleep(Duration::from_millis(200))),
    ]);
    let active = registry.visible_tools(&ActivationContext::default()).await;
    let start = tokio::time::Instant::now();
    let slow_ctx = ToolContext::default();
    let slow = async {
        let result = registry
            .dispatch(&active, "slow", &json!({}), &slow_ctx)
            .await;
        (result, start.elapsed())
    };
    let quick = async {
        let result = registry
            .dispatch(&active, "quick", &json!({}), &ToolContext::default())
            .await;
        (result, start.elapsed())
    };
    let ((slow, slow_at), (quick, quick_at)) = tokio::join!(slow, quick);
    assert!(slow.is_error);
    assert_eq!(
        slow.to_model_text(),
        "tool `slow` timed out after 1000 ms; try again with a smaller request, or raise the tool's timeout"
    );
    assert_eq!(slow_at, Duration::from_secs(1));
    assert!(
        slow_ctx.is_cancelled(),
        "the call's token is cancelled on timeout"
    );
    assert!(!quick.is_error);
    assert_eq!(quick_at, Duration::from_millis(200));
}

#[tokio::test(start_paused = true)]
async fn the_default_timeout_comes_from_the_config() {
    let config = ToolConfig {
        default_tool_timeout_ms: 250,
        ..ToolConfig::default()
    };
    let registry = registry_with(
        config,
        vec![TestTool::new("slow").behaviour(Behaviour::Sleep(Duration::from_secs(1)))],
    );
    let start = tokio::time::Instant::now();
    let result = dispatch(&registry, "slow", json!({})).await;
    assert!(result.to_model_text().contains("timed out after 250 ms"));
    assert_eq!(start.elapsed(), Duration::from_millis(250));
}

#[test]
fn a_zero_timeout_is_refused_at_registration() {
    let err = ToolRegistry::default()
        .register(TestTool::new("zero").timeout_ms(0))
        .unwrap_err();
    assert!(err.to_string().contains("timeout of 0 ms"), "{err}");
}

#[tokio::test]
async fn a_panicking_tool_gives_an_error_result_and_the_registry_keeps_serving() {
    let registry = registry(vec![
        TestTool::new("bomb").behaviour(Behaviour::Panic),
        TestTool::new("fine"),
    ]);
    for _ in 0..3 {
        let result = dispatch(&registry, "bomb", json!({})).await;
        assert!(result.is_error);
        assert!(
            result
                .to_model_text()
                .contains("tool `bomb` failed unexpectedly (it panicked: boom in bomb)")
        );
        let fine = dispatch(&registry, "fine", json!({})).await;
        assert!(!fine.is_error);
    }
}

#[derive(Deserialize, JsonSchema)]
struct Filters {
    #[allow(dead_code)]
    tags: Vec<String>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct SearchArgs {
    query: String,
    filters: Filters,
}

struct Search;

#[async_trait]
impl TypedTool for Search {
    type Args = SearchArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "search"
    }
    fn description(&self) -> &'static str {
        "Search"
    }
    async fn call_typed(&self, args: SearchArgs, _ctx: &ToolContext) -> AgentResult<String> {
        Ok(args.query)
    }
}

#[tokio::test]
async fn malformed_arguments_give_errors_that_name_the_path() {
    let mut registry = ToolRegistry::default();
    registry.register(Search).unwrap();
    let cases = [
        (
            json!({"query": "q", "filters": {"tags": ["a", 7]}}),
            "at `filters.tags[1]`: expected a string, found `7`",
        ),
        (
            json!({"query": "q"}),
            "at `filters`: missing required field `filters`; expected a JSON object with the fields `tags`",
        ),
        (
            json!({"query": 1, "filters": {"tags": []}}),
            "at `query`: expected a string, found `1`",
        ),
        // The shape checks are the registry's, so every caller (the loop, MCP, the program)
        // gets the same answer as a model in a run.
        (
            json!("not an object"),
            "at `(root)`: the arguments are not a JSON object but the text \"not an object\"",
        ),
        (
            json!(["q", {"tags": []}]),
            "at `(root)`: expected a JSON object of arguments, found an array",
        ),
        (
            json!(7),
            "at `(root)`: expected a JSON object of arguments, found `7`",
        ),
    ];
    for (args, expected) in cases {
        let result = dispatch(&registry, "search", args).await;
        assert!(result.is_error);
        let text = result.to_model_text();
        assert!(
            text.starts_with("invalid arguments for tool `search`"),
            "{text}"
        );
        assert!(text.contains(expected), "{text} should contain {expected}");
    }
    let ok = dispatch(
        &registry,
        "search",
        json!({"query": "q", "filters": {"tags": []}}),
    )
    .await;
    assert_eq!(ok, ToolCallResult::success(vec![Content::text("q")]));
}

#[tokio::test]
async fn oversize_arguments_are_refused_before_decoding() {
    let config = ToolConfig {
        max_argument_bytes: 1_000,
        ..ToolConfig::default()
    };
    let registry = registry_with(config, vec![TestTool::new("echo")]);
    let result = dispatch(&registry, "echo", json!({"text": "x".repeat(2_000)})).await;
    assert!(result.is_error);
    assert_eq!(
        result.to_model_text(),
        "arguments for tool `echo` are larger than the limit of 1000 bytes; send smaller arguments"
    );
    assert!(
        !dispatch(&registry, "echo", json!({"text": "x".repeat(500)}))
            .await
            .is_error
    );
}

/// A typed tool's arguments are measured as they are decoded, not walked first: the limit is
/// the same to the byte, and it wins over any other mistake, as it does for a hand-written tool.
#[tokio::test]
async fn a_typed_tools_arguments_meet_the_size_limit_to_the_byte() {
    let mut registry = ToolRegistry::new(ToolConfig {
        max_argument_bytes: 100,
        ..ToolConfig::default()
    });
    registry.register(Search).unwrap();
    // Counted as compact JSON: 41 bytes around a query of `len` characters.
    let args =
        |len: usize, tag: Value| json!({"query": "q".repeat(len), "filters": {"tags": [tag]}});
    let too_large = "arguments for tool `search` are larger than the limit of 100 bytes; send smaller arguments";
    let fits = dispatch(&registry, "search", args(59, json!("ab"))).await;
    assert!(!fits.is_error, "{}", fits.to_model_text());
    let over = dispatch(&registry, "search", args(60, json!("ab"))).await;
    assert_eq!(over.to_model_text(), too_large);
    // Past the limit and mistaken: the limit is what the model hears.
    let both = dispatch(&registry, "search", args(60, json!(2))).await;
    assert_eq!(both.to_model_text(), too_large);
    let mistaken = dispatch(&registry, "search", args(10, json!(2))).await;
    assert!(
        mistaken.to_model_text().contains("filters.tags[0]"),
        "{}",
        mistaken.to_model_text()
    );
}

#[tokio::test]
async fn oversize_output_is_truncated_with_a_marker() {
    let config = ToolConfig {
        max_output_bytes: 1_000,
        ..ToolConfig::default()
    };
    let registry = registry_with(
        config,
        vec![TestTool::new("flood").behaviour(Behaviour::Output(5_000))],
    );
    let result = dispatch(&registry, "flood", json!({})).await;
    assert!(!result.is_error);
    // Head and tail, 1 000 bytes together, around a marker of what was left out.
    let kept = result.content[0].as_text().unwrap();
    assert!(kept.contains("[... 4000 bytes left out ...]"), "{kept}");
    assert_eq!(
        kept.len() - "\n[... 4000 bytes left out ...]\n".len(),
        1_000
    );
    assert!(
        result.content[1]
            .as_text()
            .unwrap()
            .contains("output truncated: 5000 bytes, limit 1000")
    );
}

#[tokio::test]
async fn a_chain_of_two_deferred_tools_activates_in_one_evaluation() {
    // `second` is registered first, so a single pass in registration order would miss it.
    let registry = registry(vec![
        TestTool::new("second").activate_when(|ctx| ctx.has_tool("first")),
        TestTool::new("base"),
        TestTool::new("first").activate_when(|ctx| ctx.has_tool("base")),
        TestTool::new("never").activate_when(|_| false),
        TestTool::new("secret").exposure(ToolExposure::Hidden),
    ]);
    let mut active = registry.active_tools(&ActivationContext::default());
    assert_eq!(active.names(), ["base"]);
    let activated = registry.activate(&mut active).await;
    assert_eq!(activated, ["first", "second"]);
    assert_eq!(
        active.names(),
        ["second", "base", "first"],
        "registration order"
    );
    let visible: Vec<_> = registry.visible(&active).map(|t| t.name()).collect();
    assert_eq!(visible, ["second", "base", "first"]);
}

#[tokio::test]
async fn activation_is_monotonic_within_a_session() {
    let open = Arc::new(AtomicBool::new(true));
    let gate = open.clone();
    let registry = registry(vec![
        TestTool::new("gated").activate_when(move |_| gate.load(Ordering::SeqCst)),
    ]);
    let mut active = registry.active_tools(&ActivationContext::default());
    assert_eq!(registry.activate(&mut active).await, ["gated"]);
    let generation = active.generation();
    open.store(false, Ordering::SeqCst);
    assert!(registry.activate(&mut active).await.is_empty());
    assert_eq!(active.names(), ["gated"], "stays active once shown");
    assert_eq!(
        active.generation(),
        generation,
        "unchanged set, unchanged generation"
    );
    assert!(
        !registry
            .dispatch(&active, "gated", &json!({}), &ToolContext::default())
            .await
            .is_error
    );
}

#[tokio::test]
async fn null_arguments_read_as_an_empty_object() {
    #[derive(Deserialize, JsonSchema)]
    struct NoArgs {}
    struct Ping;
    #[async_trait]
    impl TypedTool for Ping {
        type Args = NoArgs;
        type Output = &'static str;
        fn name(&self) -> &'static str {
            "ping"
        }
        fn description(&self) -> &'static str {
            "ping"
        }
        async fn call_typed(&self, _: NoArgs, _ctx: &ToolContext) -> AgentResult<&'static str> {
            Ok("pong")
        }
    }
    let mut registry = ToolRegistry::default();
    registry.register(Ping).unwrap();
    assert_eq!(
        dispatch(&registry, "ping", Value::Null)
            .await
            .to_model_text(),
        "pong"
    );
}

#[tokio::test]
async fn typed_outputs_become_text_or_json() {
    #[derive(Deserialize, JsonSchema)]
    struct Pair {
        a: i64,
        b: i64,
    }
    #[derive(serde::Serialize)]
    struct Sum {
        sum: i64,
    }
    struct Add;
    #[async_trait]
    impl TypedTool for Add {
        type Args = Pair;
        type Output = Sum;
        fn name(&self) -> &'static str {
            "add"
        }
        fn description(&self) -> &'static str {
            "add"
        }
        async fn call_typed(&self, p: Pair, _ctx: &ToolContext) -> AgentResult<Sum> {
            Ok(Sum { sum: p.a + p.b })
        }
    }
    let mut registry = ToolRegistry::default();
    registry.register(Add).unwrap();
    let result = dispatch(&registry, "add", json!({"a": 2, "b": 3})).await;
    assert_eq!(result.content, vec![Content::json(json!({"sum": 5}))]);
    assert_eq!(result.to_model_text(), r#"{"sum":5}"#);
}

#[test]
fn typed_tool_schemas_are_derived_once_and_shared() {
    let first = Tool::schema(&Search);
    assert_eq!(first["type"], "object");
    assert!(first.get("title").is_none() && first.get("$schema").is_none());
    assert_eq!(first, Tool::schema(&Search));
}

/// A hand-written tool that counts its calls and answers with its arguments.
struct Note {
    calls: Arc<std::sync::atomic::AtomicUsize>,
    checks_itself: bool,
}

#[async_trait]
impl Tool for Note {
    fn name(&self) -> &'static str {
        "note"
    }
    fn description(&self) -> &'static str {
        "Save a note"
    }
    fn schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["text"],
            "additionalProperties": false
        })
    }
    fn __fast_path(&self) -> phi_agent::__private::FastPath<'_> {
        if self.checks_itself {
            phi_agent::__private::FastPath::ChecksOwnArguments
        } else {
            phi_agent::__private::FastPath::Plain
        }
    }
    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Ok(vec![Content::text(args.to_string())])
    }
}

#[cfg(feature = "schema-validation")]
#[tokio::test]
async fn what_a_hand_written_tools_schema_refuses_never_reaches_its_call() {
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut registry = ToolRegistry::default();
    registry
        .register(Note {
            calls: calls.clone(),
            checks_itself: false,
        })
        .unwrap();

    // An unknown field and a wrong type: both named, and the tool does not run.
    let refused = dispatch(&registry, "note", json!({"text": 5, "bogus": 1})).await;
    assert!(refused.is_error);
    let text = refused.to_model_text();
    assert!(text.contains("bogus") && text.contains("`text`"), "{text}");
    let nested = dispatch(&registry, "note", json!({"text": "a", "tags": ["x", 2]})).await;
    assert!(nested.is_error, "{}", nested.to_model_text());
    assert!(
        nested.to_model_text().contains("tags[1]"),
        "{}",
        nested.to_model_text()
    );
    let missing = dispatch(&registry, "note", Value::Null).await;
    assert!(missing.is_error, "null reads as {{}}, which lacks `text`");
    assert_eq!(calls.load(Ordering::SeqCst), 0, "no refused call ran");

    let ok = dispatch(&registry, "note", json!({"text": "milk", "tags": ["shop"]})).await;
    assert!(!ok.is_error, "{}", ok.to_model_text());
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    // A tool that checks its own arguments (an MCP server's) gets them as sent.
    let mut registry = ToolRegistry::default();
    registry
        .register(Note {
            calls: calls.clone(),
            checks_itself: true,
        })
        .unwrap();
    let passed = dispatch(&registry, "note", json!({"text": 5, "bogus": 1})).await;
    assert!(!passed.is_error, "{}", passed.to_model_text());
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

//! A tool calling other tools through its run (`ToolContext::call_tool`): each nested call is
//! checked and reported like the model's, under the id `<caller>/call/<k>`; a tool that is not
//! available is refused the same way; a call from a spawned task is refused with a reason.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use phi_agent::llm::{LlmResponse, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentEvent, AgentResult, Content, PhiAgent, Tool, ToolContext, base_agent_builder,
    phi_tool,
};
use serde_json::{Value, json};

/// Add two numbers.
#[phi_tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Calls `add` twice through the run, then a tool that does not exist, then `add` from a
/// spawned task; returns what each gave.
struct Composer;

#[async_trait]
impl Tool for Composer {
    fn name(&self) -> &'static str {
        "composer"
    }
    fn description(&self) -> &'static str {
        "Compose other tools"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        let first = ctx.call_tool("add", json!({"a": 1, "b": 2})).await?;
        let wrong = ctx.call_tool("add", json!({"a": "one"})).await?;
        let missing = ctx.call_tool("nope", json!({})).await?;
        let spawned = {
            let ctx = ctx.clone();
            tokio::spawn(async move { ctx.call_tool("add", json!({"a": 1, "b": 1})).await })
                .await
                .unwrap()
        };
        Ok(vec![Content::json(json!({
            "first": first.to_model_text(),
            "wrong": [wrong.is_error, wrong.to_model_text()],
            "missing": [missing.is_error, missing.to_model_text()],
            "spawned": spawned.unwrap_err().to_string(),
        }))])
    }
}

#[tokio::test]
async fn a_tool_calls_tools_through_its_run_as_the_model_would() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("c1", "composer", json!({}))]),
        LlmResponse::text("done"),
    ]);
    let started = Arc::new(Mutex::new(Vec::new()));
    let seen = started.clone();
    let builder = base_agent_builder(llm)
        .register_tool(Add)
        .register_tool(Composer)
        .observer(move |event: &AgentEvent<'_>| {
            if let AgentEvent::ToolStarted { call, .. } = event {
                seen.lock()
                    .unwrap()
                    .push(format!("{} {}", call.id, call.name));
            }
        });
    let output = PhiAgent::build(builder, AgentConfig::default())
        .unwrap()
        .run("go")
        .await
        .unwrap();
    let Content::Json { value } = &output.tool_calls[0].result[0] else {
        panic!("a JSON result: {:?}", output.tool_calls[0].result)
    };
    assert_eq!(value["first"], "3");
    assert_eq!(value["wrong"][0], true);
    let wrong = value["wrong"][1].as_str().unwrap();
    assert!(
        wrong.contains("`b`") && wrong.contains("`a`"),
        "every mistake: {wrong}"
    );
    assert_eq!(value["missing"][0], true);
    assert!(
        value["missing"][1]
            .as_str()
            .unwrap()
            .contains("is not available"),
        "{value}"
    );
    assert!(
        value["spawned"]
            .as_str()
            .unwrap()
            .contains("own call's future"),
        "{value}"
    );
    assert_eq!(
        *started.lock().unwrap(),
        [
            "c1 composer",
            "c1/call/0 add",
            "c1/call/1 add",
            "c1/call/2 nope"
        ]
    );
}

#[tokio::test]
async fn outside_a_run_call_tool_says_it_cannot() {
    let error = ToolContext::default()
        .call_tool("add", json!({"a": 1, "b": 2}))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("call another tool"), "{error}");
}

/// Multiply two numbers; for code only.
#[phi_tool(callers = "code")]
async fn mul(a: i64, b: i64) -> i64 {
    a * b
}

/// Say hello; for the model only.
#[phi_tool(callers = "direct")]
fn greet(name: String) -> String {
    format!("hello {name}")
}

/// Calls `mul` (code only) and `greet` (the model only) through the run.
struct Caller;

#[async_trait]
impl Tool for Caller {
    fn name(&self) -> &'static str {
        "caller"
    }
    fn description(&self) -> &'static str {
        "Call mul and greet"
    }
    fn schema(&self) -> Value {
        json!({"type": "object", "properties": {}})
    }
    async fn call(&self, _args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        let product = ctx.call_tool("mul", json!({"a": 6, "b": 7})).await?;
        let greeting = ctx.call_tool("greet", json!({"name": "x"})).await?;
        let added = ctx.call_tool("plus", json!({"a": 1, "b": 2})).await?;
        Ok(vec![Content::json(json!({
            "product": [product.is_error, product.to_model_text()],
            "greeting": [greeting.is_error, greeting.to_model_text()],
            "added": [added.is_error, added.to_model_text()],
        }))])
    }
}

/// A scripted model whose provider runs the model's code itself (programmatic tool calling).
struct Programmatic(ScriptedLlm);

#[async_trait]
impl phi_agent::llm::LlmClient for Programmatic {
    async fn complete(
        &self,
        request: &phi_agent::llm::LlmRequest,
    ) -> AgentResult<phi_agent::llm::LlmResponse> {
        phi_agent::llm::LlmClient::complete(&self.0, request).await
    }
    fn programmatic_tool_calling(&self) -> bool {
        true
    }
}

fn callers_agent(llm: impl phi_agent::llm::LlmClient + 'static) -> PhiAgent {
    // `plus` is `add` renamed, marked for code only by its toolset.
    let toolset = phi_agent::Toolset::new()
        .with_tool(Add)
        .rename("add", "plus")
        .unwrap()
        .with_callers(phi_agent::ToolCallers::Code);
    let builder = base_agent_builder(llm)
        .register_tool(Mul)
        .register_tool(Greet)
        .register_tool(Caller)
        .register_toolset(toolset);
    PhiAgent::build(builder, AgentConfig::default()).unwrap()
}

fn turn_of(calls: &[(&str, &str)]) -> Vec<LlmResponse> {
    let calls = calls
        .iter()
        .map(|(id, name)| {
            let arguments = match *name {
                "greet" => json!({"name": "y"}),
                "caller" => json!({}),
                _ => json!({"a": 2, "b": 3}),
            };
            ToolCall::new(*id, *name, arguments)
        })
        .collect();
    vec![LlmResponse::tool_calls(calls), LlmResponse::text("done")]
}

#[tokio::test]
async fn a_tool_for_code_only_is_not_offered_to_the_model_and_a_direct_call_is_refused() {
    let llm = ScriptedLlm::new(turn_of(&[
        ("c1", "mul"),
        ("c2", "plus"),
        ("c3", "greet"),
        ("c4", "caller"),
    ]));
    let output = callers_agent(llm.clone()).run("go").await.unwrap();
    assert_eq!(output.text, "done", "the run goes on");
    let offered: Vec<&str> = llm.requests()[0]
        .tools
        .iter()
        .map(|spec| spec.name)
        .collect();
    assert_eq!(offered, ["greet", "caller"]);
    let results: Vec<(bool, String)> = output
        .tool_calls
        .iter()
        .map(|call| {
            let text: String = call
                .result
                .iter()
                .map(|part| part.to_model_text())
                .collect();
            (call.is_error, text)
        })
        .collect();
    for (index, name) in [(0, "mul"), (1, "plus")] {
        let (is_error, text) = &results[index];
        assert!(is_error, "{text}");
        assert!(
            text.contains(&format!("tool `{name}` can be called only from code"))
                && text.contains("`run_code`"),
            "{text}"
        );
    }
    assert_eq!(results[2], (false, "hello y".to_string()));
    // From code: the code-only tools run, the model-only one is refused with a reason.
    let Content::Json { value } = &output.tool_calls[3].result[0] else {
        panic!("a JSON result: {:?}", output.tool_calls[3].result)
    };
    assert_eq!(value["product"], json!([false, "42"]));
    assert_eq!(value["added"], json!([false, "3"]));
    assert_eq!(value["greeting"][0], true);
    assert!(
        value["greeting"][1]
            .as_str()
            .unwrap()
            .contains("tool `greet` can be called only by the model directly, not from code"),
        "{value}"
    );
}

#[tokio::test]
async fn a_provider_that_runs_the_models_code_is_offered_code_only_tools_marked_so() {
    let llm = ScriptedLlm::new(turn_of(&[("c1", "mul")]));
    let output = callers_agent(Programmatic(llm.clone()))
        .run("go")
        .await
        .unwrap();
    let offered: Vec<(&str, phi_agent::ToolCallers)> = llm.requests()[0]
        .tools
        .iter()
        .map(|spec| (spec.name, spec.callers()))
        .collect();
    use phi_agent::ToolCallers::{Both, Code, Direct};
    assert_eq!(
        offered,
        [
            ("mul", Code),
            ("greet", Direct),
            ("caller", Both),
            ("plus", Code)
        ]
    );
    // The provider's program made the call (its sandbox enforces `allowed_callers`): it runs.
    assert!(!output.tool_calls[0].is_error);
    assert_eq!(output.tool_calls[0].result[0].to_model_text(), "6");
}

/// How many times `transfer` has started: its first nested call's arguments depend on it, as a
/// program's would on a clock.
static TRANSFER_STARTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// What `transfer`'s nested calls answered, per start.
static TRANSFER_SAW: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Look up an account.
#[phi_tool]
async fn lookup(account: String, at: u64) -> String {
    format!("{account} at {at}: 100")
}

/// Pay out money.
#[phi_tool(needs_approval)]
async fn pay_out(amount: u64) -> String {
    format!("paid {amount}")
}

/// Looks an account up (with an argument that changes from one start to the next), then pays.
#[phi_tool]
async fn transfer(ctx: &ToolContext) -> AgentResult<String> {
    let start = TRANSFER_STARTS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let looked = ctx
        .call_tool("lookup", json!({"account": "a-1", "at": start}))
        .await?;
    TRANSFER_SAW.lock().unwrap().push(looked.to_model_text());
    let paid = ctx.call_tool("pay_out", json!({"amount": 10})).await?;
    Ok(paid.to_model_text())
}

#[tokio::test]
async fn a_resumed_program_whose_nested_call_changed_is_told_which_argument() {
    let build = |llm: ScriptedLlm| {
        let builder =
            base_agent_builder(llm).register_tools(phi_agent::tools![lookup, pay_out, transfer]);
        PhiAgent::build(builder, AgentConfig::default()).unwrap()
    };
    let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![ToolCall::new(
        "c1",
        "transfer",
        json!({}),
    )])]);
    let outcome = build(llm).start("move the money").await.unwrap();
    let mut paused = outcome.paused().expect("the nested payment pauses the run");
    let id = paused.pending()[0].id().to_string();
    paused.approve(&id).unwrap();
    let resumed = build(ScriptedLlm::new([LlmResponse::text("done")]))
        .resume(paused)
        .await
        .unwrap();
    assert!(resumed.paused().is_none());
    let saw = TRANSFER_SAW.lock().unwrap().clone();
    assert_eq!(saw.len(), 2, "{saw:?}");
    assert_eq!(saw[0], "a-1 at 0: 100");
    assert!(
        saw[1].contains("nested call 0 to `lookup` has other arguments")
            && saw[1].contains("`at` was 0, is 1"),
        "{}",
        saw[1]
    );
}

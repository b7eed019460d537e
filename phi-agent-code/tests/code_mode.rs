//! Code mode on the scripted model: nested calls go through the run (checks, approval, pause,
//! journal), limits end a program with an error the model reads, and the run goes on.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use phi_agent::llm::{LlmResponse, Message, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentEvent, AgentResult, JournalExecutor, PausedRun, PhiAgent, RunOutcome,
    RunOutput, StreamEvent, Tool, ToolContext, base_agent_builder, phi_tool, tools,
};
use phi_agent_code::{CodeLimits, RunCode};
use serde_json::json;

/// How often each tool ran, shared with the test.
#[derive(Default)]
struct Counts {
    lookup: AtomicUsize,
    refund: AtomicUsize,
    checkpoint: AtomicUsize,
}

/// Where the `checkpoint` tool copies the journal: what a process killed at that moment leaves.
#[derive(Default)]
struct Crash {
    journal: Mutex<Option<JournalExecutor>>,
    copy: Mutex<Vec<(String, String)>>,
}

/// The value of a key: ten times its length.
#[phi_tool]
async fn lookup(
    /// The key to look up.
    key: String,
    /// A factor to multiply by.
    scale: Option<i64>,
    ctx: &ToolContext,
) -> AgentResult<i64> {
    ctx.state::<Arc<Counts>>()?
        .lookup
        .fetch_add(1, Ordering::SeqCst);
    Ok(key.len() as i64 * 10 * scale.unwrap_or(1))
}

/// Refund an order.
#[phi_tool(needs_approval)]
async fn refund(order: String, ctx: &ToolContext) -> AgentResult<String> {
    ctx.state::<Arc<Counts>>()?
        .refund
        .fetch_add(1, Ordering::SeqCst);
    Ok(format!("refunded {order}"))
}

/// Marks a point of the program; copies the journal as it is now.
#[phi_tool]
async fn checkpoint(ctx: &ToolContext) -> AgentResult<i64> {
    ctx.state::<Arc<Counts>>()?
        .checkpoint
        .fetch_add(1, Ordering::SeqCst);
    let crash = ctx.state::<Arc<Crash>>()?;
    if let Some(journal) = &*crash.journal.lock().unwrap() {
        *crash.copy.lock().unwrap() = journal.entries();
    }
    Ok(1)
}

fn code_call(id: &str, program: &str) -> LlmResponse {
    LlmResponse::tool_calls(vec![ToolCall::new(
        id,
        "run_code",
        json!({ "code": program }),
    )])
}

fn agent_with(
    llm: &ScriptedLlm,
    counts: &Arc<Counts>,
    configure: impl FnOnce(phi_agent::AgentBuilder) -> phi_agent::AgentBuilder,
) -> PhiAgent {
    let tools = tools![lookup, refund, checkpoint];
    let run_code = RunCode::new(&tools).with_limits(
        CodeLimits::default()
            .with_max_operations(20_000)
            .with_max_string_bytes(4_096),
    );
    let builder = base_agent_builder(llm.clone())
        .register_tools(tools)
        .register_tool(run_code)
        .state(counts.clone())
        .state(Arc::new(Crash::default()));
    PhiAgent::build(configure(builder), AgentConfig::default()).unwrap()
}

/// The tool result messages of a request, in order.
fn results(messages: &[Message]) -> Vec<(String, bool)> {
    messages
        .iter()
        .filter_map(|message| match message {
            Message::Tool {
                content, is_error, ..
            } => Some((
                content
                    .iter()
                    .map(|part| part.to_model_text())
                    .collect::<Vec<_>>()
                    .join("\n"),
                *is_error,
            )),
            _ => None,
        })
        .collect()
}

fn texts(output: &RunOutput) -> Vec<String> {
    output
        .tool_calls
        .iter()
        .map(|call| {
            call.result
                .iter()
                .map(|part| part.to_model_text())
                .collect()
        })
        .collect()
}

#[tokio::test]
async fn three_lookups_summed_are_three_validated_calls_and_only_the_sum_goes_back() {
    let llm = ScriptedLlm::new([
        code_call(
            "c1",
            r#"let total = 0; for key in ["a", "bb", "ccc"] { total += lookup(#{ key: key }); } total"#,
        ),
        LlmResponse::text("The sum is 60."),
    ]);
    let counts = Arc::new(Counts::default());
    let started = Arc::new(Mutex::new(Vec::new()));
    let seen = started.clone();
    let agent = agent_with(&llm, &counts, |builder| {
        builder.observer(move |event: &AgentEvent<'_>| {
            if let AgentEvent::ToolStarted { call, .. } = event {
                seen.lock().unwrap().push(call.id.clone());
            }
        })
    });
    let output = agent.run("Sum the lookups").await.unwrap();
    assert_eq!(output.text, "The sum is 60.");
    assert_eq!(counts.lookup.load(Ordering::SeqCst), 3);
    // Each nested call is a call of the run, reported as one, under its own id.
    assert_eq!(
        *started.lock().unwrap(),
        ["c1", "c1/call/0", "c1/call/1", "c1/call/2"]
    );
    let requests = llm.requests();
    assert_eq!(requests.len(), 2, "one model turn for three calls");
    // The next request carries one tool result, the sum, and nothing of the three calls.
    assert_eq!(results(&requests[1].messages), [("60".to_string(), false)]);
    // The stubs are in run_code's description, the same on both turns.
    let description = |request: &phi_agent::llm::LlmRequest| {
        request
            .tools
            .iter()
            .find(|spec| spec.name == "run_code")
            .map(|spec| spec.description)
            .unwrap()
    };
    assert!(description(&requests[0]).contains("lookup(#{\n    key: string, // The key to look up.\n    scale?: int | (), // A factor to multiply by.\n})"));
    assert_eq!(description(&requests[0]), description(&requests[1]));
}

/// Says hello; for the model only.
#[phi_tool(callers = "direct")]
fn greet(name: String) -> String {
    format!("hello {name}")
}

#[test]
fn a_tool_marked_for_direct_calls_only_is_not_callable_from_programs() {
    let run_code = RunCode::new(&tools![lookup, greet]);
    assert!(run_code.description().contains("lookup(#{"));
    assert!(
        !run_code.description().contains("greet"),
        "{}",
        run_code.description()
    );
    // A predicate of the caller's replaces the marker.
    let all = RunCode::new(&tools![lookup, greet]).with_callable(|_: &dyn Tool| true);
    assert!(all.description().contains("greet(#{"));
}

#[test]
fn the_description_is_byte_identical_for_the_same_tools_and_changes_with_them() {
    let tools = tools![lookup, refund];
    let first = RunCode::new(&tools);
    let again = RunCode::new(&tools![lookup, refund]);
    assert_eq!(first.description(), again.description());
    let fewer = RunCode::new(&tools).with_callable(|tool: &dyn Tool| tool.name() != "refund");
    assert!(first.description().contains("refund(#{"));
    assert!(!fewer.description().contains("refund(#{"));
    assert_ne!(first.description(), fewer.description());
}

#[tokio::test]
async fn an_argument_mistake_in_a_program_gets_every_mistake() {
    let llm = ScriptedLlm::new([
        code_call("c1", r#"lookup(#{ kee: "a", scale: "two" })"#),
        LlmResponse::text("I will fix the call."),
    ]);
    let counts = Arc::new(Counts::default());
    let agent = agent_with(&llm, &counts, |builder| builder);
    let output = agent.run("Look up a").await.unwrap();
    assert_eq!(output.text, "I will fix the call.");
    assert_eq!(counts.lookup.load(Ordering::SeqCst), 0);
    let results = results(&llm.requests()[1].messages);
    let [(text, true)] = &results[..] else {
        panic!("one error result: {results:?}")
    };
    assert!(text.contains("tool `lookup` failed"), "{text}");
    // Both mistakes at once: the missing `key` (with the near miss `kee`) and the wrong type.
    assert!(text.contains("`key`") && text.contains("kee"), "{text}");
    assert!(text.contains("scale"), "{text}");
}

#[tokio::test]
async fn an_endless_loop_a_memory_bomb_and_a_file_read_each_end_with_a_clear_error() {
    let llm = ScriptedLlm::new([
        code_call("c1", "let n = 0; loop { n += 1; }"),
        code_call("c2", r#"let s = "xx"; loop { s += s; }"#),
        code_call("c3", r#"let text = open("/etc/passwd"); text"#),
        code_call("c4", r#"import "secrets" as s; s::key"#),
        code_call("c5", "let n = 0; for i in 0..10 { n += i; } n"),
        LlmResponse::text("Done."),
    ]);
    let counts = Arc::new(Counts::default());
    let agent = agent_with(&llm, &counts, |builder| builder);
    let output = agent.run("Try things").await.unwrap();
    assert_eq!(output.text, "Done.", "the run goes on after each");
    let texts = texts(&output);
    let errors: Vec<bool> = output.tool_calls.iter().map(|call| call.is_error).collect();
    assert_eq!(errors, [true, true, true, true, false]);
    assert!(
        texts[0].contains("more than 20000 operations, the limit"),
        "{}",
        texts[0]
    );
    assert!(texts[1].contains("grew past the limit"), "{}", texts[1]);
    assert!(texts[1].contains("strings 4096 bytes"), "{}", texts[1]);
    assert!(
        texts[2].contains("no function `open")
            && texts[2].contains("no files")
            && texts[2].contains("these tools, each with one map of arguments")
            && ["lookup", "refund", "checkpoint"]
                .iter()
                .all(|tool| texts[2].contains(tool)),
        "{}",
        texts[2]
    );
    assert!(texts[3].contains("does not parse"), "{}", texts[3]);
    assert_eq!(texts[4], "45");
}

#[tokio::test]
async fn printed_output_goes_back_with_the_value_and_is_bounded() {
    let llm = ScriptedLlm::new([
        code_call("c1", r#"print("hello"); 7"#),
        code_call("c2", r#"loop { print("spam spam spam spam"); }"#),
        LlmResponse::text("Done."),
    ]);
    let counts = Arc::new(Counts::default());
    let agent = agent_with(&llm, &counts, |builder| builder);
    let output = agent.run("Print").await.unwrap();
    let texts = texts(&output);
    let first: serde_json::Value = serde_json::from_str(&texts[0]).unwrap();
    assert_eq!(first, json!({"value": 7, "printed": "hello\n"}));
    assert!(output.tool_calls[1].is_error);
    assert!(
        texts[1].contains("printed more than 16384 bytes"),
        "{}",
        texts[1]
    );
}

#[tokio::test]
async fn a_call_that_needs_approval_pauses_and_resumes_without_running_earlier_calls_again() {
    let program = r#"
        let a = lookup(#{ key: "a" });
        let b = lookup(#{ key: "bb" });
        let r = refund(#{ order: "o-1" });
        `${r}: ${a + b}`
    "#;
    let llm = ScriptedLlm::new([code_call("c1", program), LlmResponse::text("unused")]);
    let counts = Arc::new(Counts::default());
    let agent = agent_with(&llm, &counts, |builder| builder);
    let RunOutcome::Paused(paused) = agent.start("Refund o-1").await.unwrap() else {
        panic!("the run pauses on the refund")
    };
    assert_eq!(counts.lookup.load(Ordering::SeqCst), 2);
    assert_eq!(counts.refund.load(Ordering::SeqCst), 0);
    let pending = paused.pending();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].id(), "c1/call/2");
    assert_eq!(pending[0].tool(), "refund");
    assert_eq!(pending[0].within(), Some("c1"));
    assert_eq!(pending[0].arguments(), &json!({"order": "o-1"}));
    let stored = serde_json::to_string(&paused).unwrap();

    // Another process: a new agent, the stored state.
    // The model's next turn reuses the id `c1`: its program's calls run afresh.
    let llm = ScriptedLlm::new([
        code_call("c1", r#"lookup(#{ key: "a" })"#),
        LlmResponse::text("Refunded."),
    ]);
    let counts = Arc::new(Counts::default());
    let agent = agent_with(&llm, &counts, |builder| builder);
    let mut paused: PausedRun = serde_json::from_str(&stored).unwrap();
    paused.approve("c1/call/2").unwrap();
    let output = agent.resume(paused).await.unwrap().done().unwrap();
    assert_eq!(output.text, "Refunded.");
    assert_eq!(counts.refund.load(Ordering::SeqCst), 1);
    assert_eq!(texts(&output), ["\"refunded o-1: 30\"", "10"]);
    // The paused program's two lookups were answered from the state; the next turn's ran.
    assert_eq!(counts.lookup.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_denied_nested_call_is_an_error_the_program_can_catch() {
    let program = r#"
        let r = "";
        try { r = refund(#{ order: "o-1" }); } catch (e) { r = `not refunded: ${e}`; }
        r
    "#;
    let llm = ScriptedLlm::new([code_call("c1", program), LlmResponse::text("ok")]);
    let counts = Arc::new(Counts::default());
    let agent = agent_with(&llm, &counts, |builder| builder);
    let RunOutcome::Paused(mut paused) = agent.start("Refund").await.unwrap() else {
        panic!("the run pauses on the refund")
    };
    paused.deny("c1/call/0", "no refunds today").unwrap();
    let output = agent.resume(paused).await.unwrap().done().unwrap();
    assert_eq!(counts.refund.load(Ordering::SeqCst), 0);
    let texts = texts(&output);
    assert!(
        texts[0].starts_with("\"not refunded: tool `refund` failed"),
        "{}",
        texts[0]
    );
    assert!(texts[0].contains("no refunds today"), "{}", texts[0]);
}

#[tokio::test]
async fn a_journaled_run_killed_after_a_nested_call_replays_it_without_calling_the_tool() {
    let program = "let a = lookup(#{ key: \"abc\" }); let b = checkpoint(); a + b";
    let script = || {
        [
            code_call("c1", program),
            LlmResponse::text("The answer is 31."),
        ]
    };
    let journal = JournalExecutor::new();
    let crash = Arc::new(Crash::default());
    *crash.journal.lock().unwrap() = Some(journal.clone());
    let counts = Arc::new(Counts::default());
    let tools = tools![lookup, checkpoint];
    let build = |llm: ScriptedLlm, counts: &Arc<Counts>, crash: &Arc<Crash>, journal| {
        let builder = base_agent_builder(llm)
            .register_tools(tools.clone())
            .register_tool(RunCode::new(&tools))
            .state(counts.clone())
            .state(crash.clone())
            .step_executor(journal);
        PhiAgent::build(builder, AgentConfig::default()).unwrap()
    };
    let first = build(ScriptedLlm::new(script()), &counts, &crash, journal.clone());
    first.run("Go").await.unwrap();
    assert_eq!(counts.lookup.load(Ordering::SeqCst), 1);
    // What the journal held when `checkpoint` ran: the process died there.
    let at_crash = crash.copy.lock().unwrap().clone();
    let keys: Vec<&str> = at_crash.iter().map(|(key, _)| key.as_str()).collect();
    assert_eq!(
        keys,
        ["session/id", "turn/1/model", "turn/1/tool/c1/call/0"]
    );

    // Another process replays that journal.
    let counts = Arc::new(Counts::default());
    let crash = Arc::new(Crash::default());
    let replay = JournalExecutor::from_entries(at_crash);
    let llm = ScriptedLlm::new([LlmResponse::text("The answer is 31.")]);
    let output = build(llm.clone(), &counts, &crash, replay.clone())
        .run("Go")
        .await
        .unwrap();
    assert_eq!(output.text, "The answer is 31.");
    assert_eq!(
        counts.lookup.load(Ordering::SeqCst),
        0,
        "replayed from the journal"
    );
    assert_eq!(
        counts.checkpoint.load(Ordering::SeqCst),
        1,
        "not journaled: runs again"
    );
    assert_eq!(texts(&output), ["31"]);
    assert_eq!(
        llm.requests().len(),
        1,
        "turn 1's reply came from the journal"
    );
}

#[tokio::test]
async fn outside_a_run_a_program_cannot_call_tools_and_says_why() {
    let tools = tools![lookup];
    let run_code = RunCode::new(&tools);
    let error = run_code
        .call(
            &json!({"code": "lookup(#{ key: \"a\" })"}),
            &ToolContext::default(),
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("call another tool"), "{error}");
    let value = run_code
        .call(&json!({"code": "[1, 2].len()"}), &ToolContext::default())
        .await
        .unwrap();
    assert_eq!(value[0].to_model_text(), "2");
}

#[tokio::test]
async fn in_a_run_that_asks_a_nested_call_goes_to_the_approver() {
    let program = r#"let a = lookup(#{ key: "a" }); refund(#{ order: "o-9" }) + " after " + a"#;
    let llm = ScriptedLlm::new([
        code_call("c1", program),
        code_call("c2", r#"refund(#{ order: "o-7" })"#),
        LlmResponse::text("Done."),
    ]);
    let counts = Arc::new(Counts::default());
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let agent = agent_with(&llm, &counts, |builder| {
        builder.approver(move |request: phi_agent::ApprovalRequest| {
            let seen = seen.clone();
            async move {
                let order = request.arguments["order"]
                    .as_str()
                    .unwrap_or("")
                    .to_string();
                seen.lock().unwrap().push(request.call_id.clone());
                if order == "o-9" {
                    phi_agent::Approval::Approve
                } else {
                    phi_agent::Approval::deny("not this one")
                }
            }
        })
    });
    let output = agent.run("Refund").await.unwrap();
    assert_eq!(output.text, "Done.");
    assert_eq!(*asked.lock().unwrap(), ["c1/call/1", "c2/call/0"]);
    assert_eq!(counts.refund.load(Ordering::SeqCst), 1);
    let texts = texts(&output);
    assert_eq!(texts[0], "\"refunded o-9 after 10\"");
    assert!(output.tool_calls[1].is_error);
    assert!(texts[1].contains("not this one"), "{}", texts[1]);
}

#[tokio::test]
async fn a_second_call_that_needs_approval_pauses_again_after_the_resume() {
    let program = r#"
        let a = lookup(#{ key: "a" });
        let r1 = refund(#{ order: "o-1" });
        let b = lookup(#{ key: "bb" });
        let r2 = refund(#{ order: "o-2" });
        `${r1}, ${r2}: ${a + b}`
    "#;
    let build = |llm: &ScriptedLlm, counts: &Arc<Counts>| agent_with(llm, counts, |b| b);
    let total = |all: &[Arc<Counts>], read: fn(&Counts) -> usize| -> usize {
        all.iter().map(|counts| read(counts)).sum()
    };
    let llm = ScriptedLlm::new([code_call("c1", program)]);
    let first = Arc::new(Counts::default());
    let RunOutcome::Paused(paused) = build(&llm, &first).start("Refund both").await.unwrap() else {
        panic!("the run pauses on the first refund")
    };
    assert_eq!(paused.pending()[0].id(), "c1/call/1");
    let mut paused: PausedRun =
        serde_json::from_str(&serde_json::to_string(&paused).unwrap()).unwrap();
    paused.approve("c1/call/1").unwrap();

    // A new agent resumes: the first refund runs, and the run pauses on the second.
    let llm = ScriptedLlm::new([LlmResponse::text("unused")]);
    let second = Arc::new(Counts::default());
    let RunOutcome::Paused(paused) = build(&llm, &second).resume(paused).await.unwrap() else {
        panic!("the run pauses again, on the second refund")
    };
    assert!(
        llm.requests().is_empty(),
        "the model is not asked in between"
    );
    let pending = paused.pending();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].id(), "c1/call/3");
    assert_eq!(pending[0].within(), Some("c1"));
    assert_eq!(pending[0].arguments(), &json!({"order": "o-2"}));
    let mut paused: PausedRun =
        serde_json::from_str(&serde_json::to_string(&paused).unwrap()).unwrap();
    paused.approve("c1/call/3").unwrap();

    // And another: the program finishes.
    let llm = ScriptedLlm::new([LlmResponse::text("Both refunded.")]);
    let third = Arc::new(Counts::default());
    let output = build(&llm, &third)
        .resume(paused)
        .await
        .unwrap()
        .done()
        .unwrap();
    assert_eq!(output.text, "Both refunded.");
    assert_eq!(texts(&output), ["\"refunded o-1, refunded o-2: 30\""]);
    let all = [first, second, third];
    // Each call ran exactly once over the three agents.
    assert_eq!(total(&all, |c| c.lookup.load(Ordering::SeqCst)), 2);
    assert_eq!(total(&all, |c| c.refund.load(Ordering::SeqCst)), 2);
    assert_eq!(
        all[2].lookup.load(Ordering::SeqCst),
        0,
        "answered from the state"
    );
    // The model read the program's value alone.
    assert_eq!(
        results(&llm.requests()[0].messages),
        [("\"refunded o-1, refunded o-2: 30\"".to_string(), false)]
    );
}

/// The price of an item in cents; for programs only.
#[phi_tool(callers = "code")]
fn price(sku: String) -> i64 {
    sku.len() as i64 * 100
}

#[tokio::test]
async fn a_tool_for_code_only_has_a_stub_but_is_not_offered_to_the_model_directly() {
    let program = r#"
        let p = price(#{ sku: "abc" });
        let g = "";
        try { g = call_tool("greet", #{ name: "x" }); } catch (e) { g = `${e}`; }
        #{ price: p, greet: g }
    "#;
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new("d1", "price", json!({"sku": "abc"}))]),
        code_call("c1", program),
        LlmResponse::text("Done."),
    ]);
    let tools = tools![price, greet];
    let builder = base_agent_builder(llm.clone())
        .register_tools(tools.clone())
        .register_tool(RunCode::new(&tools));
    let output = PhiAgent::build(builder, AgentConfig::default())
        .unwrap()
        .run("Price abc")
        .await
        .unwrap();
    assert_eq!(output.text, "Done.", "the run goes on");
    let request = &llm.requests()[0];
    let offered: Vec<&str> = request.tools.iter().map(|spec| spec.name).collect();
    assert_eq!(offered, ["greet", "run_code"]);
    let run_code = &request.tools[1];
    assert!(
        run_code.description.contains("price(#{"),
        "{}",
        run_code.description
    );
    assert!(
        !run_code.description.contains("greet"),
        "{}",
        run_code.description
    );
    // The model's direct call is refused with a pointer to run_code.
    let texts = texts(&output);
    assert!(output.tool_calls[0].is_error);
    assert!(
        texts[0].contains("tool `price` can be called only from code")
            && texts[0].contains("into a `run_code` program"),
        "{}",
        texts[0]
    );
    // From the program it runs; the model-only tool is an error the program reads.
    let value: serde_json::Value = serde_json::from_str(&texts[1]).unwrap();
    assert_eq!(value["price"], 300);
    let greet = value["greet"].as_str().unwrap();
    assert!(
        greet.contains("`greet` is not a tool this program can call"),
        "{greet}"
    );
}

/// The stream's tool events, as `started <id>` / `finished <id>`, and the run's output.
async fn streamed(agent: &PhiAgent, input: &str) -> (Vec<String>, RunOutput) {
    let mut events = agent.run_stream(input);
    let mut seen = Vec::new();
    while let Some(event) = events.next().await {
        match event.unwrap() {
            StreamEvent::ToolStarted { call, .. } => seen.push(format!("started {}", call.id)),
            StreamEvent::ToolFinished { call, .. } => seen.push(format!("finished {}", call.id)),
            StreamEvent::ToolCallReady { call, .. } => seen.push(format!("ready {}", call.id)),
            StreamEvent::Finished(output) => return (seen, *output),
            _ => {}
        }
    }
    panic!("the stream ended without its output")
}

/// The events of the calls whose id starts with `prefix`.
fn of(events: &[String], prefix: &str) -> Vec<String> {
    events
        .iter()
        .filter(|event| {
            event
                .split(' ')
                .nth(1)
                .is_some_and(|id| id.starts_with(prefix))
        })
        .filter(|event| !event.starts_with("ready"))
        .cloned()
        .collect()
}

const TWO_LOOKUPS: &str = r#"lookup(#{ key: "a" }) + lookup(#{ key: "bb" })"#;

#[tokio::test]
async fn a_streamed_run_shows_each_nested_call_in_order() {
    let llm = ScriptedLlm::new([code_call("c1", TWO_LOOKUPS), LlmResponse::text("30.")]);
    let counts = Arc::new(Counts::default());
    let agent = agent_with(&llm, &counts, |builder| builder);
    let (events, output) = streamed(&agent, "Sum").await;
    assert_eq!(output.text, "30.");
    assert_eq!(texts(&output), ["30"]);
    assert_eq!(
        of(&events, "c1"),
        [
            "started c1",
            "started c1/call/0",
            "finished c1/call/0",
            "started c1/call/1",
            "finished c1/call/1",
            "finished c1",
        ]
    );
    assert_eq!(counts.lookup.load(Ordering::SeqCst), 2);
}

#[tokio::test(start_paused = true)]
async fn with_early_start_a_program_starts_while_the_reply_streams_and_its_calls_go_through_the_run()
 {
    let reply = LlmResponse::tool_calls(vec![
        ToolCall::new("c1", "run_code", json!({ "code": TWO_LOOKUPS })),
        ToolCall::new(
            "c2",
            "run_code",
            json!({ "code": r#"lookup(#{ key: "ccc", scale: 2 })"# }),
        ),
    ]);
    let mut outputs = Vec::new();
    for early in [false, true] {
        let llm = ScriptedLlm::new([reply.clone(), LlmResponse::text("Done.")])
            .with_pieces(4)
            .with_piece_delay(std::time::Duration::from_millis(10));
        let counts = Arc::new(Counts::default());
        let agent = {
            let tools = tools![lookup];
            let builder = base_agent_builder(llm.clone())
                .register_tools(tools.clone())
                .register_tool(RunCode::new(&tools))
                .state(counts.clone());
            let config = AgentConfig::default().with_early_tool_start(early);
            PhiAgent::build(builder, config).unwrap()
        };
        let (events, output) = streamed(&agent, "Look up").await;
        assert_eq!(counts.lookup.load(Ordering::SeqCst), 3);
        assert_eq!(texts(&output), ["30", "60"]);
        for caller in ["c1", "c2"] {
            let calls = of(&events, caller);
            assert_eq!(calls.first().unwrap(), &format!("started {caller}"));
            assert_eq!(calls.last().unwrap(), &format!("finished {caller}"));
            assert!(
                calls.contains(&format!("finished {caller}/call/0")),
                "{calls:?}"
            );
        }
        let started = events.iter().position(|e| e == "started c1").unwrap();
        let last_ready = events.iter().position(|e| e == "ready c2").unwrap();
        assert_eq!(
            started < last_ready,
            early,
            "early: the first program runs while the model still writes the second: {events:?}"
        );
        outputs.push(output);
    }
    assert_eq!(outputs[0].messages, outputs[1].messages, "the same results");
}

/// Archive an order; found by tool search.
#[phi_tool(exposure = "deferred")]
fn archive(order: String) -> String {
    format!("archived {order}")
}

#[tokio::test]
async fn a_tool_found_by_search_becomes_callable_from_code() {
    let program = r#"call_tool("archive", #{ order: "o-3" })"#;
    let llm = ScriptedLlm::new([
        code_call("c1", program),
        LlmResponse::tool_calls(vec![ToolCall::new(
            "s1",
            "search_tools",
            json!({"query": "archive an order"}),
        )]),
        code_call("c2", program),
        LlmResponse::text("Archived."),
    ]);
    let tools = tools![lookup, archive];
    let run_code = RunCode::new(&tools);
    assert!(
        run_code
            .description()
            .contains("Once found by tool search, these are callable with `call_tool(\"name\", #{ .. })`: archive"),
        "{}",
        run_code.description()
    );
    let builder = base_agent_builder(llm.clone())
        .register_tools(tools)
        .register_tool(run_code)
        .state(Arc::new(Counts::default()));
    let config = AgentConfig::default().with_tool_search(phi_agent::ToolSearch::Local);
    let output = PhiAgent::build(builder, config)
        .unwrap()
        .run("Archive o-3")
        .await
        .unwrap();
    assert_eq!(output.text, "Archived.");
    let texts = texts(&output);
    // Before the search: refused, with what to do.
    assert!(output.tool_calls[0].is_error);
    assert!(
        texts[0].contains("tool `archive` is not available yet: call `search_tools`"),
        "{}",
        texts[0]
    );
    assert!(
        texts[1].contains("archive"),
        "the search finds it: {}",
        texts[1]
    );
    // After it: the program calls it.
    assert!(!output.tool_calls[2].is_error, "{}", texts[2]);
    assert_eq!(texts[2], "\"archived o-3\"");
}

#[tokio::test]
async fn each_resumption_of_a_program_is_a_step_of_its_own_in_the_journal() {
    let program = r#"
        let r1 = refund(#{ order: "o-1" });
        let r2 = refund(#{ order: "o-2" });
        `${r1}, ${r2}`
    "#;
    let journal = JournalExecutor::new();
    let counts = Arc::new(Counts::default());
    let build = |llm: &ScriptedLlm| {
        let journal = journal.clone();
        agent_with(llm, &counts, move |builder| builder.step_executor(journal))
    };
    let llm = ScriptedLlm::new([code_call("c1", program), LlmResponse::text("Refunded.")]);
    let RunOutcome::Paused(mut paused) = build(&llm).start("Refund").await.unwrap() else {
        panic!("the run pauses on the first refund")
    };
    paused.approve("c1/call/0").unwrap();
    let RunOutcome::Paused(mut paused) = build(&llm).resume(paused).await.unwrap() else {
        panic!("the run pauses on the second refund")
    };
    paused.approve("c1/call/1").unwrap();
    let output = build(&llm).resume(paused).await.unwrap().done().unwrap();
    // Under one key for both resumptions, the journal would hand the second the first's
    // result (the program stopped by the pause).
    assert_eq!(texts(&output), ["\"refunded o-1, refunded o-2\""]);
    assert_eq!(counts.refund.load(Ordering::SeqCst), 2);
    let keys: Vec<String> = journal.entries().into_iter().map(|(key, _)| key).collect();
    assert_eq!(
        keys,
        [
            "session/id",
            "turn/1/model",
            "turn/1/tool/c1",
            "turn/1/tool/c1/call/0",
            "turn/1/tool/c1/resumed/0",
            "turn/1/tool/c1/call/1",
            "turn/1/tool/c1/resumed/1",
            "turn/2/model",
        ]
    );
}

/// Pauses `program` (as the model's call `c1`) on its refund and approves it; the stored JSON.
async fn approved_program(program: &str, key: Option<&str>) -> serde_json::Value {
    let llm = ScriptedLlm::new([code_call("c1", program)]);
    let counts = Arc::new(Counts::default());
    let agent = agent_with(&llm, &counts, |builder| match key {
        Some(key) => builder.signing_key(key),
        None => builder,
    });
    let RunOutcome::Paused(mut paused) = agent.start("Refund").await.unwrap() else {
        panic!("the run pauses on the refund")
    };
    let id = paused.pending()[0].id().to_string();
    paused.approve(&id).unwrap();
    serde_json::to_value(&paused).unwrap()
}

/// Resumes `stored` on a new agent: the error, and how often each tool ran.
async fn resume_stored(
    stored: serde_json::Value,
    key: Option<&str>,
) -> (phi_agent::AgentError, Arc<Counts>) {
    let llm = ScriptedLlm::new([LlmResponse::text("Refunded.")]);
    let counts = Arc::new(Counts::default());
    let agent = agent_with(&llm, &counts, |builder| match key {
        Some(key) => builder.signing_key(key),
        None => builder,
    });
    let paused: PausedRun = serde_json::from_value(stored).unwrap();
    let error = agent.resume(paused).await.unwrap_err();
    (error, counts)
}

#[tokio::test]
async fn a_program_edited_after_its_call_was_approved_is_refused_and_nothing_runs() {
    let program = r#"
        let a = lookup(#{ key: "a" });
        refund(#{ order: "o-1" })
    "#;
    let stored = approved_program(program, None).await;
    let mut edited = stored.clone();
    let code = edited["calls"][0]["within"]["arguments"]["code"]
        .as_str()
        .unwrap()
        .replace(
            r#"refund(#{ order: "o-1" })"#,
            r#"refund(#{ order: "o-" + "1" }); refund(#{ order: "o-2" })"#,
        );
    edited["calls"][0]["within"]["arguments"]["code"] = json!(code);
    // What a person would be shown is unchanged: the same call, the same arguments.
    let paused: PausedRun = serde_json::from_value(edited.clone()).unwrap();
    assert_eq!(paused.pending()[0].arguments(), &json!({"order": "o-1"}));

    let (error, counts) = resume_stored(edited, None).await;
    assert!(
        matches!(&error, phi_agent::AgentError::Tampered(phi_agent::Tampering::Program { call }) if call == "c1/call/1"),
        "{error:?}"
    );
    assert!(error.to_string().contains("program"), "{error}");
    assert_eq!(
        counts.refund.load(Ordering::SeqCst),
        0,
        "nothing was refunded"
    );
    assert_eq!(counts.lookup.load(Ordering::SeqCst), 0, "no tool ran");
}

#[tokio::test]
async fn a_program_that_makes_another_call_where_the_decided_one_was_runs_nothing() {
    // The refund's order depends on the lookup's result, which the paused state keeps: edited
    // (no key signs it), the program asks for another refund than the one approved.
    let program = r#"
        let a = lookup(#{ key: "a" });
        refund(#{ order: `o-${a}` })
    "#;
    let stored = approved_program(program, None).await;
    assert_eq!(stored["calls"][0]["arguments"], json!({"order": "o-10"}));
    let mut edited = stored.clone();
    let result = &mut edited["calls"][0]["within"]["results"][0]["content"][0]["value"];
    assert_eq!(result, &json!(10), "{stored}");
    *result = json!(99);
    let llm = ScriptedLlm::new([LlmResponse::text("Refunded.")]);
    let counts = Arc::new(Counts::default());
    let agent = agent_with(&llm, &counts, |builder| builder);
    let paused: PausedRun = serde_json::from_value(edited).unwrap();
    let outcome = agent.resume(paused).await;
    assert!(
        matches!(&outcome, Err(phi_agent::AgentError::Tampered(phi_agent::Tampering::Program { call })) if call == "c1/call/1"),
        "{outcome:?}"
    );
    assert_eq!(
        counts.refund.load(Ordering::SeqCst),
        0,
        "nothing was refunded"
    );

    // With a key, the edited result is refused before the program runs again.
    let key = Some("the agent's key");
    let stored = approved_program(program, key).await;
    let mut edited = stored.clone();
    edited["calls"][0]["within"]["results"][0]["content"][0]["value"] = json!(99);
    let (error, counts) = resume_stored(edited, key).await;
    assert!(
        matches!(&error, phi_agent::AgentError::Tampered(phi_agent::Tampering::Signed { part }) if part == "calls/0"),
        "{error:?}"
    );
    assert_eq!(
        counts.lookup.load(Ordering::SeqCst) + counts.refund.load(Ordering::SeqCst),
        0
    );
}

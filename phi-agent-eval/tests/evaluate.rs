//! An evaluation of 20 cases on a scripted model whose mistakes are known: the report gives the
//! scores those mistakes mean, and a threshold above them fails.

use phi_agent::llm::{LlmResponse, Message, ScriptedLlm, ToolCall, Usage};
use phi_agent::{AgentConfig, PhiAgent, base_agent_builder, phi_tool, tools};
use phi_agent_eval::eval::{Case, Evaluator, Report, Thresholds};
use serde_json::json;

/// Add two numbers.
#[phi_tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Multiply two numbers.
#[phi_tool]
fn multiply(a: i64, b: i64) -> i64 {
    a * b
}

/// A model that reads `add A B` and `multiply A B` right, but takes `times A B` for an addition
/// (the wrong tool), and greets a `hello`; 10 tokens read and 5 written per turn.
fn model() -> ScriptedLlm {
    ScriptedLlm::from_fn(|request| {
        let usage = Usage::new(10, 5);
        if let Some(Message::Tool { content, .. }) = request.messages.last() {
            let result = content[0].to_model_text();
            return Ok(LlmResponse::text(format!("The result is {result}.")).with_usage(usage));
        }
        let input = request
            .messages
            .iter()
            .rev()
            .find_map(|message| match message {
                Message::User { text } => Some(text.clone()),
                _ => None,
            })
            .unwrap_or_default();
        let words: Vec<&str> = input.split_whitespace().collect();
        let reply = match words.as_slice() {
            [verb, a, b] => {
                let tool = if *verb == "multiply" {
                    "multiply"
                } else {
                    "add"
                };
                let (a, b): (i64, i64) = (a.parse().unwrap(), b.parse().unwrap());
                LlmResponse::tool_calls(vec![ToolCall::new("c1", tool, json!({"a": a, "b": b}))])
            }
            _ => LlmResponse::text("Hi."),
        };
        Ok(reply.with_usage(usage))
    })
}

/// 10 additions and 5 multiplications the model gets right (but for one expectation written
/// wrong), 3 multiplications it adds instead, and 2 greetings (one held to too few tokens).
fn dataset() -> Vec<Case> {
    let mut cases = Vec::new();
    for i in 1..=10 {
        cases.push(
            Case::new(format!("add-{i}"), format!("add {i} {}", i + 1))
                .expect_tools(["add"])
                .expect_arguments("add", format!("with a = {i}"), move |args| args["a"] == i)
                .expect_answer("the sum", move |text| {
                    text.contains(&(2 * i + 1).to_string())
                })
                .max_turns(2),
        );
    }
    for i in 1..=5 {
        // Case multiply-5 expects an argument the model never sends.
        let a = if i == 5 { 99 } else { i };
        cases.push(
            Case::new(format!("multiply-{i}"), format!("multiply {i} 3"))
                .expect_tools(["multiply"])
                .expect_arguments("multiply", format!("with a = {a}"), move |args| {
                    args["a"] == a
                })
                .expect_answer("the product", move |text| {
                    text.contains(&(3 * i).to_string())
                }),
        );
    }
    for i in 3..=5 {
        cases.push(
            Case::new(format!("times-{i}"), format!("times {i} 2"))
                .expect_tools(["multiply"])
                .expect_answer("the product", move |text| {
                    text.contains(&format!("is {}.", 2 * i))
                }),
        );
    }
    cases.push(
        Case::new("hello", "hello")
            .expect_tools::<&str>([])
            .expect_answer("a greeting", |text| text == "Hi.")
            .max_turns(1),
    );
    cases.push(
        Case::new("hello-terse", "hello")
            .expect_tools::<&str>([])
            .max_tokens(10),
    );
    assert_eq!(cases.len(), 20);
    cases
}

async fn evaluate(concurrency: usize) -> Report {
    let agent = PhiAgent::build(
        base_agent_builder(model()).register_tools(tools![add, multiply]),
        AgentConfig::default(),
    )
    .unwrap();
    Evaluator::new(&agent)
        .with_concurrency(concurrency)
        .run(&dataset())
        .await
}

#[tokio::test]
async fn twenty_cases_score_what_the_scripted_mistakes_mean() {
    let report = evaluate(4).await;
    let total = &report.summary;
    // Failed: multiply-5 (argument), times-3..5 (wrong tool, wrong answer), hello-terse (15 > 10 tokens).
    let failed: Vec<&str> = report
        .cases
        .iter()
        .filter(|case| !case.success)
        .map(|case| case.name.as_str())
        .collect();
    assert_eq!(
        failed,
        ["multiply-5", "times-3", "times-4", "times-5", "hello-terse"],
        "{}",
        report.table()
    );
    assert_eq!((total.cases, total.succeeded), (20, 15));
    assert_eq!(total.success_rate, 0.75);
    // Every case names its tools; the 3 `times` cases called none of the expected ones.
    assert_eq!(total.tool_precision, Some(17.0 / 20.0));
    assert_eq!(total.tool_recall, Some(17.0 / 20.0));
    // 15 cases have an argument predicate; one fails.
    assert_eq!(total.argument_match, Some(14.0 / 15.0));
    // 18 cases of 2 turns and 2 of 1, 15 tokens a turn.
    assert_eq!(total.turns, 38);
    assert_eq!(total.tokens, 38 * 15);
    let times = &report.cases[15];
    assert_eq!(times.tools_called, ["add"]);
    assert_eq!(
        times.failures,
        [
            "`multiply` was not called",
            "`add` was called, unexpected",
            "the answer does not hold: the product"
        ]
    );
    assert_eq!(report.cases[19].failures, ["15 tokens, more than 10"]);
    // The same report one case at a time, times aside.
    let serial = evaluate(1).await;
    let strip = |report: &Report| {
        report
            .cases
            .iter()
            .map(|case| (case.name.clone(), case.success, case.failures.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&serial), strip(&report));

    let json = report.to_json();
    assert_eq!(json["summary"]["success_rate"], 0.75);
    assert_eq!(json["cases"][15]["tool_precision"], 0.0);
    let table = report.table();
    assert!(table.contains("times-3"), "{table}");
    assert!(
        table.lines().last().unwrap().starts_with("total"),
        "{table}"
    );
    assert!(table.contains("15/20"), "{table}");
}

#[tokio::test]
async fn a_threshold_above_the_scores_fails() {
    let report = evaluate(4).await;
    let met = Thresholds::default()
        .with_success_rate(0.75)
        .with_tool_precision(0.85)
        .with_tool_recall(0.85)
        .with_argument_match(0.9)
        .with_max_tokens(570);
    report.check(&met).unwrap();
    let error = report
        .check(&met.clone().with_success_rate(0.8).with_argument_match(0.95))
        .unwrap_err();
    assert_eq!(
        error.below,
        [
            "success rate 0.750 is below 0.800",
            "argument match 0.933 is below 0.950"
        ]
    );
    assert!(error.to_string().contains("times-3"), "{error}");
}

#[tokio::test]
async fn typed_answers_and_failed_runs_are_scored() {
    #[derive(serde::Deserialize)]
    struct Sum {
        sum: i64,
    }
    // Two replies for three cases: the third run fails when the script runs out.
    let llm = ScriptedLlm::new([
        LlmResponse::text(r#"{"sum": 13}"#),
        LlmResponse::text("thirteen"),
    ]);
    let agent = PhiAgent::build(base_agent_builder(llm), AgentConfig::default()).unwrap();
    let typed = |name: &str| {
        Case::new(name, "6 + 7 as JSON")
            .expect_output::<Sum>("sum is 13", |answer| answer.sum == 13)
    };
    let report = Evaluator::new(&agent)
        .run(&[
            typed("json"),
            typed("prose"),
            typed("no-reply").expect_tools(["add"]),
        ])
        .await;
    let outcome: Vec<(bool, &[String])> = report
        .cases
        .iter()
        .map(|case| (case.success, case.failures.as_slice()))
        .collect();
    assert_eq!(outcome[0], (true, &[][..]));
    assert_eq!(
        outcome[1],
        (
            false,
            &["the answer does not hold: sum is 13".to_string()][..]
        )
    );
    assert!(!outcome[2].0);
    assert!(
        outcome[2].1[0].starts_with("the run failed: "),
        "{:?}",
        outcome[2].1
    );
    assert_eq!(report.cases[2].tool_recall, Some(0.0));
    assert_eq!(
        report.summary.tool_recall,
        Some(0.0),
        "only the third case names tools"
    );
}

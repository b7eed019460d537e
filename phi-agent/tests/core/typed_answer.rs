//! Typed answers (`run_typed`) on the scripted model: tool calls before the answer, refused
//! answers told every mistake and retried, the bound on retries, no response format in tool
//! mode, wrapped non-object answers, native structured output, streamed and journaled runs.

use async_trait::async_trait;
use phi_agent::llm::{LlmResponse, Message, ScriptedLlm, ToolCall};
use phi_agent::{
    AgentConfig, AgentError, AgentResult, AnswerMode, AnswerOptions, PhiAgent, StreamEvent,
    ToolContext, TypedTool, base_agent_builder,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Weather {
    /// The city.
    city: String,
    /// Degrees Celsius.
    celsius: i32,
    /// Conditions in a word.
    sky: Sky,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Sky {
    Clear,
    Cloudy,
    Rain,
}

#[derive(Deserialize, JsonSchema)]
struct CityArgs {
    city: String,
}

/// Reports the temperature of a city.
struct Thermometer;

#[async_trait]
impl TypedTool for Thermometer {
    type Args = CityArgs;
    type Output = String;
    fn name(&self) -> &'static str {
        "thermometer"
    }
    fn description(&self) -> &'static str {
        "Read the temperature of a city"
    }
    async fn call_typed(&self, args: CityArgs, _ctx: &ToolContext) -> AgentResult<String> {
        Ok(format!("{}: 18 C, clear", args.city))
    }
}

fn agent(llm: ScriptedLlm) -> PhiAgent {
    let builder = base_agent_builder(llm).register_tool(Thermometer);
    PhiAgent::build(builder, AgentConfig::default()).unwrap()
}

fn answer(id: &str, arguments: serde_json::Value) -> LlmResponse {
    LlmResponse::tool_calls(vec![ToolCall::new(id, "final_answer", arguments)])
}

fn good_weather() -> serde_json::Value {
    json!({"city": "Lyon", "celsius": 18, "sky": "clear"})
}

fn tool_result_text(messages: &[Message], id: &str) -> Option<String> {
    messages.iter().find_map(|message| match message {
        Message::Tool {
            tool_call_id,
            content,
            ..
        } if tool_call_id == id => Some(content.iter().map(|c| c.to_model_text()).collect()),
        _ => None,
    })
}

#[tokio::test]
async fn a_tool_call_then_the_typed_answer() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "t1",
            "thermometer",
            json!({"city": "Lyon"}),
        )]),
        answer("a1", good_weather()),
    ]);
    let output = agent(llm.clone())
        .run_typed::<Weather>("Weather in Lyon?")
        .await
        .unwrap();
    assert_eq!(
        output.value,
        Weather {
            city: "Lyon".into(),
            celsius: 18,
            sky: Sky::Clear
        }
    );
    assert_eq!(output.run.turns, 2);
    assert_eq!(output.run.text, good_weather().to_string());
    // The thermometer ran; the answer is recorded, but never ran as a tool.
    let names: Vec<&str> = output
        .run
        .tool_calls
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(names, ["thermometer", "final_answer"]);
    assert!(!output.run.tool_calls[1].is_error);
    assert_eq!(
        tool_result_text(&output.run.messages, "t1").as_deref(),
        Some("Lyon: 18 C, clear")
    );
    assert_eq!(
        tool_result_text(&output.run.messages, "a1").as_deref(),
        Some("Answer received.")
    );
    // Both turns offered the thermometer and the answer tool, and no response format.
    for request in llm.requests() {
        let names: Vec<&str> = request.tools.iter().map(|spec| spec.name).collect();
        assert_eq!(names, ["thermometer", "final_answer"]);
        assert!(request.response_format.is_none());
    }
    let requests = llm.requests();
    let schema = &requests[0].tools[1].schema;
    assert_eq!(
        schema["properties"]["sky"]["enum"],
        json!(["clear", "cloudy", "rain"])
    );
    assert_eq!(schema["required"], json!(["city", "celsius", "sky"]));
}

#[tokio::test]
async fn a_malformed_answer_gets_every_mistake_then_succeeds() {
    let llm = ScriptedLlm::new([
        // Three mistakes: a wrong type, a value outside the enum, a missing field.
        answer("a1", json!({"city": 5, "sky": "snow"})),
        answer("a2", good_weather()),
    ]);
    let output = agent(llm.clone())
        .run_typed::<Weather>("Weather in Lyon?")
        .await
        .unwrap();
    assert_eq!(output.value.city, "Lyon");
    assert_eq!(output.run.turns, 2);
    let first = &output.run.tool_calls[0];
    assert!(first.is_error);
    let said: String = first.result.iter().map(|c| c.to_model_text()).collect();
    for part in ["`city`", "`sky`", "`celsius`", "3 mistakes"] {
        assert!(said.contains(part), "{part} missing from: {said}");
    }
    for rust in ["struct ", "enum ", "::", "Weather"] {
        assert!(!said.contains(rust), "{rust} in: {said}");
    }
    // The second request carried that error to the model as the call's result.
    let second = &llm.requests()[1];
    let sent = tool_result_text(&second.messages, "a1").unwrap();
    assert_eq!(sent, said);
}

#[tokio::test]
async fn a_plain_text_reply_is_sent_back_and_then_answered() {
    let llm = ScriptedLlm::new([
        LlmResponse::text("It is sunny in Lyon, 18 degrees."),
        answer("a1", good_weather()),
    ]);
    let output = agent(llm.clone())
        .run_typed::<Weather>("Weather in Lyon?")
        .await
        .unwrap();
    assert_eq!(output.value.celsius, 18);
    let second = &llm.requests()[1];
    let Some(Message::User { text }) = second.messages.last() else {
        panic!("the text reply was not answered: {:?}", second.messages);
    };
    assert!(text.contains("calling the tool `final_answer`"), "{text}");
}

#[tokio::test]
async fn a_json_text_reply_that_decodes_is_the_answer() {
    let llm = ScriptedLlm::new([LlmResponse::text(format!(
        "```json\n{}\n```",
        good_weather()
    ))]);
    let output = agent(llm).run_typed::<Weather>("Weather?").await.unwrap();
    assert_eq!(output.value.sky, Sky::Clear);
    assert_eq!(output.run.turns, 1);
}

#[tokio::test]
async fn too_many_refusals_end_the_run_with_the_last_attempt() {
    let llm = ScriptedLlm::new([
        answer("a1", json!({"city": "Lyon"})),
        LlmResponse::text("no idea"),
        answer(
            "a3",
            json!({"city": "Lyon", "celsius": "warm", "sky": "clear"}),
        ),
        answer("a4", good_weather()),
    ]);
    let options = AnswerOptions::default().with_max_retries(2);
    let error = agent(llm.clone())
        .prompt("Weather?")
        .typed::<Weather>()
        .options(options)
        .await
        .unwrap_err();
    let AgentError::AnswerRejected {
        attempts,
        last_attempt,
        last_error,
        transcript,
    } = &error
    else {
        panic!("expected AnswerRejected, got {error:?}");
    };
    assert_eq!(*attempts, 3);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(last_attempt).unwrap(),
        json!({"city": "Lyon", "celsius": "warm", "sky": "clear"})
    );
    assert!(last_error.contains("`celsius`"), "{last_error}");
    assert!(matches!(
        transcript.last(),
        Some(Message::Assistant { tool_calls, .. }) if tool_calls[0].id == "a3"
    ));
    assert_eq!(llm.remaining(), 1, "the fourth reply is never asked for");
    assert!(error.to_string().contains("refused 3 times"), "{error}");
}

#[tokio::test]
async fn zero_retries_refuse_the_first_bad_answer() {
    let llm = ScriptedLlm::new([LlmResponse::text("hello"), answer("a2", good_weather())]);
    let options = AnswerOptions::default().with_max_retries(0);
    let error = agent(llm)
        .prompt("Weather?")
        .typed::<Weather>()
        .options(options)
        .await
        .unwrap_err();
    assert!(
        matches!(&error, AgentError::AnswerRejected { attempts: 1, last_attempt, .. } if last_attempt == "hello"),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_non_object_answer_is_wrapped() {
    let llm = ScriptedLlm::new([
        answer("a1", json!({"value": ["Lyon", "Paris"], "extra": 1})),
        answer("a2", json!({"value": ["Lyon", "Paris"]})),
    ]);
    let output = agent(llm.clone())
        .run_typed::<Vec<String>>("Two cities")
        .await
        .unwrap();
    assert_eq!(output.value, ["Lyon", "Paris"]);
    assert_eq!(output.run.text, r#"["Lyon","Paris"]"#);
    let schema = &llm.requests()[0].tools[1].schema;
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], json!(["value"]));
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["properties"]["value"]["type"], "array");
    // The wrapper refuses an unknown field, naming it.
    let refused: String = output.run.tool_calls[0]
        .result
        .iter()
        .map(|c| c.to_model_text())
        .collect();
    assert!(refused.contains("unknown field `extra`"), "{refused}");

    let enums = ScriptedLlm::new([answer("a1", json!({"value": "rain"}))]);
    let output = agent(enums).run_typed::<Sky>("Sky?").await.unwrap();
    assert_eq!(output.value, Sky::Rain);
}

#[tokio::test]
async fn the_answer_ends_the_turn_and_other_calls_in_it_do_not_run() {
    let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![
        ToolCall::new("t1", "thermometer", json!({"city": "Lyon"})),
        ToolCall::new("a1", "final_answer", good_weather()),
    ])]);
    let mut session = agent(llm).session();
    let output = session.prompt("Weather?").typed::<Weather>().await.unwrap();
    assert_eq!(output.value.celsius, 18);
    let thermometer = &output.run.tool_calls[0];
    assert!(thermometer.is_error);
    assert!(
        tool_result_text(&output.run.messages, "t1")
            .unwrap()
            .starts_with("Not run")
    );
    // The session's history answers every call, so the conversation can go on.
    let calls = session
        .history()
        .iter()
        .filter(|m| matches!(m, Message::Tool { .. }))
        .count();
    assert_eq!(calls, 2);
}

#[tokio::test]
async fn a_refused_answer_beside_a_tool_call_lets_the_tool_run() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![
            ToolCall::new("t1", "thermometer", json!({"city": "Lyon"})),
            ToolCall::new("a1", "final_answer", json!({"city": "Lyon"})),
        ]),
        answer("a2", good_weather()),
    ]);
    let output = agent(llm).run_typed::<Weather>("Weather?").await.unwrap();
    let records: Vec<(&str, bool)> = output
        .run
        .tool_calls
        .iter()
        .map(|r| (r.name.as_str(), r.is_error))
        .collect();
    assert_eq!(
        records,
        [
            ("thermometer", false),
            ("final_answer", true),
            ("final_answer", false)
        ]
    );
}

#[tokio::test]
async fn an_answer_tool_name_taken_by_a_tool_is_refused() {
    let llm = ScriptedLlm::new([answer("a1", good_weather())]);
    let options = AnswerOptions::default().with_tool_name("thermometer");
    let error = agent(llm)
        .prompt("Weather?")
        .typed::<Weather>()
        .options(options)
        .await
        .unwrap_err();
    assert!(
        matches!(error, AgentError::Config(ref m) if m.contains("`thermometer`")),
        "{error}"
    );
}

#[tokio::test]
async fn native_mode_sends_the_schema_on_a_turn_without_tools_and_reads_the_text() {
    let llm = ScriptedLlm::new([
        LlmResponse::text("not json"),
        LlmResponse::text(r#"{"city": "Lyon", "celsius": 18.5, "sky": "clear"}"#),
        LlmResponse::text(good_weather().to_string()),
    ])
    .with_structured_output();
    let agent = PhiAgent::build(base_agent_builder(llm.clone()), AgentConfig::default()).unwrap();
    let options = AnswerOptions::default().with_mode(AnswerMode::Native);
    let output = agent
        .prompt("Weather?")
        .typed::<Weather>()
        .options(options)
        .await
        .unwrap();
    assert_eq!(output.value.city, "Lyon");
    assert_eq!(output.run.turns, 3);
    let requests = llm.requests();
    for request in &requests {
        assert!(
            request.tools.is_empty(),
            "no tool in native mode without tools"
        );
        let format = request.response_format.as_ref().expect("a response format");
        assert_eq!(format.name, "final_answer");
        assert_eq!(format.schema["required"], json!(["city", "celsius", "sky"]));
    }
    let told = |index: usize| match requests[index].messages.last() {
        Some(Message::User { text }) => text.clone(),
        other => panic!("{other:?}"),
    };
    assert!(told(1).contains("is not JSON"), "{}", told(1));
    assert!(told(2).contains("`celsius`"), "{}", told(2));
}

#[tokio::test]
async fn native_mode_with_tools_offers_the_answer_tool_and_no_format() {
    let llm = ScriptedLlm::new([answer("a1", good_weather())]).with_structured_output();
    let options = AnswerOptions::default().with_mode(AnswerMode::Native);
    agent(llm.clone())
        .prompt("Weather?")
        .typed::<Weather>()
        .options(options)
        .await
        .unwrap();
    let request = &llm.requests()[0];
    assert!(request.response_format.is_none());
    assert_eq!(request.tools.len(), 2);
}

#[tokio::test]
async fn a_streamed_typed_run_streams_the_answer_call_and_ends_with_the_typed_answer() {
    let llm = ScriptedLlm::new([
        LlmResponse::tool_calls(vec![ToolCall::new(
            "t1",
            "thermometer",
            json!({"city": "Lyon"}),
        )]),
        answer("a1", good_weather()),
    ])
    .with_pieces(5);
    let agent = agent(llm);
    let mut stream = agent.prompt("Weather?").typed::<Weather>().stream();
    let mut started = Vec::new();
    let mut ready = Vec::new();
    let mut finished = None;
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            StreamEvent::ToolStarted { call, .. } => started.push(call.name),
            StreamEvent::ToolCallReady { call, .. } => ready.push(call.name),
            StreamEvent::Finished(output) => finished = Some(output),
            _ => {}
        }
    }
    assert_eq!(
        started,
        ["thermometer"],
        "the answer never starts as a tool"
    );
    assert_eq!(ready, ["thermometer", "final_answer"]);
    let output = finished.expect("a finished event");
    assert_eq!(output.value.sky, Sky::Clear);
    let weather: Weather = serde_json::from_str(&output.run.text).unwrap();
    assert_eq!(weather, output.value);
}

/// Early tool start is off for typed runs: an accepted answer ends its turn, and a call beside
/// it, ready first in the stream, must not have run.
#[tokio::test]
async fn early_start_never_runs_a_call_beside_the_accepted_answer() {
    let llm = ScriptedLlm::new([LlmResponse::tool_calls(vec![
        ToolCall::new("t1", "thermometer", json!({"city": "Lyon"})),
        ToolCall::new("a1", "final_answer", good_weather()),
    ])])
    .with_pieces(3);
    let builder = base_agent_builder(llm).register_tool(Thermometer);
    let agent =
        PhiAgent::build(builder, AgentConfig::default().with_early_tool_start(true)).unwrap();
    let mut stream = agent.prompt("Weather?").typed::<Weather>().stream();
    let mut started = Vec::new();
    let mut finished = None;
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            StreamEvent::ToolStarted { call, .. } => started.push(call.name),
            StreamEvent::Finished(output) => finished = Some(output),
            _ => {}
        }
    }
    assert!(started.is_empty(), "nothing ran: {started:?}");
    let output = finished.expect("a finished event");
    assert!(
        output.run.tool_calls[0].is_error,
        "the thermometer call is recorded as not run"
    );
    assert_eq!(output.value.celsius, good_weather()["celsius"]);
}

#[tokio::test]
async fn a_session_goes_on_after_a_typed_answer() {
    let llm = ScriptedLlm::new([
        answer("a1", good_weather()),
        LlmResponse::text("You're welcome."),
    ]);
    let mut session = agent(llm.clone()).session();
    session.prompt("Weather?").typed::<Weather>().await.unwrap();
    let plain = session.prompt("Thanks").await.unwrap();
    assert_eq!(plain.text, "You're welcome.");
    let last = &llm.requests()[1];
    let names: Vec<&str> = last.tools.iter().map(|spec| spec.name).collect();
    assert_eq!(names, ["thermometer"], "a plain run offers no answer tool");
}

#[tokio::test]
async fn a_journaled_typed_run_replays_to_the_same_answer_without_the_model() {
    use phi_agent::JournalExecutor;
    let llm = ScriptedLlm::new([
        answer("a1", json!({"city": "Lyon"})),
        LlmResponse::tool_calls(vec![ToolCall::new(
            "t1",
            "thermometer",
            json!({"city": "Lyon"}),
        )]),
        answer("a2", good_weather()),
    ]);
    let journal = JournalExecutor::new();
    let builder = base_agent_builder(llm)
        .register_tool(Thermometer)
        .step_executor(journal.clone());
    let first = PhiAgent::build(builder, AgentConfig::default())
        .unwrap()
        .run_typed::<Weather>("Weather?")
        .await
        .unwrap();
    // Each turn's model reply and the thermometer are steps; the answer, judged from the
    // reply, is not.
    let keys: Vec<String> = journal.entries().into_iter().map(|(key, _)| key).collect();
    assert_eq!(
        keys,
        [
            "session/id",
            "turn/1/model",
            "turn/2/model",
            "turn/2/tool/t1",
            "turn/3/model"
        ]
    );
    let replay = JournalExecutor::from_entries(journal.entries());
    let builder = base_agent_builder(ScriptedLlm::new([]))
        .register_tool(Thermometer)
        .step_executor(replay);
    let again = PhiAgent::build(builder, AgentConfig::default())
        .unwrap()
        .run_typed::<Weather>("Weather?")
        .await
        .unwrap();
    assert_eq!(again, first);
}

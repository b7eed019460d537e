//! The checked-in cassettes (`tests/cassettes/`), recorded against the interop suite's fakes by
//! `phi-agent-eval/record.sh`: each replays offline to the output recorded beside it, sending the
//! same request bytes; a changed request fails naming the field; no key is in any of them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use phi_agent::llm::{
    AnthropicClient, GeminiClient, HttpTransport, LlmClient, OpenAiClient, ReqwestTransport,
    ResponsesClient,
};
use phi_agent::{
    AgentConfig, PhiAgent, RunOutput, StreamEvent, base_agent_builder, phi_tool, tools,
};
use phi_agent_eval::cassette::{Recorder, Redaction, Replayer};
use serde_json::{Value, json};

/// Apply add, subtract, multiply or divide to two numbers.
#[phi_tool]
fn calculator(
    /// Left operand
    a: f64,
    /// Right operand
    b: f64,
    /// add, subtract, multiply or divide
    op: String,
) -> Result<f64, String> {
    match op.as_str() {
        "add" => Ok(a + b),
        "subtract" => Ok(a - b),
        "multiply" => Ok(a * b),
        "divide" if b != 0.0 => Ok(a / b),
        other => Err(format!("cannot {other}")),
    }
}

/// The keys the recording used: none may reach a cassette.
const KEYS: &[&str] = &[
    "sk-cassette-openai-5e3c7a91",
    "sk-ant-cassette-anthropic-8d2f",
    "AIza-cassette-gemini-41b7c0",
];

/// One recorded run: the adapter, whether it streamed, and the fake it was recorded against.
struct Case {
    name: &'static str,
    api: Api,
    streamed: bool,
}

#[derive(Clone, Copy)]
enum Api {
    Chat,
    Responses,
    Anthropic,
    Gemini,
}

const CASES: &[Case] = &[
    Case {
        name: "openai-chat",
        api: Api::Chat,
        streamed: false,
    },
    Case {
        name: "openai-chat-streamed",
        api: Api::Chat,
        streamed: true,
    },
    Case {
        name: "openai-responses",
        api: Api::Responses,
        streamed: false,
    },
    Case {
        name: "openai-responses-streamed",
        api: Api::Responses,
        streamed: true,
    },
    Case {
        name: "anthropic",
        api: Api::Anthropic,
        streamed: false,
    },
    Case {
        name: "anthropic-streamed",
        api: Api::Anthropic,
        streamed: true,
    },
    Case {
        name: "gemini",
        api: Api::Gemini,
        streamed: false,
    },
    Case {
        name: "gemini-streamed",
        api: Api::Gemini,
        streamed: true,
    },
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cassettes")
}

/// The question of `case`: the fakes key a conversation on its first message, so each case asks
/// in its own words (fakellm's rule needs "6 times 7").
fn question(case: &Case) -> String {
    format!("What is 6 times 7, and what is 2 plus 3? ({})", case.name)
}

/// The adapter of `case` against `base` (the fake's URL, or any URL for a replay) over
/// `transport`, with `key`.
fn client(case: &Case, base: &str, transport: Arc<dyn HttpTransport>) -> Arc<dyn LlmClient> {
    match case.api {
        Api::Chat => Arc::new(
            OpenAiClient::new(KEYS[0], "gpt-4o-mini")
                .unwrap()
                .with_base_url(format!("{base}/v1"))
                .with_http_transport(transport),
        ),
        Api::Responses => Arc::new(
            ResponsesClient::new(KEYS[0], "gpt-4o-mini")
                .unwrap()
                .with_base_url(format!("{base}/v1"))
                .with_http_transport(transport),
        ),
        Api::Anthropic => Arc::new(
            AnthropicClient::new(KEYS[1], "claude-sonnet-4-5")
                .unwrap()
                .with_base_url(base)
                .with_http_transport(transport),
        ),
        Api::Gemini => Arc::new(
            GeminiClient::new(KEYS[2], "gemini-2.5-flash")
                .unwrap()
                .with_base_url(base)
                .with_http_transport(transport),
        ),
    }
}

/// Runs the calculator agent on `llm` with `question`, streamed or not.
async fn run(
    llm: Arc<dyn LlmClient>,
    question: &str,
    streamed: bool,
) -> phi_agent::AgentResult<RunOutput> {
    let builder = base_agent_builder(llm)
        .system_prompt("You are a careful assistant. Use the calculator for arithmetic.")
        .register_tools(tools![calculator]);
    let agent = PhiAgent::build(builder, AgentConfig::default())?;
    if !streamed {
        return agent.run(question).await;
    }
    let mut events = agent.run_stream(question);
    while let Some(event) = events.next().await {
        if let StreamEvent::Finished(output) = event? {
            return Ok(*output);
        }
    }
    panic!("the stream ended without its output")
}

/// What a replay must reproduce of a run: everything but the tools' durations.
fn summary(output: &RunOutput) -> Value {
    let calls: Vec<Value> = output
        .tool_calls
        .iter()
        .map(|call| {
            let mut call = serde_json::to_value(call).unwrap();
            call.as_object_mut().unwrap().remove("duration");
            call
        })
        .collect();
    json!({
        "text": output.text,
        "turns": output.turns,
        "usage": output.usage,
        "tool_calls": calls,
        "messages": output.messages,
    })
}

fn expected(case: &Case) -> Value {
    let path = dir().join(format!("{}.output.json", case.name));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!("{}: {error}; run phi-agent-eval/record.sh", path.display())
    });
    serde_json::from_str(&text).unwrap()
}

/// Records every case against the fakes whose URLs `record.sh` sets.
#[tokio::test]
#[ignore = "needs the interop fakes: run phi-agent-eval/record.sh"]
async fn record() {
    let fakellm = std::env::var("PHI_RECORD_FAKELLM_URL").expect("PHI_RECORD_FAKELLM_URL");
    let apis = std::env::var("PHI_RECORD_APIS_URL").expect("PHI_RECORD_APIS_URL");
    for case in CASES {
        let base = match case.api {
            Api::Chat | Api::Anthropic => &fakellm,
            Api::Responses | Api::Gemini => &apis,
        };
        let path = dir().join(format!("{}.jsonl", case.name));
        let recorder = Arc::new(Recorder::new(
            ReqwestTransport::shared().unwrap(),
            &path,
            Redaction::default(),
        ));
        let output = run(
            client(case, base, recorder.clone()),
            &question(case),
            case.streamed,
        )
        .await
        .unwrap_or_else(|error| panic!("{}: {error}", case.name));
        assert!(output.text.contains("42"), "{}: {}", case.name, output.text);
        assert!(recorder.finish().unwrap() >= 2, "{}", case.name);
        let summary = serde_json::to_string_pretty(&summary(&output)).unwrap();
        std::fs::write(
            dir().join(format!("{}.output.json", case.name)),
            summary + "\n",
        )
        .unwrap();
    }
}

#[tokio::test]
async fn every_cassette_replays_to_the_recorded_output_with_the_same_request_bytes() {
    for case in CASES {
        let replayer =
            Arc::new(Replayer::from_file(dir().join(format!("{}.jsonl", case.name))).unwrap());
        let output = run(
            client(case, "http://replay.invalid", replayer.clone()),
            &question(case),
            case.streamed,
        )
        .await
        .unwrap_or_else(|error| panic!("{}: {error}", case.name));
        assert_eq!(summary(&output), expected(case), "{}", case.name);
        assert_eq!(
            replayer.unused(),
            0,
            "{}: an exchange was not replayed",
            case.name
        );
        let recorded: Vec<_> = replayer
            .exchanges()
            .iter()
            .map(|exchange| exchange.request.body.to_bytes())
            .collect();
        assert_eq!(
            replayer.requests(),
            recorded,
            "{}: other request bytes",
            case.name
        );
        assert!(
            output
                .tool_calls
                .iter()
                .any(|call| call.name == "calculator"),
            "{}",
            case.name
        );
    }
}

#[tokio::test]
async fn a_changed_request_fails_with_a_diff_naming_the_field() {
    let case = &CASES[0];
    let replayer =
        Arc::new(Replayer::from_file(dir().join(format!("{}.jsonl", case.name))).unwrap());
    let error = run(
        client(case, "http://replay.invalid", replayer.clone()),
        "What is 6 times 8?",
        false,
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("holds no exchange for this request (POST /v1/chat/completions)"),
        "{error}"
    );
    assert!(
        error.contains(r#"body $.messages[1].content: the cassette has "What is 6 times 7, and what is 2 plus 3? (openai-chat)", the request has "What is 6 times 8?""#),
        "{error}"
    );
    // No retry of a request no replay can serve.
    assert_eq!(replayer.requests().len(), 1);
}

#[test]
fn no_cassette_holds_a_key() {
    let mut read = 0;
    for entry in std::fs::read_dir(dir()).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for key in KEYS {
            assert!(!text.contains(key), "{} holds {key}", path.display());
        }
        read += 1;
    }
    // The MCP client's cassette and output (tests/mcp.rs) are read here too.
    assert_eq!(
        read,
        2 * CASES.len() + 2,
        "a cassette or an output is missing"
    );
    let openai = std::fs::read_to_string(dir().join("openai-chat.jsonl")).unwrap();
    assert!(
        openai.contains(r#"["authorization","<redacted>"]"#),
        "{openai}"
    );
    let gemini = std::fs::read_to_string(dir().join("gemini.jsonl")).unwrap();
    assert!(
        gemini.contains(r#"["x-goog-api-key","<redacted>"]"#),
        "{gemini}"
    );
}

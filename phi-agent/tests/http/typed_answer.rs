//! Typed answers on the wire: what each adapter sends for the answer, in tool mode (every
//! adapter: the final-answer tool, no response format) and in native mode (OpenAI chat
//! completions' strict `response_format: json_schema`, the Responses API's `text.format`).

use phi_agent::{AgentConfig, AnswerMode, AnswerOptions, PhiAgent, base_agent_builder};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::providers::{ALL, Provider, http};

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Verdict {
    /// Whether the claim holds.
    holds: bool,
    /// Why, in one sentence.
    reason: String,
}

async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|request| serde_json::from_slice(&request.body).unwrap())
        .collect()
}

fn agent(provider: Provider, server: &MockServer) -> PhiAgent {
    let llm = provider.client(&server.uri(), "sk-test", http(2_000, 0));
    PhiAgent::build(base_agent_builder(llm), AgentConfig::default()).unwrap()
}

#[tokio::test]
async fn tool_mode_offers_the_answer_tool_and_no_response_format_on_every_adapter() {
    for provider in ALL {
        let server = MockServer::start().await;
        let arguments = json!({"holds": true, "reason": "water boils at 100 C at sea level"});
        Mock::given(method("POST"))
            .and(path(provider.path()))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(provider.raw_calls(&[("final_answer", arguments)])),
            )
            .mount(&server)
            .await;
        let output = agent(provider, &server)
            .run_typed::<Verdict>("Does water boil at 100 C?")
            .await
            .unwrap();
        assert!(output.value.holds, "{provider:?}");
        let bodies = bodies(&server).await;
        assert_eq!(bodies.len(), 1, "{provider:?}");
        let body = &bodies[0];
        assert_eq!(provider.offered(body), ["final_answer"], "{provider:?}");
        for key in ["response_format", "text", "output_format", "output_config"] {
            assert!(body.get(key).is_none(), "{provider:?} sent `{key}`: {body}");
        }
        assert!(
            body.pointer("/generationConfig/responseMimeType").is_none(),
            "{provider:?}"
        );
    }
}

#[tokio::test]
async fn native_mode_sends_strict_json_schema_to_openai_and_reads_the_text() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(Provider::OpenAi.path()))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(
                Provider::OpenAi
                    .answer(r#"{"holds": false, "reason": "it boils lower on a mountain"}"#),
            ),
        )
        .mount(&server)
        .await;
    let options = AnswerOptions::default().with_mode(AnswerMode::Native);
    let output = agent(Provider::OpenAi, &server)
        .prompt("Does water always boil at 100 C?")
        .typed::<Verdict>()
        .options(options)
        .await
        .unwrap();
    assert!(!output.value.holds);
    let body = &bodies(&server).await[0];
    assert!(body.get("tools").is_none(), "{body}");
    assert_eq!(
        body["response_format"],
        json!({
            "type": "json_schema",
            "json_schema": {
                "name": "final_answer",
                "description": AnswerOptions::default().description,
                "schema": {
                    "type": "object",
                    "properties": {
                        "holds": {"type": "boolean", "description": "Whether the claim holds."},
                        "reason": {"type": "string", "description": "Why, in one sentence."}
                    },
                    "required": ["holds", "reason"],
                    "additionalProperties": false
                },
                "strict": true
            }
        })
    );
}

#[tokio::test]
async fn native_mode_sends_text_format_to_the_responses_api() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path(Provider::Responses.path()))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            Provider::Responses.answer(r#"{"holds": true, "reason": "at sea level"}"#),
        ))
        .mount(&server)
        .await;
    let options = AnswerOptions::default().with_mode(AnswerMode::Native);
    let output = agent(Provider::Responses, &server)
        .prompt("Does water boil at 100 C?")
        .typed::<Verdict>()
        .options(options)
        .await
        .unwrap();
    assert_eq!(output.value.reason, "at sea level");
    let body = &bodies(&server).await[0];
    let format = &body["text"]["format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["name"], "final_answer");
    assert_eq!(format["strict"], true);
    assert_eq!(format["schema"]["required"], json!(["holds", "reason"]));
}

#[tokio::test]
async fn native_mode_on_an_adapter_without_structured_output_uses_the_tool() {
    for provider in [Provider::Anthropic, Provider::Gemini] {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path(provider.path()))
            .respond_with(ResponseTemplate::new(200).set_body_json(
                provider.raw_calls(&[("final_answer", json!({"holds": true, "reason": "yes"}))]),
            ))
            .mount(&server)
            .await;
        let options = AnswerOptions::default().with_mode(AnswerMode::Native);
        agent(provider, &server)
            .prompt("?")
            .typed::<Verdict>()
            .options(options)
            .await
            .unwrap();
        let body = &bodies(&server).await[0];
        assert_eq!(provider.offered(body), ["final_answer"], "{provider:?}");
    }
}

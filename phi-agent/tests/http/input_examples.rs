//! Input examples on the wire: Anthropic's `input_examples` (with the beta that enables it), and
//! the examples at the end of the description for the providers whose tool object has no such
//! field.

use phi_agent::llm::{AnthropicClient, HttpConfig};
use phi_agent::{AgentConfig, PhiAgent, base_agent_builder, phi_tool, tools};
use serde_json::{Value, json};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::providers::{ALL, Provider};

/// Get the forecast for a city.
#[phi_tool(
    example = {"city": "Paris"},
    example = ForecastArgs { city: "Oslo".into(), days: Some(3) }
)]
fn forecast(city: String, days: Option<u8>) -> String {
    format!("{city}: sunny for {} days", days.unwrap_or(1))
}

async fn first_request(provider: Provider) -> wiremock::Request {
    crate::first_request::first_request(provider, tools![forecast], "weather?").await
}

#[tokio::test]
async fn anthropic_receives_input_examples_with_the_beta() {
    let request = first_request(Provider::Anthropic).await;
    let body = String::from_utf8(request.body.clone()).unwrap();
    let tools_at = body.find(r#""tools":"#).expect("a tools array");
    assert!(
        body[tools_at..].starts_with(concat!(
            r#""tools":[{"name":"forecast","description":"Get the forecast for a city.","#,
            r#""input_schema":{"type":"object","additionalProperties":false,"properties":{"#,
            r#""city":{"type":"string"},"days":{"type":["integer","null"],"format":"uint8","#,
            r#""minimum":0,"maximum":255}},"required":["city"]},"#,
            r#""input_examples":[{"city":"Paris"},{"city":"Oslo","days":3}]}]"#,
        )),
        "{body}"
    );
    assert_eq!(
        request.headers.get("anthropic-beta").unwrap(),
        "advanced-tool-use-2025-11-20"
    );
}

#[tokio::test]
async fn a_request_without_examples_has_no_beta() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(Provider::Anthropic.answer("done")))
        .mount(&server)
        .await;
    /// Say hello.
    #[phi_tool]
    fn hello() -> String {
        "hello".into()
    }
    let client = AnthropicClient::new("k", "m")
        .unwrap()
        .with_base_url(server.uri())
        .with_http_config(HttpConfig::default().with_max_retries(0));
    let agent = PhiAgent::build(
        base_agent_builder(client).register_tools(tools![hello]),
        AgentConfig::default(),
    )
    .unwrap();
    agent.run("hi").await.unwrap();
    let request = server.received_requests().await.unwrap().remove(0);
    assert!(request.headers.get("anthropic-beta").is_none());
    assert!(!String::from_utf8_lossy(&request.body).contains("input_examples"));
}

#[tokio::test]
async fn the_other_providers_read_the_examples_in_the_description() {
    let expected = "Get the forecast for a city.\n\nExamples of valid arguments:\n{\"city\":\"Paris\"}\n{\"city\":\"Oslo\",\"days\":3}";
    for provider in ALL {
        let request = first_request(provider).await;
        let body: Value = request.body_json().unwrap();
        let description = match provider {
            Provider::OpenAi => &body["tools"][0]["function"]["description"],
            Provider::Responses => &body["tools"][0]["description"],
            Provider::Gemini => &body["tools"][0]["functionDeclarations"][0]["description"],
            Provider::Anthropic => {
                assert_eq!(
                    body["tools"][0]["description"],
                    json!("Get the forecast for a city.")
                );
                continue;
            }
        };
        assert_eq!(description, expected, "{provider:?}");
        assert!(
            !String::from_utf8_lossy(&request.body).contains("input_examples"),
            "{provider:?}"
        );
    }
}

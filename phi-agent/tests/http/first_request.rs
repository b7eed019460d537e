//! What a provider receives first: an agent with some tools, run once against a fake provider
//! that answers "done", and the request it was sent.

use std::sync::Arc;

use phi_agent::{AgentConfig, PhiAgent, Tool, base_agent_builder};
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::providers::{Provider, http};

/// The first request `provider` receives from an agent with `tools`, asked `prompt`.
pub async fn first_request(
    provider: Provider,
    tools: Vec<Arc<dyn Tool>>,
    prompt: &str,
) -> wiremock::Request {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(provider.answer("done")))
        .mount(&server)
        .await;
    let agent = PhiAgent::build(
        base_agent_builder(provider.client(&server.uri(), "k", http(2_000, 0)))
            .register_tools(tools),
        AgentConfig::default(),
    )
    .unwrap();
    agent.run(prompt).await.unwrap();
    server.received_requests().await.unwrap().remove(0)
}

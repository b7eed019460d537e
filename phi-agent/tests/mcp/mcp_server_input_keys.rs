//! The keys of a 2026-07-28 `input_required` result are the ones the tool names (a form's type
//! in snake case, `SampleRequest::with_key`, `roots`); questions asked at once go out in one
//! result; answers sent with a fresh call answer the questions of their keys; a prompt made with
//! `Prompt::asking` asks the same way. Against rmcp's client, which drives no rounds itself.

#![allow(deprecated)] // rmcp marks sampling and roots deprecated by SEP-2577 (2026-07-28).

use phi_agent::mcp::rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig,
    GetPromptRequestParams, GetPromptResponse, Implementation, InputRequiredResult, InputResponses,
    ProtocolVersion,
};
use phi_agent::mcp::rmcp::service::RunningService;
use phi_agent::mcp::rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceExt};
use phi_agent::mcp::{McpServer, Prompt, PromptMessage};
use phi_agent::registry::ToolRegistry;
use phi_agent::{
    AgentError, AgentResult, Elicitation, SampleRequest, ToolConfig, ToolContext, phi_tool, tools,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// Who is asking.
#[derive(Debug, Deserialize, JsonSchema)]
struct UserName {
    name: String,
}

/// Asks the user, the client's model and the client's roots at once.
#[phi_tool]
async fn greet(ctx: &ToolContext) -> AgentResult<String> {
    let (name, greeting, roots) = tokio::join!(
        ctx.elicit::<UserName>("Your name?"),
        ctx.sample(SampleRequest::new("A greeting").with_key("greeting")),
        ctx.roots(),
    );
    let name = name?
        .accepted()
        .map_or("nobody".to_string(), |user| user.name);
    let roots: Vec<String> = roots?.into_iter().map(|root| root.uri).collect();
    Ok(format!("{} {name}, in {}", greeting?.text, roots.join(" ")))
}

fn server() -> McpServer {
    let mut registry = ToolRegistry::new(ToolConfig::default());
    registry.register_all(tools![greet]).unwrap();
    phi_agent::mcp_server!(registry).with_prompt(Prompt::asking(
        "introduce",
        |_args, ctx: ToolContext| async move {
            match ctx.elicit::<UserName>("Your name?").await? {
                Elicitation::Accept(user) => {
                    Ok(vec![PromptMessage::user(format!("I am {}.", user.name))])
                }
                _ => Err(AgentError::tool("no name given")),
            }
        },
    ))
}

async fn connect(capabilities: ClientCapabilities) -> RunningService<RoleClient, ClientConfig> {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server().serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    ClientConfig::new(capabilities, Implementation::new("keys", "0"))
        .serve_with_lifecycle(
            tokio::io::split(client_io),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("a 2026-07-28 connection")
}

fn every_capability() -> ClientCapabilities {
    ClientCapabilities::builder()
        .enable_elicitation()
        .enable_sampling()
        .enable_roots()
        .build()
}

fn responses(answers: Value) -> InputResponses {
    serde_json::from_value(answers).unwrap()
}

fn name_answer() -> Value {
    json!({"action": "accept", "content": {"name": "Ada"}})
}

fn greeting_answer() -> Value {
    json!({"role": "assistant", "content": {"type": "text", "text": "Hello"}, "model": "m"})
}

fn roots_answer() -> Value {
    json!({"roots": [{"uri": "file:///work", "name": "work"}]})
}

fn call(answers: Option<Value>, state: Option<String>) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new("greet");
    params.input_responses = answers.map(responses);
    params.request_state = state;
    params
}

fn asked(response: CallToolResponse) -> InputRequiredResult {
    match response {
        CallToolResponse::InputRequired(asked) => asked,
        other => panic!("the call should ask: {other:?}"),
    }
}

fn text(response: CallToolResponse) -> String {
    let CallToolResponse::Complete(result) = response else {
        panic!("the call should finish: {response:?}");
    };
    serde_json::to_value(&result).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

fn keys(asked: &InputRequiredResult) -> Vec<String> {
    asked
        .input_requests
        .as_ref()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

#[tokio::test]
async fn questions_asked_at_once_go_out_together_under_the_keys_the_tool_names() {
    let client = connect(every_capability()).await;
    let first = asked(client.call_tool_once(call(None, None)).await.unwrap());
    assert_eq!(keys(&first), ["greeting", "roots", "user_name"]);
    let requests = serde_json::to_value(first.input_requests.as_ref().unwrap()).unwrap();
    assert_eq!(requests["user_name"]["method"], "elicitation/create");
    assert_eq!(requests["greeting"]["method"], "sampling/createMessage");
    assert_eq!(requests["roots"]["method"], "roots/list");

    // Two answered: the third is asked again, under a new state.
    let partial = json!({"user_name": name_answer(), "greeting": greeting_answer()});
    let second = client
        .call_tool_once(call(Some(partial), first.request_state.clone()))
        .await
        .unwrap();
    let second = asked(second);
    assert_eq!(keys(&second), ["roots"]);
    assert_ne!(second.request_state, first.request_state);
    let last = json!({"roots": roots_answer()});
    let done = client
        .call_tool_once(call(Some(last), second.request_state.clone()))
        .await
        .unwrap();
    assert_eq!(text(done), "Hello Ada, in file:///work");

    // The state is spent: resending it, or a tampered one, is refused.
    for state in [
        second.request_state.clone().unwrap(),
        "call-x-TAMPERED".into(),
    ] {
        let refused = client.call_tool_once(call(None, Some(state))).await;
        let error = refused.unwrap_err().to_string();
        assert!(error.contains("unknown"), "{error}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn answers_sent_with_a_fresh_call_answer_its_questions_and_bad_ones_are_refused() {
    let client = connect(every_capability()).await;
    let all = json!({
        "user_name": name_answer(),
        "greeting": greeting_answer(),
        "roots": roots_answer(),
        "unrelated": {"action": "accept"},
    });
    let done = client.call_tool_once(call(Some(all), None)).await.unwrap();
    assert_eq!(text(done), "Hello Ada, in file:///work");

    // A wrong key answers nothing: everything is asked.
    let wrong = json!({"wrong_key": name_answer()});
    let again = asked(
        client
            .call_tool_once(call(Some(wrong), None))
            .await
            .unwrap(),
    );
    assert_eq!(keys(&again).len(), 3);

    // An answer that is no result object is a malformed request.
    let malformed = json!({"user_name": 12345});
    let refused = client.call_tool_once(call(Some(malformed), None)).await;
    let error = refused.unwrap_err().to_string();
    assert!(error.contains("user_name"), "{error}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_client_without_roots_is_told_the_capability_it_lacks() {
    let capabilities = ClientCapabilities::builder()
        .enable_elicitation()
        .enable_sampling()
        .build();
    let client = connect(capabilities).await;
    let first = asked(client.call_tool_once(call(None, None)).await.unwrap());
    // Roots were never asked: the tool fails once the other answers come.
    assert_eq!(keys(&first), ["greeting", "user_name"]);
    let answers = json!({"user_name": name_answer(), "greeting": greeting_answer()});
    let refused = client
        .call_tool_once(call(Some(answers), first.request_state))
        .await;
    let error = format!("{:?}", refused.unwrap_err());
    assert!(error.contains("roots"), "{error}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_prompt_asks_before_its_messages() {
    let client = connect(every_capability()).await;
    let first = client
        .get_prompt_once(GetPromptRequestParams::new("introduce"))
        .await
        .unwrap();
    let GetPromptResponse::InputRequired(first) = first else {
        panic!("the prompt should ask: {first:?}");
    };
    assert_eq!(keys(&first), ["user_name"]);
    // A prompt's state resumes no tool call.
    let refused = client
        .call_tool_once(call(None, first.request_state.clone()))
        .await;
    let error = refused.unwrap_err().to_string();
    assert!(error.contains("another prompt"), "{error}");
    let mut resent = GetPromptRequestParams::new("introduce");
    resent.input_responses = Some(responses(json!({"user_name": name_answer()})));
    resent.request_state = first.request_state;
    let done = client.get_prompt_once(resent).await.unwrap();
    let GetPromptResponse::Complete(result) = done else {
        panic!("the prompt should finish: {done:?}");
    };
    let result = serde_json::to_value(&result).unwrap();
    assert_eq!(result["messages"][0]["content"]["text"], "I am Ada.");
    client.cancel().await.unwrap();
}

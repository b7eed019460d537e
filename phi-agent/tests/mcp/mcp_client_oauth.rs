//! Our MCP client with OAuth 2.1 against a loopback authorization server and MCP server (one
//! wiremock server playing both): the 401's challenge discovered through the protected-resource
//! metadata and the authorization server's metadata, the person's step handed the URL (PKCE,
//! `resource`), the code exchanged with the client secret; and, when the access token expires,
//! the refresh token used, with the client secret and `resource` again.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use phi_agent::mcp::{McpClient, McpClientOptions, McpHttpOptions, McpOAuth};
use phi_agent::{Tool, ToolContext};
use serde_json::{Value, json};
use wiremock::matchers::{body_string_contains, header_regex, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

/// A JSON-RPC answer to an authorized MCP request: a 2025-11-25 server whose one tool, `whoami`,
/// says which access token the call carried.
pub(crate) fn mcp_answer(request: &Request) -> ResponseTemplate {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
    let token = request
        .headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .trim_start_matches("Bearer ")
        .to_string();
    let result = match body["method"].as_str().unwrap_or_default() {
        "initialize" => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                               "serverInfo": {"name": "guarded", "version": "1.0.0"}}),
        "tools/list" => json!({"tools": [{"name": "whoami", "inputSchema": {"type": "object"}}]}),
        "tools/call" => json!({"content": [{"type": "text", "text": token}]}),
        _ if body.get("id").is_none() => return ResponseTemplate::new(202),
        _ => {
            return ResponseTemplate::new(200).set_body_json(json!({"jsonrpc": "2.0",
                "id": body["id"], "error": {"code": -32601, "message": "Method not found"}}));
        }
    };
    ResponseTemplate::new(200)
        .insert_header("mcp-session-id", "s-1")
        .set_body_json(json!({"jsonrpc": "2.0", "id": body["id"], "result": result}))
}

async fn guarded_server() -> MockServer {
    let mock = MockServer::start().await;
    let base = mock.uri();
    Mock::given(method("GET"))
        .and(path("/.well-known/oauth-protected-resource/mcp"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "resource": format!("{base}/mcp"),
            "authorization_servers": [base],
        })))
        .mount(&mock)
        .await;
    Mock::given(method("GET"))
        .and(path("/.well-known/oauth-authorization-server"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
        })))
        .mount(&mock)
        .await;
    // The first token lives 2 s; the refreshed one an hour.
    Mock::given(method("POST"))
        .and(path("/token"))
        .and(body_string_contains("grant_type=authorization_code"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "access_token": "access-1", "token_type": "Bearer", "expires_in": 2,
            "refresh_token": "refresh-1",
        })))
        .mount(&mock)
        .await;
    Mock::given(method("POST"))
        .and(path("/token"))
        .and(body_string_contains("grant_type=refresh_token"))
        .and(body_string_contains("refresh_token=refresh-1"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "access_token": "access-2", "token_type": "Bearer", "expires_in": 3600,
            "refresh_token": "refresh-2",
        })))
        .mount(&mock)
        .await;
    mount_protected_endpoint(&mock, "^Bearer access-[12]$").await;
    mock
}

/// The MCP endpoint of `mock`: a POST whose `authorization` matches `authorized` (a regex) is
/// answered by [`mcp_answer`]; any other POST gets `401` and where to learn how to authorize
/// (the protected resource's metadata); GET and DELETE get `405`.
pub(crate) async fn mount_protected_endpoint(mock: &MockServer, authorized: &str) {
    let base = mock.uri();
    Mock::given(method("POST"))
        .and(path("/mcp"))
        .and(header_regex("authorization", authorized))
        .respond_with(mcp_answer)
        .mount(mock)
        .await;
    Mock::given(method("POST"))
        .and(path("/mcp"))
        .respond_with(
            ResponseTemplate::new(401).insert_header(
                "www-authenticate",
                format!(
                    "Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\""
                )
                .as_str(),
            ),
        )
        .with_priority(10)
        .mount(mock)
        .await;
    for verb in ["GET", "DELETE"] {
        Mock::given(method(verb))
            .and(path("/mcp"))
            .respond_with(ResponseTemplate::new(405))
            .mount(mock)
            .await;
    }
}

pub(crate) async fn whoami(client: &McpClient) -> String {
    let tool = client.tools()[0].clone();
    let answer = tool
        .call(&json!({}), &ToolContext::default())
        .await
        .unwrap();
    answer[0].to_model_text()
}

#[tokio::test]
async fn an_expired_access_token_is_refreshed_with_the_client_secret_and_resource() {
    let mock = guarded_server().await;
    let resource = format!("{}/mcp", mock.uri());
    let opened = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = opened.clone();
    // The person's step: the URL is "opened", and the server "redirects" with a code.
    let authorizer = move |url: String| {
        let seen = seen.clone();
        async move {
            seen.lock().unwrap().push(url.clone());
            let url = reqwest::Url::parse(&url).map_err(|e| e.to_string())?;
            let state = url
                .query_pairs()
                .find(|(key, _)| key == "state")
                .map(|(_, value)| value.to_string())
                .ok_or("no state")?;
            Ok(format!(
                "http://127.0.0.1:8976/callback?code=the-code&state={state}"
            ))
        }
    };
    let oauth = McpOAuth::default()
        .with_client_id("phi")
        .with_client_secret("s3cret")
        .with_authorizer(authorizer);
    let client = McpClient::connect_http(
        "guarded",
        &resource,
        McpHttpOptions::default().with_oauth(oauth),
        McpClientOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(whoami(&client).await, "access-1");

    let opened = opened.lock().unwrap().clone();
    assert_eq!(opened.len(), 1, "{opened:?}");
    let url = reqwest::Url::parse(&opened[0]).unwrap();
    let query: std::collections::HashMap<String, String> = url.query_pairs().into_owned().collect();
    assert!(opened[0].starts_with(&format!("{}/authorize?", mock.uri())));
    assert_eq!(query["client_id"], "phi");
    assert_eq!(query["code_challenge_method"], "S256");
    assert!(!query["code_challenge"].is_empty());
    assert_eq!(query["resource"], resource);

    // Past the first token's 2 s: the next call refreshes it first.
    tokio::time::sleep(Duration::from_millis(2_200)).await;
    assert_eq!(whoami(&client).await, "access-2");

    let requests = mock.received_requests().await.unwrap();
    let token_requests: Vec<&Request> = requests
        .iter()
        .filter(|request| request.url.path() == "/token")
        .collect();
    assert_eq!(token_requests.len(), 2, "one code exchange, one refresh");
    let refresh = token_requests[1];
    let body = String::from_utf8_lossy(&refresh.body).to_string();
    let form: std::collections::HashMap<String, String> =
        reqwest::Url::parse(&format!("http://x/?{body}"))
            .unwrap()
            .query_pairs()
            .into_owned()
            .collect();
    assert_eq!(form["grant_type"], "refresh_token", "{body}");
    assert_eq!(
        form["resource"], resource,
        "the refresh names the resource: {body}"
    );
    // The secret goes as HTTP Basic (the server's method) or in the form.
    let basic = refresh
        .headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert!(
        basic == "Basic cGhpOnMzY3JldA=="
            || form.get("client_secret").map(String::as_str) == Some("s3cret"),
        "the refresh authenticates the client: {basic:?} {body}"
    );
    client.close().await;
}

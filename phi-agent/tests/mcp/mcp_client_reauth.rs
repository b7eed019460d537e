//! Our MCP client authorizing a second time: a step-up for more scope asks for the scopes it had
//! and the new ones together (SEP-2350), and a protected resource that moved to another
//! authorization server gets a client registered with that one (SEP-2352). Wiremock servers play
//! the MCP server and the authorization servers; the MCP server speaks 2025-11-25, as in
//! mcp_client_oauth.rs.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use phi_agent::mcp::{McpClient, McpClientOptions, McpHttpOptions, McpOAuth};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::mcp_client_oauth::{mcp_answer, whoami};

fn bearer(request: &Request) -> String {
    request
        .headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .trim_start_matches("Bearer ")
        .to_string()
}

fn rpc_method(request: &Request) -> String {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
    body["method"].as_str().unwrap_or_default().to_string()
}

/// A challenge naming the protected resource's metadata on `base`, with `extra` parameters.
fn challenge(status: u16, base: &str, extra: &str) -> ResponseTemplate {
    let header = format!(
        "Bearer {extra}resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\""
    );
    ResponseTemplate::new(status).insert_header("www-authenticate", header.as_str())
}

/// An authorization server on `mock`: its metadata, dynamic registration answering
/// `client_id`, and a token endpoint issuing `prefix-1`, `prefix-2`, ...
async fn mount_authorization_server(
    mock: &MockServer,
    client_id: &'static str,
    prefix: &'static str,
) {
    let base = mock.uri();
    Mock::given(method("GET"))
        .and(path("/.well-known/oauth-authorization-server"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "registration_endpoint": format!("{base}/register"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
        })))
        .mount(mock)
        .await;
    Mock::given(method("POST"))
        .and(path("/register"))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({
            "client_id": client_id,
            "redirect_uris": ["http://127.0.0.1:8976/callback"],
        })))
        .mount(mock)
        .await;
    let issued = Arc::new(AtomicUsize::new(0));
    Mock::given(method("POST"))
        .and(path("/token"))
        .respond_with(move |_: &Request| {
            let n = issued.fetch_add(1, Ordering::SeqCst) + 1;
            ResponseTemplate::new(200).set_body_json(json!({
                "access_token": format!("{prefix}-{n}"), "token_type": "Bearer", "expires_in": 3600,
            }))
        })
        .mount(mock)
        .await;
}

/// The person's step, recording each URL it is handed: "redirects" with a code and the state.
fn recording_authorizer(
    opened: Arc<Mutex<Vec<reqwest::Url>>>,
) -> impl Fn(String) -> std::pin::Pin<Box<dyn Future<Output = Result<String, String>> + Send>>
+ Send
+ Sync
+ 'static {
    move |url: String| {
        let opened = opened.clone();
        Box::pin(async move {
            let url = reqwest::Url::parse(&url).map_err(|e| e.to_string())?;
            let state = url
                .query_pairs()
                .find(|(key, _)| key == "state")
                .map(|(_, value)| value.to_string())
                .ok_or("no state")?;
            opened.lock().unwrap().push(url);
            Ok(format!(
                "http://127.0.0.1:8976/callback?code=the-code&state={state}"
            ))
        })
    }
}

fn query(url: &reqwest::Url, key: &str) -> String {
    url.query_pairs()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.to_string())
        .unwrap_or_default()
}

async fn connect(resource: &str, opened: Arc<Mutex<Vec<reqwest::Url>>>) -> McpClient {
    let oauth = McpOAuth::default()
        .with_redirect_uri("http://127.0.0.1:8976/callback")
        .with_authorizer(recording_authorizer(opened));
    McpClient::connect_http(
        "guarded",
        resource,
        McpHttpOptions::default().with_oauth(oauth),
        McpClientOptions::default(),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn a_step_up_asks_for_the_scopes_it_had_and_the_new_ones_together() {
    let mock = MockServer::start().await;
    let base = mock.uri();
    mount_authorization_server(&mock, "phi", "token").await;
    Mock::given(method("GET"))
        .and(path("/.well-known/oauth-protected-resource/mcp"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "resource": format!("{base}/mcp"), "authorization_servers": [base],
        })))
        .mount(&mock)
        .await;
    // The first token serves everything but calls, which need `write` too; the second
    // (asked for with both scopes) serves everything.
    let endpoint = base.clone();
    Mock::given(method("POST"))
        .and(path("/mcp"))
        .respond_with(move |request: &Request| match bearer(request).as_str() {
            "token-2" => mcp_answer(request),
            "token-1" if rpc_method(request) != "tools/call" => mcp_answer(request),
            "token-1" => challenge(
                403,
                &endpoint,
                "error=\"insufficient_scope\", scope=\"write\", ",
            ),
            _ => challenge(401, &endpoint, "scope=\"read\", "),
        })
        .mount(&mock)
        .await;

    let opened = Arc::new(Mutex::new(Vec::new()));
    let client = connect(&format!("{base}/mcp"), opened.clone()).await;
    assert_eq!(whoami(&client).await, "token-2");

    let opened = opened.lock().unwrap().clone();
    assert_eq!(
        opened.len(),
        2,
        "one authorization, one step-up: {opened:?}"
    );
    assert_eq!(query(&opened[0], "scope"), "read");
    let stepped: Vec<String> = query(&opened[1], "scope")
        .split(' ')
        .map(str::to_string)
        .collect();
    assert_eq!(stepped, ["read", "write"], "{}", opened[1]);
    client.close().await;
}

#[tokio::test]
async fn a_resource_that_moved_to_another_authorization_server_gets_a_client_registered_there() {
    let mcp = MockServer::start().await;
    let first = MockServer::start().await;
    let second = MockServer::start().await;
    mount_authorization_server(&first, "client-of-the-first", "first").await;
    mount_authorization_server(&second, "client-of-the-second", "second").await;
    let base = mcp.uri();
    // The protected resource names the first authorization server once, the second after.
    let fetched = Arc::new(AtomicUsize::new(0));
    let (first_uri, second_uri, resource) = (first.uri(), second.uri(), format!("{base}/mcp"));
    Mock::given(method("GET"))
        .and(path("/.well-known/oauth-protected-resource/mcp"))
        .respond_with(move |_: &Request| {
            let server = if fetched.fetch_add(1, Ordering::SeqCst) == 0 {
                &first_uri
            } else {
                &second_uri
            };
            ResponseTemplate::new(200)
                .set_body_json(json!({"resource": resource, "authorization_servers": [server]}))
        })
        .mount(&mcp)
        .await;
    // The first server's token opens the session, then no longer counts.
    let endpoint = base.clone();
    Mock::given(method("POST"))
        .and(path("/mcp"))
        .respond_with(move |request: &Request| {
            let token = bearer(request);
            let handshake = ["server/discover", "initialize", "notifications/initialized"]
                .contains(&rpc_method(request).as_str());
            if token.starts_with("second-") || (token.starts_with("first-") && handshake) {
                mcp_answer(request)
            } else {
                challenge(401, &endpoint, "")
            }
        })
        .mount(&mcp)
        .await;

    let opened = Arc::new(Mutex::new(Vec::new()));
    let client = connect(&format!("{base}/mcp"), opened.clone()).await;
    assert_eq!(whoami(&client).await, "second-1");

    let opened = opened.lock().unwrap().clone();
    assert_eq!(opened.len(), 2, "{opened:?}");
    assert_eq!(query(&opened[0], "client_id"), "client-of-the-first");
    assert!(
        opened[1].as_str().starts_with(&second.uri()),
        "{}",
        opened[1]
    );
    assert_eq!(query(&opened[1], "client_id"), "client-of-the-second");
    let registered = |requests: Vec<Request>| {
        requests
            .iter()
            .filter(|request| request.url.path() == "/register")
            .count()
    };
    assert_eq!(registered(second.received_requests().await.unwrap()), 1);
    let second_saw_first_client = second
        .received_requests()
        .await
        .unwrap()
        .iter()
        .any(|request| String::from_utf8_lossy(&request.body).contains("client-of-the-first"));
    assert!(
        !second_saw_first_client,
        "the first server's client id went to the second"
    );
    client.close().await;
}

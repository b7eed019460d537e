//! Our MCP client's machine-to-machine OAuth grants against a loopback authorization server (one
//! wiremock server playing the MCP server, its authorization server, and for cross-app access
//! the identity provider): client credentials with a secret (HTTP Basic or the request body, as
//! the metadata says), with a JWT assertion signed by our key (checked with its public key), and
//! cross-app access (token exchange for an ID-JAG, then the JWT bearer grant). Each test checks
//! the token requests field by field, and that the token obtained is the one the calls carry.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use base64::Engine;
use base64::prelude::{BASE64_STANDARD, BASE64_URL_SAFE_NO_PAD};
use phi_agent::mcp::{
    McpClient, McpClientOptions, McpCrossApp, McpHttpOptions, McpOAuth, McpOAuthGrant,
    McpPrivateKey,
};
use ring::rand::SystemRandom;
use ring::signature::{
    ECDSA_P256_SHA256_FIXED, ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair,
    UnparsedPublicKey,
};
use serde_json::{Value, json};
use wiremock::matchers::{body_string_contains, header_regex, method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::mcp_client_oauth::{mcp_answer, mount_protected_endpoint, whoami};

/// The form fields of a token request.
fn form(request: &Request) -> HashMap<String, String> {
    url_form(&String::from_utf8_lossy(&request.body))
}

fn url_form(body: &str) -> HashMap<String, String> {
    reqwest::Url::parse(&format!("http://x/?{body}"))
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect()
}

fn authorization(request: &Request) -> String {
    request
        .headers
        .get("authorization")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

fn token(access_token: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "access_token": access_token, "token_type": "Bearer", "expires_in": 3600,
    }))
}

/// An MCP server at `/mcp` that wants a bearer token starting `machine-`, with its
/// protected-resource metadata and an authorization server (`auth_methods` for its token
/// endpoint) at the root.
async fn guarded_server(auth_methods: &[&str], grant_types: &[&str]) -> MockServer {
    guarded_server_at(auth_methods, grant_types, None).await
}

/// [`guarded_server`] whose metadata names `token_endpoint` (default: its own `/token`).
async fn guarded_server_at(
    auth_methods: &[&str],
    grant_types: &[&str],
    token_endpoint: Option<&str>,
) -> MockServer {
    let mock = MockServer::start().await;
    let base = mock.uri();
    let token_endpoint = token_endpoint.map_or_else(|| format!("{base}/token"), str::to_string);
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
            "token_endpoint": token_endpoint,
            "response_types_supported": ["code"],
            "grant_types_supported": grant_types,
            "token_endpoint_auth_methods_supported": auth_methods,
            "token_endpoint_auth_signing_alg_values_supported": ["ES256"],
        })))
        .mount(&mock)
        .await;
    mount_protected_endpoint(&mock, "^Bearer machine-").await;
    mock
}

async fn connect(mock: &MockServer, oauth: McpOAuth) -> McpClient {
    McpClient::connect_http(
        "machine",
        &format!("{}/mcp", mock.uri()),
        McpHttpOptions::default().with_oauth(oauth),
        McpClientOptions::default(),
    )
    .await
    .unwrap()
}

async fn token_requests(mock: &MockServer, at: &str) -> Vec<Request> {
    mock.received_requests()
        .await
        .unwrap()
        .into_iter()
        .filter(|request| request.url.path() == at)
        .collect()
}

#[tokio::test]
async fn client_credentials_send_the_secret_as_the_metadata_says() {
    for (methods, basic) in [
        (&["client_secret_basic"][..], true),
        (&["client_secret_post"][..], false),
    ] {
        let mock = guarded_server(methods, &["client_credentials"]).await;
        Mock::given(method("POST"))
            .and(path("/token"))
            .respond_with(token("machine-cc"))
            .mount(&mock)
            .await;
        let oauth = McpOAuth::default()
            .with_grant(McpOAuthGrant::ClientCredentials)
            .with_client_id("bot")
            .with_client_secret("s3cret")
            .with_scopes(["mcp:read"]);
        let client = connect(&mock, oauth).await;
        assert_eq!(whoami(&client).await, "machine-cc", "{methods:?}");

        let requests = token_requests(&mock, "/token").await;
        assert_eq!(requests.len(), 1, "{methods:?}");
        let fields = form(&requests[0]);
        assert_eq!(fields["grant_type"], "client_credentials");
        assert_eq!(fields["resource"], format!("{}/mcp", mock.uri()));
        assert_eq!(fields["scope"], "mcp:read");
        if basic {
            let expected = format!("Basic {}", BASE64_STANDARD.encode("bot:s3cret"));
            assert_eq!(authorization(&requests[0]), expected);
            assert!(!fields.contains_key("client_secret"), "{fields:?}");
        } else {
            assert_eq!(fields["client_id"], "bot");
            assert_eq!(fields["client_secret"], "s3cret");
            assert_eq!(authorization(&requests[0]), "");
        }
        // Nothing was asked of a person.
        assert!(token_requests(&mock, "/authorize").await.is_empty());
        client.close().await;
    }
}

/// A fresh P-256 key: its PKCS#8 PEM and its public key.
fn p256_key() -> (String, Vec<u8>) {
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let pair =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    let pem = format!(
        "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
        BASE64_STANDARD.encode(pkcs8.as_ref())
    );
    (pem, pair.public_key().as_ref().to_vec())
}

/// The claims of a compact JWS, after checking its signature with `public` (ES256).
fn verified_claims(jwt: &str, public: &[u8]) -> Value {
    let parts: Vec<&str> = jwt.split('.').collect();
    assert_eq!(parts.len(), 3, "{jwt}");
    let header: Value =
        serde_json::from_slice(&BASE64_URL_SAFE_NO_PAD.decode(parts[0]).unwrap()).unwrap();
    assert_eq!(header["alg"], "ES256");
    let signature = BASE64_URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
    UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, public)
        .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
        .expect("the assertion is signed by the client's key");
    serde_json::from_slice(&BASE64_URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap()
}

#[tokio::test]
async fn client_credentials_with_a_private_key_send_a_signed_assertion_and_no_secret() {
    let mock = guarded_server(&["private_key_jwt"], &["client_credentials"]).await;
    Mock::given(method("POST"))
        .and(path("/token"))
        .respond_with(token("machine-jwt"))
        .mount(&mock)
        .await;
    let (pem, public) = p256_key();
    let key = McpPrivateKey::from_pkcs8_pem(&pem).unwrap();
    assert_eq!(key.algorithm(), "ES256");
    let oauth = McpOAuth::default()
        .with_grant(McpOAuthGrant::ClientCredentials)
        .with_client_id("bot")
        .with_private_key(key);
    assert!(!format!("{oauth:?}").contains("PRIVATE"));
    let client = connect(&mock, oauth).await;
    assert_eq!(whoami(&client).await, "machine-jwt");

    let requests = token_requests(&mock, "/token").await;
    assert_eq!(requests.len(), 1);
    let fields = form(&requests[0]);
    assert_eq!(fields["grant_type"], "client_credentials");
    assert_eq!(
        fields["client_assertion_type"],
        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    );
    assert_eq!(fields["resource"], format!("{}/mcp", mock.uri()));
    assert!(!fields.contains_key("client_id"), "RFC 7523: {fields:?}");
    assert!(!fields.contains_key("scope"), "no scope asked: {fields:?}");
    assert_eq!(authorization(&requests[0]), "");
    let claims = verified_claims(&fields["client_assertion"], &public);
    assert_eq!(claims["iss"], "bot");
    assert_eq!(claims["sub"], "bot");
    assert_eq!(claims["aud"], mock.uri(), "the audience is the issuer");
    assert!(claims["exp"].as_u64() > claims["iat"].as_u64());
    assert!(claims["jti"].as_str().is_some_and(|jti| jti.len() >= 16));
    client.close().await;
}

/// Mounts a token endpoint on `mock` that issues `machine-1`, `machine-2`, .., the `n`th living
/// `lifetime(n)` seconds; returns how many it has issued.
async fn issue_tokens(
    mock: &MockServer,
    lifetime: impl Fn(usize) -> u64 + Send + Sync + 'static,
) -> Arc<AtomicUsize> {
    let issued = Arc::new(AtomicUsize::new(0));
    let counter = issued.clone();
    Mock::given(method("POST"))
        .and(path("/token"))
        .respond_with(move |_: &Request| {
            let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
            ResponseTemplate::new(200).set_body_json(json!({
                "access_token": format!("machine-{n}"), "token_type": "Bearer",
                "expires_in": lifetime(n),
            }))
        })
        .mount(mock)
        .await;
    issued
}

/// No refresh token comes with a machine grant: when the token expires, the server's 401 runs
/// the grant again and the call is sent once more.
#[tokio::test]
async fn an_expired_machine_token_is_replaced_by_running_the_grant_again() {
    for with_key in [true, false] {
        let methods: &[&str] = if with_key {
            &["private_key_jwt"]
        } else {
            &["client_secret_post"]
        };
        let mock = guarded_server(methods, &["client_credentials"]).await;
        let issued = issue_tokens(&mock, |_| 1).await;
        let mut oauth = McpOAuth::default()
            .with_grant(McpOAuthGrant::ClientCredentials)
            .with_client_id("bot");
        oauth = if with_key {
            oauth.with_private_key(McpPrivateKey::from_pkcs8_pem(&p256_key().0).unwrap())
        } else {
            oauth.with_client_secret("s3cret")
        };
        let client = connect(&mock, oauth).await;
        // The token lives one second, so a loaded machine may already have replaced it while
        // connecting: what holds is that each expiry runs the grant once more, and the newest
        // token is the one sent.
        let number = |token: &str| -> usize {
            token
                .strip_prefix("machine-")
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("key: {with_key}: not a machine token: {token}"))
        };
        let first = number(&whoami(&client).await);
        tokio::time::sleep(Duration::from_millis(1_200)).await;
        let second = number(&whoami(&client).await);
        // A token issued after the first one was sent, not the expired one; the client's other
        // requests (its event stream) may have run the grant again since, never before it.
        let issued = issued.load(Ordering::SeqCst);
        assert!(second > first, "key: {with_key}: {first} then {second}");
        assert!(second <= issued, "key: {with_key}: {second} of {issued}");
        client.close().await;
    }
}

/// A token that expires between the handshake's requests (here the server takes longer over
/// `server/discover` than the token lives) is replaced by running the grant again, and the
/// connection is made with the new one.
#[tokio::test]
async fn a_token_that_expires_while_connecting_is_replaced() {
    let mock = guarded_server(&["client_secret_post"], &["client_credentials"]).await;
    // The first token lives one second, the next an hour: a loaded machine's slow handshake
    // cannot let the replacement expire too.
    let issued = issue_tokens(&mock, |n| if n == 1 { 1 } else { 3_600 }).await;
    Mock::given(method("POST"))
        .and(path("/mcp"))
        .and(header_regex("authorization", "^Bearer machine-1$"))
        .and(body_string_contains("server/discover"))
        .respond_with(|request: &Request| {
            mcp_answer(request).set_delay(Duration::from_millis(1_300))
        })
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&mock)
        .await;
    let oauth = McpOAuth::default()
        .with_grant(McpOAuthGrant::ClientCredentials)
        .with_client_id("bot")
        .with_client_secret("s3cret");
    let client = connect(&mock, oauth).await;
    assert!(issued.load(Ordering::SeqCst) >= 2, "the grant ran again");
    assert_ne!(whoami(&client).await, "machine-1");
    client.close().await;
}

#[tokio::test]
async fn client_credentials_refused_by_the_metadata_fail_with_the_reason() {
    let mock = guarded_server(&["client_secret_basic"], &["client_credentials"]).await;
    let (pem, _) = p256_key();
    let oauth = McpOAuth::default()
        .with_grant(McpOAuthGrant::ClientCredentials)
        .with_client_id("bot")
        .with_private_key(McpPrivateKey::from_pkcs8_pem(&pem).unwrap());
    let error = McpClient::connect_http(
        "machine",
        &format!("{}/mcp", mock.uri()),
        McpHttpOptions::default().with_oauth(oauth),
        McpClientOptions::default(),
    )
    .await
    .expect_err("the server takes no assertions")
    .to_string();
    assert!(error.contains("private_key_jwt"), "{error}");
    assert!(token_requests(&mock, "/token").await.is_empty());

    // Neither a secret nor a key: said before any request.
    let oauth = McpOAuth::default()
        .with_grant(McpOAuthGrant::ClientCredentials)
        .with_client_id("bot");
    let error = McpClient::connect_http(
        "machine",
        &format!("{}/mcp", mock.uri()),
        McpHttpOptions::default().with_oauth(oauth),
        McpClientOptions::default(),
    )
    .await
    .expect_err("no credentials")
    .to_string();
    assert!(error.contains("with_client_secret"), "{error}");
}

/// An unsigned-looking but well-formed ID-JAG, as the identity provider would issue it.
fn id_jag(claims: &Value) -> String {
    let header = json!({"alg": "ES256", "typ": "oauth-id-jag+jwt"});
    format!(
        "{}.{}.{}",
        BASE64_URL_SAFE_NO_PAD.encode(header.to_string()),
        BASE64_URL_SAFE_NO_PAD.encode(claims.to_string()),
        BASE64_URL_SAFE_NO_PAD.encode("signature")
    )
}

#[tokio::test]
async fn cross_app_access_exchanges_the_id_token_then_redeems_the_id_jag() {
    let mock = guarded_server(
        &["client_secret_basic"],
        &["urn:ietf:params:oauth:grant-type:jwt-bearer"],
    )
    .await;
    let base = mock.uri();
    let resource = format!("{base}/mcp");
    let idp = format!("{base}/idp");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let jag = id_jag(&json!({
        "iss": idp, "sub": "ada@example.com", "aud": base, "client_id": "agent",
        "jti": "j-1", "iat": now, "exp": now + 300, "resource": resource,
    }));
    Mock::given(method("POST"))
        .and(path("/idp/token"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "access_token": jag,
            "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
            "token_type": "N_A",
        })))
        .mount(&mock)
        .await;
    Mock::given(method("POST"))
        .and(path("/token"))
        .respond_with(token("machine-xaa"))
        .mount(&mock)
        .await;
    let cross_app = McpCrossApp::default()
        .with_idp_issuer(&idp)
        .with_idp_token_endpoint(format!("{idp}/token"))
        .with_idp_client_id("agent-at-idp")
        .with_id_token("the-id-token");
    let oauth = McpOAuth::default()
        .with_grant(McpOAuthGrant::CrossApp(cross_app))
        .with_client_id("agent")
        .with_client_secret("s3cret");
    assert!(!format!("{oauth:?}").contains("the-id-token"));
    let client = connect(&mock, oauth).await;
    assert_eq!(whoami(&client).await, "machine-xaa");

    let exchanges = token_requests(&mock, "/idp/token").await;
    assert_eq!(exchanges.len(), 1);
    let fields = form(&exchanges[0]);
    assert_eq!(
        fields["grant_type"],
        "urn:ietf:params:oauth:grant-type:token-exchange"
    );
    assert_eq!(fields["subject_token"], "the-id-token");
    assert_eq!(
        fields["subject_token_type"],
        "urn:ietf:params:oauth:token-type:id_token"
    );
    assert_eq!(
        fields["requested_token_type"],
        "urn:ietf:params:oauth:token-type:id-jag"
    );
    assert_eq!(
        fields["audience"], base,
        "the ID-JAG is for the server's AS"
    );
    assert_eq!(fields["resource"], resource);
    assert_eq!(fields["client_id"], "agent-at-idp");

    let redemptions = token_requests(&mock, "/token").await;
    assert_eq!(redemptions.len(), 1);
    let fields = form(&redemptions[0]);
    assert_eq!(
        fields["grant_type"],
        "urn:ietf:params:oauth:grant-type:jwt-bearer"
    );
    assert_eq!(fields["assertion"], jag);
    let expected = format!("Basic {}", BASE64_STANDARD.encode("agent:s3cret"));
    assert_eq!(authorization(&redemptions[0]), expected);
    client.close().await;
}

/// Metadata that sends the token request to the cloud's instance-metadata address: refused
/// before anything is sent, whichever address the server itself is at.
#[tokio::test]
async fn a_token_endpoint_at_a_link_local_address_is_refused() {
    let mock = guarded_server_at(
        &["client_secret_basic"],
        &["client_credentials"],
        Some("http://169.254.169.254/latest/api/token"),
    )
    .await;
    let base = mock.uri();
    let oauth = McpOAuth::default()
        .with_grant(McpOAuthGrant::ClientCredentials)
        .with_client_id("bot")
        .with_client_secret("s3cret");
    let error = McpClient::connect_http(
        "machine",
        &format!("{base}/mcp"),
        McpHttpOptions::default().with_oauth(oauth),
        McpClientOptions::default(),
    )
    .await
    .expect_err("a link-local token endpoint")
    .to_string();
    assert!(error.contains("token endpoint"), "{error}");
    assert!(error.contains("169.254.169.254"), "{error}");
    assert!(error.contains("may not reach"), "{error}");
}

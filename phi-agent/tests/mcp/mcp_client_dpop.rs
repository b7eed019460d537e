//! Our MCP client with DPoP (RFC 9449) and the JWT bearer grant against a loopback authorization
//! server and MCP server (one wiremock server) that check what RFC 9449 asks them to: each
//! proof's signature under the key in its header, `typ`, `htm`, `htu`, a `jti` never seen before,
//! the server's nonce (both servers insist on one: the first proof of each is refused with
//! `use_dpop_nonce`), and at the MCP server `ath` and the key the token was bound to. Each grant
//! path is taken: client credentials (rmcp's token request through our proofs), the JWT bearer
//! grant (ours), the authorization code (`dpop_jkt`), and a stored token; and a refused JWT
//! bearer grant.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use base64::Engine;
use base64::prelude::BASE64_URL_SAFE_NO_PAD;
use phi_agent::mcp::{
    McpAssertion, McpClient, McpClientOptions, McpDpopKey, McpHttpOptions, McpOAuth, McpOAuthGrant,
};
use ring::digest::{SHA256, digest};
use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use crate::mcp_client_oauth::{mcp_answer, whoami};

const AS_NONCE: &str = "as-nonce-1";
const RS_NONCE: &str = "rs-nonce-1";

/// What the servers saw.
#[derive(Default)]
struct Seen {
    jtis: HashSet<String>,
    /// Every proof the servers refused, and why (an empty list is the test's expectation).
    errors: Vec<String>,
    /// The token requests' form bodies.
    token_forms: Vec<String>,
    nonce_refusals: usize,
    /// Authorization schemes of the MCP requests that carried a token.
    schemes: Vec<String>,
}

fn decode(part: &str) -> Option<Value> {
    serde_json::from_slice(&BASE64_URL_SAFE_NO_PAD.decode(part).ok()?).ok()
}

fn header<'a>(request: &'a Request, name: &str) -> Option<&'a str> {
    request.headers.get(name).and_then(|v| v.to_str().ok())
}

/// Checks `proof` as a server would; the key's RFC 7638 thumbprint and the claims, or why not.
fn check_proof(
    proof: Option<&str>,
    method: &str,
    url: &str,
    seen: &mut Seen,
) -> Result<(String, Value), String> {
    let proof = proof.ok_or("no DPoP header")?;
    let parts: Vec<&str> = proof.split('.').collect();
    if parts.len() != 3 {
        return Err("not a compact JWS".into());
    }
    let head = decode(parts[0]).ok_or("header is not JSON")?;
    let claims = decode(parts[1]).ok_or("claims are not JSON")?;
    if head["typ"] != "dpop+jwt" || head["alg"] != "ES256" {
        return Err(format!("bad header {head}"));
    }
    let jwk = &head["jwk"];
    if jwk.get("d").is_some() {
        return Err("private key in the jwk".into());
    }
    let coordinate = |name: &str| {
        BASE64_URL_SAFE_NO_PAD
            .decode(jwk[name].as_str().unwrap_or_default())
            .unwrap_or_default()
    };
    let mut point = vec![4u8];
    point.extend(coordinate("x"));
    point.extend(coordinate("y"));
    let signature = BASE64_URL_SAFE_NO_PAD
        .decode(parts[2])
        .map_err(|_| "signature is not base64url")?;
    UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, &point)
        .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
        .map_err(|_| "the signature does not verify")?;
    if claims["htm"] != method || claims["htu"] != url {
        return Err(format!(
            "htm/htu {} {} for {method} {url}",
            claims["htm"], claims["htu"]
        ));
    }
    let jti = claims["jti"].as_str().ok_or("no jti")?.to_string();
    if !seen.jtis.insert(jti) {
        return Err("a replayed jti".into());
    }
    let canonical = format!(
        r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
        jwk["x"].as_str().unwrap_or_default(),
        jwk["y"].as_str().unwrap_or_default()
    );
    let thumbprint = BASE64_URL_SAFE_NO_PAD.encode(digest(&SHA256, canonical.as_bytes()));
    Ok((thumbprint, claims))
}

/// An authorization server issuing DPoP tokens `dpop-<thumbprint>` (any grant) once a proof
/// carries its nonce, and an MCP server at `/mcp` that accepts them only as `DPoP` with a proof
/// for the request, its nonce, the token's hash, and the key the token is bound to.
async fn dpop_servers(seen: Arc<Mutex<Seen>>) -> MockServer {
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
            "grant_types_supported": ["authorization_code", "client_credentials",
                                      "urn:ietf:params:oauth:grant-type:jwt-bearer"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "none"],
            "dpop_signing_alg_values_supported": ["ES256"],
        })))
        .mount(&mock)
        .await;
    let token_url = format!("{base}/token");
    let at_token = seen.clone();
    Mock::given(method("POST"))
        .and(path("/token"))
        .respond_with(move |request: &Request| {
            let mut seen = at_token.lock().unwrap();
            seen.token_forms
                .push(String::from_utf8_lossy(&request.body).into_owned());
            let checked = check_proof(header(request, "dpop"), "POST", &token_url, &mut seen);
            let (thumbprint, claims) = match checked {
                Ok(checked) => checked,
                Err(error) => {
                    seen.errors.push(format!("token endpoint: {error}"));
                    return ResponseTemplate::new(400)
                        .set_body_json(json!({"error": "invalid_dpop_proof"}));
                }
            };
            if claims["nonce"] != AS_NONCE {
                seen.nonce_refusals += 1;
                return ResponseTemplate::new(400)
                    .insert_header("dpop-nonce", AS_NONCE)
                    .set_body_json(json!({"error": "use_dpop_nonce"}));
            }
            ResponseTemplate::new(200).set_body_json(json!({
                "access_token": format!("dpop-{thumbprint}"),
                "token_type": "DPoP",
                "expires_in": 3600,
            }))
        })
        .mount(&mock)
        .await;
    let mcp_url = format!("{base}/mcp");
    let challenge =
        format!(r#"DPoP resource_metadata="{base}/.well-known/oauth-protected-resource/mcp""#);
    Mock::given(method("POST"))
        .and(path("/mcp"))
        .respond_with(move |request: &Request| {
            let Some(authorization) = header(request, "authorization") else {
                return ResponseTemplate::new(401)
                    .insert_header("www-authenticate", challenge.as_str());
            };
            let mut seen = seen.lock().unwrap();
            let (scheme, token) = authorization.split_once(' ').unwrap_or_default();
            seen.schemes.push(scheme.to_string());
            let checked = check_proof(header(request, "dpop"), "POST", &mcp_url, &mut seen);
            let (thumbprint, claims) = match checked {
                Ok(checked) => checked,
                Err(error) => {
                    seen.errors.push(format!("MCP server: {error}"));
                    return ResponseTemplate::new(401)
                        .insert_header("www-authenticate", r#"DPoP error="invalid_dpop_proof""#);
                }
            };
            let ath = BASE64_URL_SAFE_NO_PAD.encode(digest(&SHA256, token.as_bytes()));
            if scheme != "DPoP" || claims["ath"] != ath.as_str() {
                seen.errors.push(format!(
                    "MCP server: scheme {scheme}, ath {}",
                    claims["ath"]
                ));
            }
            if token != format!("dpop-{thumbprint}") {
                seen.errors
                    .push("MCP server: the proof's key is not the token's".into());
            }
            if claims["nonce"] != RS_NONCE {
                seen.nonce_refusals += 1;
                return ResponseTemplate::new(401)
                    .insert_header("dpop-nonce", RS_NONCE)
                    .insert_header("www-authenticate", r#"DPoP error="use_dpop_nonce""#);
            }
            mcp_answer(request)
        })
        .mount(&mock)
        .await;
    for verb in ["GET", "DELETE"] {
        Mock::given(method(verb))
            .and(path("/mcp"))
            .respond_with(ResponseTemplate::new(405))
            .mount(&mock)
            .await;
    }
    mock
}

async fn connect(mock: &MockServer, oauth: McpOAuth) -> McpClient {
    McpClient::connect_http(
        "dpop",
        &format!("{}/mcp", mock.uri()),
        McpHttpOptions::default().with_oauth(oauth),
        McpClientOptions::default(),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn a_dpop_token_is_obtained_with_proofs_and_presented_with_a_fresh_one_per_request() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mock = dpop_servers(seen.clone()).await;
    let key = McpDpopKey::generate().unwrap();
    // Client credentials with a secret: the token request is rmcp's, through our proofs.
    let oauth = McpOAuth::default()
        .with_grant(McpOAuthGrant::ClientCredentials)
        .with_client_id("bot")
        .with_client_secret("s3cret")
        .with_dpop(key.clone());
    let client = connect(&mock, oauth).await;
    let expected = format!("DPoP dpop-{}", key.thumbprint());
    assert_eq!(whoami(&client).await, expected);
    assert_eq!(whoami(&client).await, expected);

    let seen = seen.lock().unwrap();
    assert!(seen.errors.is_empty(), "{:?}", seen.errors);
    // One refusal at each server, answered with its nonce, which is then kept.
    assert_eq!(seen.nonce_refusals, 2);
    assert_eq!(seen.token_forms.len(), 2, "the token request and its retry");
    assert!(seen.token_forms[0].contains("grant_type=client_credentials"));
    assert!(seen.schemes.iter().all(|scheme| scheme == "DPoP"));
    // initialize (refused, then again), initialized, tools/list, two calls: a proof each.
    assert!(seen.jtis.len() >= 7, "{}", seen.jtis.len());
}

#[tokio::test]
async fn the_jwt_bearer_grant_sends_the_platforms_assertion_with_a_proof() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mock = dpop_servers(seen.clone()).await;
    let key = McpDpopKey::generate().unwrap();
    let dir = std::env::temp_dir().join(format!("phi-wif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("token");
    std::fs::write(&file, "eyJ.workload.sig\n").unwrap();
    let oauth = McpOAuth::default()
        .with_grant(McpOAuthGrant::JwtBearer(McpAssertion::from_file(&file)))
        .with_client_id("workload")
        .with_scopes(["mcp:read"])
        .with_dpop(key.clone());
    let client = connect(&mock, oauth).await;
    assert_eq!(
        whoami(&client).await,
        format!("DPoP dpop-{}", key.thumbprint())
    );
    std::fs::remove_dir_all(&dir).unwrap();

    let seen = seen.lock().unwrap();
    assert!(seen.errors.is_empty(), "{:?}", seen.errors);
    let form: Vec<(String, String)> = url::form_urlencoded::parse(seen.token_forms[1].as_bytes())
        .into_owned()
        .collect();
    let field = |name: &str| {
        form.iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    assert_eq!(
        field("grant_type"),
        Some("urn:ietf:params:oauth:grant-type:jwt-bearer")
    );
    assert_eq!(field("assertion"), Some("eyJ.workload.sig"));
    assert_eq!(field("client_id"), Some("workload"));
    assert_eq!(field("scope"), Some("mcp:read"));
    assert_eq!(
        field("resource"),
        Some(format!("{}/mcp", mock.uri()).as_str())
    );
}

#[tokio::test]
async fn a_refused_jwt_bearer_grant_fails_with_the_servers_error_and_no_retry() {
    let mock = MockServer::start().await;
    let base = mock.uri();
    Mock::given(method("GET"))
        .and(path("/.well-known/oauth-protected-resource/mcp"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "resource": format!("{base}/mcp"), "authorization_servers": [base],
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
        })))
        .mount(&mock)
        .await;
    Mock::given(method("POST"))
        .and(path("/token"))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({
            "error": "invalid_grant", "error_description": "the assertion expired",
        })))
        .mount(&mock)
        .await;
    crate::mcp_client_oauth::mount_protected_endpoint(&mock, "^Bearer never$").await;
    let oauth = McpOAuth::default().with_grant(McpOAuthGrant::JwtBearer(McpAssertion::new(
        "eyJ.expired.sig",
    )));
    let connected = McpClient::connect_http(
        "wif",
        &format!("{base}/mcp"),
        McpHttpOptions::default().with_oauth(oauth),
        McpClientOptions::default(),
    )
    .await;
    let Err(error) = connected else {
        panic!("the connection should fail");
    };
    let message = error.to_string();
    assert!(message.contains("invalid_grant"), "{message}");
    assert!(message.contains("the assertion expired"), "{message}");
    let token_requests = mock
        .received_requests()
        .await
        .unwrap()
        .into_iter()
        .filter(|request| request.url.path() == "/token")
        .count();
    assert_eq!(token_requests, 1, "no retry");
}

#[tokio::test]
async fn a_stored_dpop_token_goes_with_proofs_under_the_key_read_from_pem() {
    use phi_agent::mcp::rmcp::transport::auth::{
        CredentialStore, InMemoryCredentialStore, OAuthTokenResponse, StoredCredentials,
    };
    use ring::rand::SystemRandom;
    use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};

    let seen = Arc::new(Mutex::new(Seen::default()));
    let mock = dpop_servers(seen.clone()).await;
    let pkcs8 =
        EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
            .unwrap();
    let pem = format!(
        "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
        base64::prelude::BASE64_STANDARD.encode(pkcs8.as_ref())
    );
    let key = McpDpopKey::from_pkcs8_pem(&pem).unwrap();
    // A token issued to this key in an earlier run, kept in the store.
    let token: OAuthTokenResponse = serde_json::from_value(json!({
        "access_token": format!("dpop-{}", key.thumbprint()),
        "token_type": "DPoP",
        "expires_in": 3600,
    }))
    .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let store = InMemoryCredentialStore::new();
    store
        .save(StoredCredentials::new(
            "person-app".to_string(),
            Some(token),
            Vec::new(),
            Some(now),
        ))
        .await
        .unwrap();
    let oauth = McpOAuth::default()
        .with_client_id("person-app")
        .with_credential_store(store)
        .with_dpop(key.clone());
    let client = connect(&mock, oauth).await;
    assert_eq!(
        whoami(&client).await,
        format!("DPoP dpop-{}", key.thumbprint())
    );
    let seen = seen.lock().unwrap();
    assert!(seen.errors.is_empty(), "{:?}", seen.errors);
    assert!(seen.token_forms.is_empty(), "no new token was asked for");
}

#[tokio::test]
async fn the_code_is_bound_to_the_key_and_exchanged_with_a_proof() {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let mock = dpop_servers(seen.clone()).await;
    let key = McpDpopKey::generate().unwrap();
    let thumbprint = key.thumbprint().to_string();
    // The person's step: the URL must carry the key's thumbprint (RFC 9449 section 10).
    let authorizer = move |url: String| {
        let thumbprint = thumbprint.clone();
        async move {
            let url = reqwest::Url::parse(&url).map_err(|e| e.to_string())?;
            let query = |name: &str| {
                url.query_pairs()
                    .find(|(key, _)| key == name)
                    .map(|(_, value)| value.to_string())
            };
            if query("dpop_jkt").as_deref() != Some(thumbprint.as_str()) {
                return Err(format!("no dpop_jkt of the key in {url}"));
            }
            let state = query("state").ok_or("no state")?;
            Ok(format!(
                "http://127.0.0.1:8976/callback?code=the-code&state={state}"
            ))
        }
    };
    let oauth = McpOAuth::default()
        .with_client_id("person-app")
        .with_authorizer(authorizer)
        .with_dpop(key.clone());
    let client = connect(&mock, oauth).await;
    assert_eq!(
        whoami(&client).await,
        format!("DPoP dpop-{}", key.thumbprint())
    );
    let seen = seen.lock().unwrap();
    assert!(seen.errors.is_empty(), "{:?}", seen.errors);
    assert!(seen.token_forms[1].contains("grant_type=authorization_code"));
    assert!(seen.token_forms[1].contains("code_verifier="));
}

//! The machine-to-machine grants of [`McpOAuthGrant`]: each ends with an access token in the
//! credential store, which rmcp's `AuthClient` then sends with every request, as after the
//! authorization-code flow.
//!
//! On rmcp's `auth` module where it has the grant: client credentials with a secret (its
//! `exchange_client_credentials`, which picks HTTP Basic or the request body from the metadata)
//! and cross-app access (its `enterprise` module: the token exchange and the JWT bearer grant,
//! with the ID-JAG's bindings checked). Client credentials with a JWT assertion is ours, since
//! rmcp signs those only through aws-lc: the request is RFC 7523's, signed by [`SigningKey`];
//! so is the JWT bearer grant of workload identity federation (RFC 7523 section 2.1), which
//! rmcp has only inside cross-app access. With [DPoP](super::dpop), every token request
//! carries a proof.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use oauth2::{ClientSecret, TokenResponse};
use rmcp::transport::auth::enterprise::{
    EmaAuthorizationServer, EmaClientAssertion, EmaClientAssertionProvider,
    EmaClientAuthentication, EmaExchangeRequest,
};
use rmcp::transport::auth::{
    AuthorizationManager, AuthorizationMetadata, ClientCredentialsConfig, OAuthClientConfig,
    OAuthHttpClient, OAuthTokenResponse, StoredCredentials, default_oauth_http_client,
};
use serde_json::{Value, json};

use super::address_policy::AddressPolicy;
use super::assertion::McpAssertion;
use super::dpop::Dpop;
use super::dpop_http::{DpopOAuthHttp, post_token_request};
use super::grant::{McpCrossApp, McpOAuthGrant};
use super::jwt::SigningKey;
use super::oauth::McpOAuth;

/// The largest token response read (a token response is a few kilobytes at most).
const MAX_TOKEN_RESPONSE: usize = 256 * 1024;

/// Runs the machine grant of `config` against the authorization server of `metadata` for
/// `resource` (the server's URL), leaving the token in `manager`'s credential store; with
/// `dpop`, the token requests carry proofs.
pub(super) async fn obtain(
    config: &McpOAuth,
    http: &reqwest::Client,
    resource: &str,
    metadata: &AuthorizationMetadata,
    manager: &mut AuthorizationManager,
    dpop: Option<&Arc<Dpop>>,
) -> Result<(), String> {
    // An IP literal never reaches the client's resolver, which filters names: checked here.
    AddressPolicy::for_server(resource)
        .check(&metadata.token_endpoint)
        .map_err(|e| format!("the token endpoint {e}"))?;
    let needs_id = || {
        config.client_id.clone().ok_or_else(|| {
            "a machine-to-machine OAuth grant needs the client id registered with the \
             authorization server (`McpOAuth::with_client_id`)"
                .to_string()
        })
    };
    let token = match &config.grant {
        McpOAuthGrant::AuthorizationCode => {
            return Err("the authorization code grant needs a person".to_string());
        }
        McpOAuthGrant::ClientCredentials => match (&config.private_key, &config.client_secret) {
            (Some(key), _) => {
                let client_id = needs_id()?;
                check_private_key_jwt(&key.0, metadata)?;
                let mut form = vec![("grant_type", "client_credentials".to_string())];
                form.extend(client_assertion(&key.0, &client_id, metadata)?);
                form.push(("resource", resource.to_string()));
                if !config.scopes.is_empty() {
                    form.push(("scope", config.scopes.join(" ")));
                }
                let request = TokenRequest::new(http, dpop, metadata, "client credentials");
                request.send(&form, None).await?
            }
            (None, Some(secret)) => {
                let grant = ClientCredentialsConfig::ClientSecret {
                    client_id: needs_id()?,
                    client_secret: secret.to_string(),
                    scopes: config.scopes.clone(),
                    resource: Some(resource.to_string()),
                };
                let failed = |e| format!("the client credentials grant failed: {e}");
                manager
                    .validate_client_credentials_metadata(&grant)
                    .map_err(failed)?;
                manager
                    .configure_client_credentials(&grant)
                    .map_err(failed)?;
                // rmcp saves the token in the store itself.
                manager
                    .exchange_client_credentials(&grant)
                    .await
                    .map_err(failed)?;
                return Ok(());
            }
            (None, None) => {
                return Err("the client credentials grant needs a client secret \
                            (`McpOAuth::with_client_secret`) or a private key \
                            (`McpOAuth::with_private_key`)"
                    .to_string());
            }
        },
        McpOAuthGrant::CrossApp(idp) => {
            cross_app(config, idp, &needs_id()?, resource, metadata, dpop).await?
        }
        McpOAuthGrant::JwtBearer(assertion) => {
            jwt_bearer(config, http, assertion, resource, metadata, dpop).await?
        }
    };
    let granted = token
        .scopes()
        .map(|scopes| scopes.iter().map(|scope| scope.to_string()).collect())
        .unwrap_or_else(|| config.scopes.clone());
    // The JWT bearer grant may go without a client id; the store keeps one all the same.
    let client_id = config
        .client_id
        .clone()
        .unwrap_or_else(|| JWT_BEARER_CLIENT.to_string());
    let stored = StoredCredentials::new(client_id.clone(), Some(token), granted, Some(now()))
        .with_issuer(metadata.issuer.clone());
    config
        .store
        .save(stored)
        .await
        .map_err(|e| format!("the OAuth token could not be stored: {e}"))?;
    // With the client known to the manager, an expired token (there is no refresh token) is
    // "authorization required" rather than a configuration error: the request goes without
    // one, and the server's 401 runs this grant again.
    if let Err(error) = manager.configure_client(OAuthClientConfig::new(
        client_id,
        config.redirect_uri.clone(),
    )) {
        tracing::debug!(%error, "an expired machine token will fail the call instead of being renewed");
    }
    Ok(())
}

/// What the credential store names the client of a JWT bearer grant without a client id.
const JWT_BEARER_CLIENT: &str = "jwt-bearer";

/// RFC 7523's grant type for a JWT assertion.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// Refuses a key the authorization server's metadata says it would not accept.
fn check_private_key_jwt(key: &SigningKey, metadata: &AuthorizationMetadata) -> Result<(), String> {
    let listed = |field: &str, value: &str| {
        metadata
            .additional_fields
            .get(field)
            .and_then(Value::as_array)
            .is_none_or(|values| values.iter().any(|v| v.as_str() == Some(value)))
    };
    if !listed("token_endpoint_auth_methods_supported", "private_key_jwt") {
        return Err(
            "the authorization server does not accept `private_key_jwt` client authentication"
                .to_string(),
        );
    }
    if !listed(
        "token_endpoint_auth_signing_alg_values_supported",
        key.algorithm(),
    ) {
        return Err(format!(
            "the authorization server does not accept assertions signed with {}",
            key.algorithm()
        ));
    }
    Ok(())
}

/// The form fields of client authentication with a signed assertion (RFC 7523 section 2.2):
/// the client is named by the assertion alone, so no `client_id` goes with them.
fn client_assertion(
    key: &SigningKey,
    client_id: &str,
    metadata: &AuthorizationMetadata,
) -> Result<[(&'static str, String); 2], String> {
    let audience = metadata
        .issuer
        .as_deref()
        .unwrap_or(&metadata.token_endpoint);
    Ok([
        (
            "client_assertion_type",
            "urn:ietf:params:oauth:client-assertion-type:jwt-bearer".to_string(),
        ),
        (
            "client_assertion",
            key.client_assertion(client_id, audience)?,
        ),
    ])
}

/// The JWT bearer grant (RFC 7523 section 2.1) with the platform's assertion; the client
/// authenticates with its key or secret when it has one, else names itself if it has an id.
async fn jwt_bearer(
    config: &McpOAuth,
    http: &reqwest::Client,
    assertion: &McpAssertion,
    resource: &str,
    metadata: &AuthorizationMetadata,
    dpop: Option<&Arc<Dpop>>,
) -> Result<OAuthTokenResponse, String> {
    let mut form = vec![
        ("grant_type", JWT_BEARER.to_string()),
        ("assertion", assertion.get().await?),
        ("resource", resource.to_string()),
    ];
    if !config.scopes.is_empty() {
        form.push(("scope", config.scopes.join(" ")));
    }
    let mut basic = None;
    match (
        &config.client_id,
        &config.private_key,
        &config.client_secret,
    ) {
        (Some(id), Some(key), _) => {
            check_private_key_jwt(&key.0, metadata)?;
            form.extend(client_assertion(&key.0, id, metadata)?);
        }
        (Some(id), None, Some(secret)) => basic = Some((id.as_str(), &**secret)),
        (Some(id), None, None) => form.push(("client_id", id.clone())),
        (None, Some(_), _) | (None, None, Some(_)) => {
            return Err(
                "client authentication with a key or a secret needs the client id \
                        (`McpOAuth::with_client_id`)"
                    .to_string(),
            );
        }
        (None, None, None) => {}
    }
    TokenRequest::new(http, dpop, metadata, "JWT bearer")
        .send(&form, basic)
        .await
}

/// A token request of a machine grant to the authorization server of `metadata`.
struct TokenRequest<'a> {
    http: &'a reqwest::Client,
    dpop: Option<&'a Arc<Dpop>>,
    metadata: &'a AuthorizationMetadata,
    /// The grant's name, for messages.
    grant: &'static str,
}

impl<'a> TokenRequest<'a> {
    fn new(
        http: &'a reqwest::Client,
        dpop: Option<&'a Arc<Dpop>>,
        metadata: &'a AuthorizationMetadata,
        grant: &'static str,
    ) -> Self {
        Self {
            http,
            dpop,
            metadata,
            grant,
        }
    }

    /// Posts `form` (with HTTP Basic `basic` if set); the token response, or the server's
    /// error.
    async fn send(
        &self,
        form: &[(&str, String)],
        basic: Option<(&str, &str)>,
    ) -> Result<OAuthTokenResponse, String> {
        let body = url::form_urlencoded::Serializer::new(String::new())
            .extend_pairs(form.iter().map(|(name, value)| (*name, value.as_str())))
            .finish();
        let answer = post_token_request(
            self.http,
            self.dpop.map(|dpop| &**dpop),
            &self.metadata.token_endpoint,
            body,
            basic,
        )
        .await?;
        if answer.body.len() > MAX_TOKEN_RESPONSE {
            return Err(format!("the {} response is too large", self.grant));
        }
        if !answer.status.is_success() {
            let error: Value = serde_json::from_slice(&answer.body).unwrap_or_default();
            return Err(format!(
                "the authorization server refused the {} grant ({}): {} {}",
                self.grant,
                answer.status,
                error["error"].as_str().unwrap_or("no error code"),
                error["error_description"].as_str().unwrap_or_default()
            ));
        }
        serde_json::from_slice(&answer.body)
            .map_err(|e| format!("the {} response is not a token response: {e}", self.grant))
    }
}

/// Cross-app access: the ID token for an ID-JAG at the identity provider, the ID-JAG for an
/// access token at the server's authorization server.
async fn cross_app(
    config: &McpOAuth,
    idp: &McpCrossApp,
    client_id: &str,
    resource: &str,
    metadata: &AuthorizationMetadata,
    dpop: Option<&Arc<Dpop>>,
) -> Result<OAuthTokenResponse, String> {
    let id_token = idp.id_token.as_deref().ok_or_else(|| {
        "cross-app access needs the person's ID token (`McpCrossApp::with_id_token`)".to_string()
    })?;
    let issuer = metadata.issuer.clone().ok_or_else(|| {
        "cross-app access needs the authorization server's issuer, which its metadata lacks"
            .to_string()
    })?;
    let idp_auth = match &idp.idp_client_secret {
        Some(secret) => {
            EmaClientAuthentication::ClientSecretBasic(ClientSecret::new(secret.to_string()))
        }
        None => EmaClientAuthentication::None,
    };
    let idp_server =
        EmaAuthorizationServer::new(&idp.idp_issuer, &idp.idp_token_endpoint, &idp.idp_client_id)
            .with_client_authentication(idp_auth);
    let resource_server = EmaAuthorizationServer::new(issuer, &metadata.token_endpoint, client_id)
        .with_client_authentication(resource_authentication(config, client_id, metadata));
    let http = default_oauth_http_client()
        .map_err(|e| format!("could not set up the HTTP client for cross-app access: {e}"))?;
    // With DPoP, the access token (not the ID-JAG, which the identity provider issues) is
    // bound: the second exchange carries the proofs.
    let resource_http: Box<dyn OAuthHttpClient> =
        match dpop {
            Some(dpop) => Box::new(DpopOAuthHttp::new(dpop.clone(), resource)?),
            None => Box::new(default_oauth_http_client().map_err(|e| {
                format!("could not set up the HTTP client for cross-app access: {e}")
            })?),
        };
    let token =
        EmaExchangeRequest::new_with_id_token(idp_server, resource_server, resource, id_token)
            .with_scopes(idp.scopes.iter().cloned())
            .exchange(&http, &*resource_http)
            .await
            .map_err(|e| format!("cross-app access failed: {e}"))?;
    let mut scopes: Vec<&str> = token.scopes.iter().map(String::as_str).collect();
    scopes.sort_unstable();
    let mut response = json!({
        "access_token": token.access_token.secret(),
        "token_type": "bearer",
    });
    if let Some(lifetime) = token.expires_in {
        response["expires_in"] = json!(lifetime.as_secs());
    }
    if !scopes.is_empty() {
        response["scope"] = json!(scopes.join(" "));
    }
    serde_json::from_value(response).map_err(|e| format!("cross-app access token: {e}"))
}

/// How the client authenticates at the server's authorization server: a signed assertion when
/// a key is set, else its secret by HTTP Basic (RFC 8414's default) unless the metadata lists
/// only the request body.
fn resource_authentication(
    config: &McpOAuth,
    client_id: &str,
    metadata: &AuthorizationMetadata,
) -> EmaClientAuthentication {
    if let Some(key) = &config.private_key {
        return EmaClientAuthentication::JwtAssertion(Arc::new(Assertions {
            key: key.0.clone(),
            client_id: client_id.to_string(),
        }));
    }
    let Some(secret) = &config.client_secret else {
        return EmaClientAuthentication::None;
    };
    let methods: Vec<&str> = metadata
        .additional_fields
        .get("token_endpoint_auth_methods_supported")
        .and_then(Value::as_array)
        .map(|methods| methods.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let secret = ClientSecret::new(secret.to_string());
    if methods.contains(&"client_secret_post") && !methods.contains(&"client_secret_basic") {
        EmaClientAuthentication::ClientSecretPost(secret)
    } else {
        EmaClientAuthentication::ClientSecretBasic(secret)
    }
}

/// Fresh client assertions for rmcp's enterprise exchange, one per token request.
struct Assertions {
    key: Arc<SigningKey>,
    client_id: String,
}

#[async_trait]
impl EmaClientAssertionProvider for Assertions {
    async fn create_assertion(
        &self,
        server: &EmaAuthorizationServer,
    ) -> Result<EmaClientAssertion, Box<dyn std::error::Error + Send + Sync>> {
        let assertion = self.key.client_assertion(&self.client_id, &server.issuer)?;
        Ok(EmaClientAssertion::new(assertion))
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs())
        .unwrap_or_default()
}

//! OAuth's HTTP requests when the client does [DPoP](super::dpop): rmcp's
//! `AuthorizationManager` (discovery, registration, the code exchange, refreshes) sends them
//! through this [`OAuthHttpClient`], which adds a proof to each token request, answers a
//! `use_dpop_nonce` refusal by sending it once more with the server's nonce, and notes which
//! tokens come back bound to the key. The machine grants' own token requests use
//! [`post_token_request`].
//!
//! rmcp's own client cannot be wrapped, as a request can be sent through it only once: this one
//! is reqwest with the same timeout and body bound, and the same rule for the addresses that
//! discovered metadata may send it to ([`AddressPolicy`]).

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use oauth2::http;
use reqwest::header::HeaderMap;
use rmcp::transport::auth::{
    OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture, OAuthHttpRedirectPolicy,
    OAuthHttpRequest,
};

use super::address_policy::AddressPolicy;
use super::dpop::{Dpop, asks_for_nonce, is_token_request};

/// rmcp's bound on an OAuth response's body, kept.
const MAX_BODY: usize = 1024 * 1024;

/// rmcp's timeout for an OAuth request, kept.
pub(super) const TIMEOUT: Duration = Duration::from_secs(30);

/// rmcp's [`OAuthHttpClient`] with DPoP proofs on token requests.
pub(super) struct DpopOAuthHttp {
    dpop: Arc<Dpop>,
    policy: AddressPolicy,
    follow: reqwest::Client,
    stop: reqwest::Client,
}

impl DpopOAuthHttp {
    /// The client for the OAuth requests of the MCP server at `server_url`.
    pub(super) fn new(dpop: Arc<Dpop>, server_url: &str) -> Result<Self, String> {
        let policy = AddressPolicy::for_server(server_url);
        Ok(Self {
            dpop,
            policy,
            follow: policy.client(true, TIMEOUT)?,
            stop: policy.client(false, TIMEOUT)?,
        })
    }
}

impl OAuthHttpClient for DpopOAuthHttp {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let OAuthHttpRequest {
                request,
                redirect_policy,
                timeout,
                ..
            } = request;
            let client = match redirect_policy {
                OAuthHttpRedirectPolicy::Stop => &self.stop,
                _ => &self.follow,
            };
            let (parts, body) = request.into_parts();
            let url = parts.uri.to_string();
            // An IP literal never reaches the resolver, which filters names: checked here.
            self.policy
                .check(&url)
                .map_err(|e| format!("OAuth request to {e}"))?;
            let proved = parts.method == http::Method::POST && is_token_request(&body);
            let send = |proof: Option<String>| {
                let mut builder = client
                    .request(parts.method.clone(), &url)
                    .headers(parts.headers.clone())
                    .body(body.clone());
                if let Some(timeout) = timeout {
                    builder = builder.timeout(timeout);
                }
                if let Some(proof) = proof {
                    builder = builder.header("dpop", proof);
                }
                async move {
                    let response = builder.send().await.map_err(boxed)?;
                    read(response).await
                }
            };
            if !proved {
                return send(None).await?.into_response();
            }
            let answer = exchange(&self.dpop, &url, send).await?;
            answer.into_response()
        })
    }
}

/// A token request's answer, read whole.
pub(super) struct Answer {
    pub(super) status: reqwest::StatusCode,
    pub(super) headers: HeaderMap,
    pub(super) body: Vec<u8>,
}

impl Answer {
    fn into_response(self) -> Result<http::Response<Vec<u8>>, OAuthHttpClientError> {
        let mut response = http::Response::builder().status(self.status);
        for (name, value) in &self.headers {
            response = response.header(name, value);
        }
        response.body(self.body).map_err(boxed)
    }
}

/// Sends a token request to `url` with a proof (`send` sends it with the proof given), once
/// more with the server's nonce when it asks for one, and notes a token issued bound to the key.
async fn exchange<F, Fut>(dpop: &Dpop, url: &str, send: F) -> Result<Answer, OAuthHttpClientError>
where
    F: Fn(Option<String>) -> Fut,
    Fut: Future<Output = Result<Answer, OAuthHttpClientError>>,
{
    let mut answer = send(Some(dpop.proof("POST", url, None)?)).await?;
    let fresh = dpop.remember_nonce(url, nonce(&answer.headers));
    if fresh && asks_for_nonce(answer.status.as_u16(), None, &answer.body) {
        answer = send(Some(dpop.proof("POST", url, None)?)).await?;
        dpop.remember_nonce(url, nonce(&answer.headers));
    }
    if answer.status.is_success() {
        dpop.note_token_response(&answer.body);
    }
    Ok(answer)
}

/// A machine grant's token request: the form `body` posted to `url` with `http`, with DPoP
/// proofs when `dpop` is set.
pub(super) async fn post_token_request(
    http: &reqwest::Client,
    dpop: Option<&Dpop>,
    url: &str,
    body: String,
    basic: Option<(&str, &str)>,
) -> Result<Answer, String> {
    let send = |proof: Option<String>| {
        let mut builder = http
            .post(url)
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .timeout(TIMEOUT)
            .body(body.clone());
        if let Some((user, password)) = basic {
            builder = builder.basic_auth(user, Some(password));
        }
        if let Some(proof) = proof {
            builder = builder.header("dpop", proof);
        }
        async move {
            let response = builder.send().await.map_err(boxed)?;
            read(response).await
        }
    };
    let answer = match dpop {
        Some(dpop) => exchange(dpop, url, send).await,
        None => send(None).await,
    };
    answer.map_err(|e| format!("the token request to {url} failed: {e}"))
}

async fn read(response: reqwest::Response) -> Result<Answer, OAuthHttpClientError> {
    let status = response.status();
    let headers = response.headers().clone();
    let mut body = Vec::new();
    let mut stream = response.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(boxed)?;
        if body.len() + chunk.len() > MAX_BODY {
            return Err(format!("the OAuth response is over {MAX_BODY} bytes").into());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(Answer {
        status,
        headers,
        body,
    })
}

fn nonce(headers: &HeaderMap) -> Option<&str> {
    headers
        .get("dpop-nonce")
        .and_then(|value| value.to_str().ok())
}

fn boxed(error: impl std::error::Error + Send + Sync + 'static) -> OAuthHttpClientError {
    Box::new(error)
}

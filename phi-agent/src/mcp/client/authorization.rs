//! Running OAuth 2.1 as an [`McpOAuth`] configures it, for one server: restoring a stored
//! token, or authorizing as the server's challenge asks (a person through the
//! [`McpAuthorizer`](super::McpAuthorizer), or a [machine grant](super::machine)).

use std::sync::Arc;

use async_trait::async_trait;
use oauth2::TokenResponse;
use rmcp::transport::auth::{
    AuthClient, AuthError, AuthorizationManager, AuthorizationRequest, AuthorizationSession,
    CredentialRefreshGuard, CredentialStore, OAuthClientConfig, StoredCredentials,
};
use tokio::sync::Mutex;

use super::dpop::Dpop;
use super::dpop_http::DpopOAuthHttp;
use super::grant::McpOAuthGrant;
use super::machine;
use super::oauth::McpOAuth;
use super::seam::{SeamClient, challenge_scope};

/// The caller's store behind an `Arc`, as rmcp's manager takes a store by value.
struct SharedStore(Arc<dyn CredentialStore>);

#[async_trait]
impl CredentialStore for SharedStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        self.0.load().await
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.0.save(credentials).await
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.0.clear().await
    }

    async fn on_refresh_token_rejected(
        &self,
        credentials: &StoredCredentials,
    ) -> Result<(), AuthError> {
        self.0.on_refresh_token_rejected(credentials).await
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        self.0.acquire_refresh_guard().await
    }
}

/// One server's OAuth state: the authorized client once there is one, shared by every
/// connection (a reconnect, a renewed session) to that server. Its MCP requests go through the
/// [`SeamClient`] (the options' transport); OAuth's own requests (discovery, registration,
/// tokens) are rmcp's `AuthorizationManager`'s and the machine grants', on reqwest.
pub(super) struct OAuthState {
    config: McpOAuth,
    url: Arc<str>,
    authorized: Mutex<Option<AuthClient<SeamClient>>>,
    /// With DPoP, the key and nonces the token requests and the MCP requests share.
    dpop: Option<Arc<Dpop>>,
}

impl OAuthState {
    pub(super) fn new(config: McpOAuth, url: Arc<str>, dpop: Option<Arc<Dpop>>) -> Self {
        Self {
            config,
            url,
            authorized: Mutex::new(None),
            dpop,
        }
    }

    /// The authorized client, if any: authorized before, or from a stored token (its client's
    /// secret configured again, which a store does not keep).
    pub(super) async fn client(
        &self,
        mcp: &SeamClient,
    ) -> Result<Option<AuthClient<SeamClient>>, String> {
        let mut authorized = self.authorized.lock().await;
        if let Some(client) = authorized.as_ref() {
            return Ok(Some(client.clone()));
        }
        // A machine grant asks for a new token when the server refuses to go without one.
        let machine = !matches!(self.config.grant, McpOAuthGrant::AuthorizationCode);
        if machine || self.config.store.load().await.ok().flatten().is_none() {
            return Ok(None);
        }
        let mut manager = self.manager().await?;
        let restored = manager
            .initialize_from_store()
            .await
            .map_err(|e| format!("the stored OAuth token could not be used: {e}"))?;
        if !restored {
            return Ok(None);
        }
        self.bind_stored_token().await;
        self.configure_secret(&mut manager)?;
        let client = AuthClient::new(mcp.clone(), manager);
        *authorized = Some(client.clone());
        Ok(Some(client))
    }

    /// With DPoP, marks a stored token that was issued as a DPoP token as bound to the key, so
    /// that it goes with proofs (of use only when the key is the one it was issued for: a key
    /// read from PEM, not one generated anew since).
    async fn bind_stored_token(&self) {
        let Some(dpop) = &self.dpop else {
            return;
        };
        let Ok(Some(stored)) = self.config.store.load().await else {
            return;
        };
        if let Some(token) = stored.token_response
            && token.token_type().as_ref().eq_ignore_ascii_case("dpop")
        {
            dpop.bind(token.access_token().secret());
        }
    }

    async fn manager(&self) -> Result<AuthorizationManager, String> {
        let failed = |e| format!("cannot set up OAuth for `{}`: {e}", self.url);
        let mut manager = match &self.dpop {
            // The token requests need proofs, which rmcp's own client cannot add.
            Some(dpop) => {
                let http = Arc::new(DpopOAuthHttp::new(dpop.clone(), &self.url)?);
                AuthorizationManager::new_with_oauth_http_client(&*self.url, http)
                    .await
                    .map_err(failed)?
            }
            None => AuthorizationManager::new(&*self.url)
                .await
                .map_err(failed)?,
        };
        manager.set_credential_store(SharedStore(self.config.store.clone()));
        Ok(manager)
    }

    fn configure_secret(&self, manager: &mut AuthorizationManager) -> Result<(), String> {
        if let (Some(id), Some(secret)) = (&self.config.client_id, &self.config.client_secret) {
            let config = OAuthClientConfig::new(id.clone(), self.config.redirect_uri.clone())
                .with_client_secret(secret.to_string())
                .with_scopes(self.config.scopes.clone());
            manager
                .configure_client(config)
                .map_err(|e| format!("cannot configure the OAuth client `{id}`: {e}"))?;
        }
        Ok(())
    }

    /// Runs the authorization the server's `challenge` (its `WWW-Authenticate` header) asks
    /// for, and keeps the authorized client for the connections to come.
    ///
    /// Each authorization discovers afresh from the challenge: when the protected resource now
    /// names another authorization server (SEP-2352), the client registers with that one rather
    /// than showing it the old one's client id.
    pub(super) async fn authorize(
        &self,
        http: &reqwest::Client,
        mcp: &SeamClient,
        challenge: &str,
    ) -> Result<(), String> {
        // SEP-2350: a step-up asks for the scopes granted before and those the challenge names,
        // together. Asking for the new ones alone would trade the old ones away, and the
        // server would refuse the next request that needs them (a 403 loop).
        let granted = match self.authorized.lock().await.as_ref() {
            Some(client) => client.auth_manager.lock().await.get_current_scopes().await,
            None => Vec::new(),
        };
        let mut manager = self.manager().await?;
        let resolution = manager
            .resolve_metadata_from_challenge(Some(challenge))
            .await
            .map_err(|e| format!("OAuth discovery failed: {e}"))?;
        if !matches!(self.config.grant, McpOAuthGrant::AuthorizationCode) {
            let metadata = resolution.metadata.clone();
            manager.set_metadata(resolution.metadata);
            machine::obtain(
                &self.config,
                http,
                &self.url,
                &metadata,
                &mut manager,
                self.dpop.as_ref(),
            )
            .await?;
            *self.authorized.lock().await = Some(AuthClient::new(mcp.clone(), manager));
            return Ok(());
        }
        manager.set_metadata(resolution.metadata);
        let config = &self.config;
        let mut request = AuthorizationRequest::new(config.redirect_uri.clone())
            .with_challenge(challenge)
            .with_client_name(config.client_name.clone());
        request = if !config.scopes.is_empty() {
            request.with_scopes(config.scopes.clone())
        } else if !granted.is_empty() {
            request.with_scopes(scope_union(&granted, challenge))
        } else {
            request.with_initial_scope_selection()
        };
        if let Some(id) = &config.client_id {
            request = request.with_preregistered_client(id.clone());
        }
        if let Some(secret) = &config.client_secret {
            request = request.with_client_secret(secret.to_string());
        }
        if let Some(url) = &config.client_metadata_url {
            request = request.with_client_metadata_url(url.clone());
        }
        let session = AuthorizationSession::new(manager, request)
            .await
            .map_err(|(_, e)| format!("OAuth client registration failed: {e}"))?;
        let mut url = session.get_authorization_url().to_string();
        if let Some(dpop) = &self.dpop {
            // RFC 9449 section 10: the code is bound to the key, so that only this client can
            // redeem it (a server that does not know the parameter ignores it).
            url = with_query_pair(&url, "dpop_jkt", dpop.thumbprint());
        }
        let Some(authorizer) = &config.authorizer else {
            return Err(format!(
                "the server needs OAuth authorization and no authorizer is set \
                 (`McpOAuth::with_authorizer`); a person would open {url}"
            ));
        };
        let redirect = authorizer
            .authorize(url)
            .await
            .map_err(|e| format!("OAuth authorization was not completed: {e}"))?;
        session
            .handle_callback_url(&redirect)
            .await
            .map_err(|e| format!("OAuth code exchange failed: {e}"))?;
        *self.authorized.lock().await = Some(AuthClient::new(mcp.clone(), session.auth_manager));
        Ok(())
    }
}

/// `url` with `name=value` added to its query; `url` itself if it is not a URL.
fn with_query_pair(url: &str, name: &str, value: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            parsed.query_pairs_mut().append_pair(name, value);
            parsed.to_string()
        }
        Err(_) => url.to_string(),
    }
}

/// The scopes granted before followed by those `challenge` (a `WWW-Authenticate` value) names
/// in its `scope` parameter that are not among them, in that order.
fn scope_union(granted: &[String], challenge: &str) -> Vec<String> {
    let mut scopes = granted.to_vec();
    for scope in challenge_scope(challenge).split_whitespace() {
        if !scopes.iter().any(|known| known == scope) {
            scopes.push(scope.to_string());
        }
    }
    scopes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_up_asks_for_the_scopes_granted_and_those_the_challenge_adds() {
        let granted = vec!["mcp:basic".to_string(), "offline_access".to_string()];
        let challenge = r#"Bearer error="insufficient_scope", scope="mcp:write mcp:basic", resource_metadata="https://x/.well-known/oauth-protected-resource""#;
        assert_eq!(
            scope_union(&granted, challenge),
            ["mcp:basic", "offline_access", "mcp:write"]
        );
        assert_eq!(challenge_scope("Bearer scope=read, error=x"), "read");
        assert_eq!(challenge_scope(r#"Bearer xscope="no""#), "");
        assert_eq!(scope_union(&granted, "Bearer"), granted);
    }
}

//! OAuth 2.1 for a server reached over streamable HTTP (feature `mcp-http-client`), on rmcp's
//! `auth` module: when the server answers 401, its challenge leads to the protected-resource
//! metadata and the authorization server's metadata; the client registers (pre-registered id,
//! a client-id metadata document, or dynamic registration), a person authorizes through the
//! URL handed to [`McpAuthorizer`] (PKCE, the `resource` parameter), and the code is exchanged.
//! rmcp then sends the token with every request and refreshes it when it expires (with the
//! client secret and `resource`, as on the first exchange); tokens live in a
//! [`CredentialStore`] (in memory by default). A machine-to-machine [grant](McpOAuthGrant)
//! replaces the person's step after the same discovery ([`machine`](super::machine)); the flow
//! itself runs in [`authorization`](super::authorization).

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use async_trait::async_trait;
use rmcp::transport::auth::{CredentialStore, InMemoryCredentialStore};

use super::dpop::McpDpopKey;
use super::grant::{McpOAuthGrant, McpPrivateKey};

/// The step where a person authorizes the client: open `url` (the authorization server's page)
/// in a browser, sign in and consent, and hand back the URL the server redirected to (the
/// `redirect_uri` with `code` and `state`). An async closure
/// `Fn(String) -> impl Future<Output = Result<String, String>>` is one.
///
/// ```
/// use phi_agent::mcp::McpAuthorizer;
///
/// // Print the URL; read the redirect the person pastes back.
/// let ask = |url: String| async move {
///     println!("open {url} and paste the address you land on:");
///     let mut line = String::new();
///     std::io::stdin().read_line(&mut line).map_err(|e| e.to_string())?;
///     Ok(line.trim().to_string())
/// };
/// fn takes(_: impl McpAuthorizer) {}
/// takes(ask);
/// ```
#[async_trait]
pub trait McpAuthorizer: Send + Sync {
    /// Has the person authorize at `url`; the redirect URL (with `code` and `state`), or why
    /// not.
    async fn authorize(&self, url: String) -> Result<String, String>;
}

#[async_trait]
impl<F, Fut> McpAuthorizer for F
where
    F: Fn(String) -> Fut + Send + Sync,
    Fut: Future<Output = Result<String, String>> + Send,
{
    async fn authorize(&self, url: String) -> Result<String, String> {
        self(url).await
    }
}

/// OAuth 2.1 for [`McpClient::connect_http`](super::McpClient::connect_http), set with
/// [`McpHttpOptions::with_oauth`](super::McpHttpOptions::with_oauth).
///
/// The configuration idiom of the crate: `#[non_exhaustive]`, [`Default`], a `with_*` setter per
/// field. The client secret is never printed by `Debug`.
///
/// ```
/// use phi_agent::mcp::{McpHttpOptions, McpOAuth};
///
/// let oauth = McpOAuth::default()
///     .with_redirect_uri("http://127.0.0.1:8976/callback")
///     .with_scopes(["mcp:tools"])
///     .with_authorizer(|url: String| async move {
///         Err(format!("open {url} in a browser"))
///     });
/// let http = McpHttpOptions::default().with_oauth(oauth);
/// # let _ = http;
/// ```
#[derive(Clone)]
#[non_exhaustive]
pub struct McpOAuth {
    pub(super) redirect_uri: String,
    pub(super) client_name: String,
    pub(super) scopes: Vec<String>,
    pub(super) client_id: Option<String>,
    pub(super) client_secret: Option<Arc<str>>,
    pub(super) client_metadata_url: Option<String>,
    pub(super) store: Arc<dyn CredentialStore>,
    pub(super) authorizer: Option<Arc<dyn McpAuthorizer>>,
    pub(super) grant: McpOAuthGrant,
    pub(super) private_key: Option<McpPrivateKey>,
    pub(super) dpop: Option<McpDpopKey>,
}

impl Default for McpOAuth {
    fn default() -> Self {
        Self {
            redirect_uri: "http://127.0.0.1:8976/callback".to_string(),
            client_name: "phi-agent".to_string(),
            scopes: Vec::new(),
            client_id: None,
            client_secret: None,
            client_metadata_url: None,
            store: Arc::new(InMemoryCredentialStore::new()),
            authorizer: None,
            grant: McpOAuthGrant::AuthorizationCode,
            private_key: None,
            dpop: None,
        }
    }
}

impl McpOAuth {
    /// Where the authorization server sends the person back (registered with it, and passed to
    /// the [`McpAuthorizer`] as part of the URL). Default: `http://127.0.0.1:8976/callback`.
    pub fn with_redirect_uri(mut self, uri: impl Into<String>) -> Self {
        self.redirect_uri = uri.into();
        self
    }

    /// The name the client registers under (dynamic registration). Default: `phi-agent`.
    pub fn with_client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// The scopes to ask for. Default: none, so the server's challenge and its metadata
    /// decide (`scope` of the `WWW-Authenticate` header, else `scopes_supported`).
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// A client id registered with the authorization server beforehand: no registration.
    /// Default: none (a client-id metadata document if set, else dynamic registration).
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The secret of the pre-registered [client id](Self::with_client_id), sent on the code
    /// exchange and on every refresh. Default: none (a public client).
    pub fn with_client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(Arc::from(secret.into()));
        self
    }

    /// The HTTPS URL of this client's metadata document (SEP-991), used as its id where the
    /// authorization server accepts those. Default: none.
    pub fn with_client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Where tokens (and the client id they belong to) are kept between connections and
    /// refreshes: any rmcp [`CredentialStore`] (a file, the system keychain). Default: in memory.
    pub fn with_credential_store(mut self, store: impl CredentialStore + 'static) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Who has the person authorize (see [`McpAuthorizer`]). Without one, a server that needs
    /// authorization (and no stored token that still works) fails the connection with the
    /// authorization URL in the message. Default: none.
    pub fn with_authorizer(mut self, authorizer: impl McpAuthorizer + 'static) -> Self {
        self.authorizer = Some(Arc::new(authorizer));
        self
    }

    /// How the access token is obtained: a person authorizing (the default), or a
    /// machine-to-machine grant, client credentials or cross-app access (see
    /// [`McpOAuthGrant`]). Discovery from the server's 401 is the same for all.
    pub fn with_grant(mut self, grant: McpOAuthGrant) -> Self {
        self.grant = grant;
        self
    }

    /// The key that signs this client's JWT assertions (`private_key_jwt`, RFC 7523): with
    /// [`McpOAuthGrant::ClientCredentials`] or [`McpOAuthGrant::CrossApp`], the client
    /// authenticates with it in place of a [secret](Self::with_client_secret). Default: none.
    pub fn with_private_key(mut self, key: McpPrivateKey) -> Self {
        self.private_key = Some(key);
        self
    }

    /// Asks for access tokens bound to `key` (DPoP, RFC 9449): every token request carries a
    /// proof signed with it, and a token the authorization server issues as a DPoP token goes
    /// to the MCP server as `Authorization: DPoP <token>` with a fresh proof per request (its
    /// method, URL and the token's hash, under the key), so a token that leaks is of no use
    /// without the key. A server's `use_dpop_nonce` refusal is answered once with the nonce it
    /// gives. A server that does not do DPoP issues a bearer token, sent as one. Default: none
    /// (bearer tokens).
    ///
    /// With DPoP, OAuth's own requests (discovery, registration, tokens) go through a reqwest
    /// client of this crate's that adds the proofs, rather than rmcp's; it keeps rmcp's rule for
    /// the addresses discovered metadata may send them to (a loopback or private address only
    /// when the MCP server is at one itself; never a link-local or cloud metadata address).
    ///
    /// ```
    /// use phi_agent::mcp::{McpDpopKey, McpOAuth};
    ///
    /// let oauth = McpOAuth::default().with_dpop(McpDpopKey::generate().unwrap());
    /// # let _ = oauth;
    /// ```
    pub fn with_dpop(mut self, key: McpDpopKey) -> Self {
        self.dpop = Some(key);
        self
    }
}

impl fmt::Debug for McpOAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpOAuth")
            .field("redirect_uri", &self.redirect_uri)
            .field("client_name", &self.client_name)
            .field("scopes", &self.scopes)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<set>"),
            )
            .field("client_metadata_url", &self.client_metadata_url)
            .field("authorizer", &self.authorizer.is_some())
            .field("grant", &self.grant)
            .field("private_key", &self.private_key)
            .field("dpop", &self.dpop)
            .finish_non_exhaustive()
    }
}

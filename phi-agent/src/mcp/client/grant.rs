//! The OAuth grants an [`McpOAuth`](super::McpOAuth) can use: the authorization code with a
//! person (the default), or a machine-to-machine grant where no one is asked: client credentials
//! (a client secret, or a signed JWT assertion from an [`McpPrivateKey`]), and cross-app access
//! ([`McpCrossApp`]: an enterprise identity provider's ID token exchanged for an ID-JAG, then
//! for the server's access token), and the JWT bearer grant of workload identity federation
//! ([`McpAssertion`]: a token the platform issues to the program).

use std::fmt;
use std::sync::Arc;

use super::assertion::McpAssertion;
use super::jwt::SigningKey;

/// How an [`McpOAuth`](super::McpOAuth) obtains its access token, set with
/// [`McpOAuth::with_grant`](super::McpOAuth::with_grant).
///
/// ```
/// use phi_agent::mcp::{McpOAuth, McpOAuthGrant};
///
/// // A service account: the client id and secret its operator registered.
/// let oauth = McpOAuth::default()
///     .with_grant(McpOAuthGrant::ClientCredentials)
///     .with_client_id("reporting-bot")
///     .with_client_secret("s3cret");
/// # let _ = oauth;
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub enum McpOAuthGrant {
    /// A person authorizes through the URL handed to the
    /// [`McpAuthorizer`](super::McpAuthorizer) (PKCE, dynamic registration); tokens are
    /// refreshed. The default.
    #[default]
    AuthorizationCode,
    /// OAuth 2.1 client credentials (the MCP `oauth-client-credentials` extension): the
    /// pre-registered [client id](super::McpOAuth::with_client_id) authenticates with its
    /// [secret](super::McpOAuth::with_client_secret) (HTTP Basic or the request body, as the
    /// authorization server's metadata says) or, when a
    /// [private key](super::McpOAuth::with_private_key) is set, with a JWT assertion signed by
    /// it (`private_key_jwt`, RFC 7523). There is no refresh token: once the token expires, the
    /// grant is run again when the server refuses the call, and the call is sent once more.
    ClientCredentials,
    /// Cross-app access (enterprise-managed authorization): the ID token of the person's
    /// enterprise sign-in is exchanged at their identity provider for an identity assertion
    /// grant (RFC 8693, an ID-JAG for this server's authorization server), which the
    /// authorization server trades for an access token (the JWT bearer grant, RFC 7523). The
    /// client authenticates there with its [client id](super::McpOAuth::with_client_id) and
    /// [secret](super::McpOAuth::with_client_secret) or [private key](super::McpOAuth::with_private_key).
    /// An expired token is replaced as for client credentials, for as long as the ID token
    /// is accepted.
    CrossApp(McpCrossApp),
    /// The JWT bearer grant (RFC 7523 section 2.1) for workload identity federation: a JWT the
    /// platform issues to the program (see [`McpAssertion`]) is traded for an access token,
    /// sent as `assertion` with `grant_type` `urn:ietf:params:oauth:grant-type:jwt-bearer`.
    /// The [client id](super::McpOAuth::with_client_id) goes with it when set (and the client
    /// authenticates with its [secret](super::McpOAuth::with_client_secret) or
    /// [private key](super::McpOAuth::with_private_key) when either is set); the JWT names
    /// the workload. A refusal (`invalid_grant`, `invalid_scope`, `unauthorized_client`) fails
    /// the authorization with the server's error, with no retry and no other grant tried. An
    /// expired token is replaced as for client credentials, with a fresh assertion.
    JwtBearer(McpAssertion),
}

/// The identity provider's side of [cross-app access](McpOAuthGrant::CrossApp): where to
/// exchange the person's ID token, as which client, and the token itself.
///
/// The configuration idiom of the crate: `#[non_exhaustive]`, [`Default`], a `with_*` setter
/// per field. The ID token and the secret are never printed by `Debug`. A field left empty is
/// reported when the server first asks for authorization.
///
/// ```
/// use phi_agent::mcp::{McpCrossApp, McpOAuth, McpOAuthGrant};
///
/// let idp = McpCrossApp::default()
///     .with_idp_issuer("https://login.example.com")
///     .with_idp_token_endpoint("https://login.example.com/oauth2/token")
///     .with_idp_client_id("agent-at-idp")
///     .with_id_token("eyJhbGciOiJFUzI1NiJ9.e30.c2ln");
/// let oauth = McpOAuth::default()
///     .with_grant(McpOAuthGrant::CrossApp(idp))
///     .with_client_id("agent-at-server")
///     .with_client_secret("s3cret");
/// assert!(!format!("{oauth:?}").contains("eyJ"));
/// ```
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct McpCrossApp {
    pub(super) idp_issuer: String,
    pub(super) idp_token_endpoint: String,
    pub(super) idp_client_id: String,
    pub(super) idp_client_secret: Option<Arc<str>>,
    pub(super) id_token: Option<Arc<str>>,
    pub(super) scopes: Vec<String>,
}

impl McpCrossApp {
    /// The identity provider's issuer, exactly as its metadata names it (the ID-JAG's `iss`
    /// is checked against it).
    pub fn with_idp_issuer(mut self, issuer: impl Into<String>) -> Self {
        self.idp_issuer = issuer.into();
        self
    }

    /// The identity provider's token endpoint, where the exchange is made.
    pub fn with_idp_token_endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.idp_token_endpoint = endpoint.into();
        self
    }

    /// This client's id at the identity provider.
    pub fn with_idp_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.idp_client_id = client_id.into();
        self
    }

    /// This client's secret at the identity provider, sent with HTTP Basic. Default: none (a
    /// public client there).
    pub fn with_idp_client_secret(mut self, secret: impl Into<String>) -> Self {
        self.idp_client_secret = Some(Arc::from(secret.into()));
        self
    }

    /// The OIDC ID token the identity provider issued to this client when the person signed in.
    pub fn with_id_token(mut self, id_token: impl Into<String>) -> Self {
        self.id_token = Some(Arc::from(id_token.into()));
        self
    }

    /// The scopes to ask the identity provider to grant. Default: none (the `scope`
    /// parameter is left out).
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }
}

impl fmt::Debug for McpCrossApp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpCrossApp")
            .field("idp_issuer", &self.idp_issuer)
            .field("idp_token_endpoint", &self.idp_token_endpoint)
            .field("idp_client_id", &self.idp_client_id)
            .field(
                "idp_client_secret",
                &self.idp_client_secret.as_ref().map(|_| "<set>"),
            )
            .field("id_token", &self.id_token.as_ref().map(|_| "<set>"))
            .field("scopes", &self.scopes)
            .finish()
    }
}

/// A private key that signs this client's JWT assertions (`private_key_jwt`, RFC 7523), set
/// with [`McpOAuth::with_private_key`](super::McpOAuth::with_private_key).
///
/// Read from PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`, as `openssl genpkey` writes): a P-256
/// key signs with ES256, a P-384 key with ES384, an RSA key (2048 bits or more) with RS256.
/// `Debug` prints the algorithm only.
///
/// ```
/// use phi_agent::mcp::McpPrivateKey;
///
/// let error = McpPrivateKey::from_pkcs8_pem("not a key").unwrap_err();
/// assert!(error.contains("PEM"), "{error}");
/// ```
#[derive(Clone)]
pub struct McpPrivateKey(pub(super) Arc<SigningKey>);

impl McpPrivateKey {
    /// Reads a PKCS#8 PEM private key; why not, if it is not one of the kinds above.
    pub fn from_pkcs8_pem(pem: &str) -> Result<Self, String> {
        SigningKey::from_pkcs8_pem(pem).map(|key| Self(Arc::new(key)))
    }

    /// The JWS algorithm the key signs with: `ES256`, `ES384` or `RS256`.
    pub fn algorithm(&self) -> &'static str {
        self.0.algorithm()
    }
}

impl fmt::Debug for McpPrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpPrivateKey")
            .field("algorithm", &self.algorithm())
            .finish_non_exhaustive()
    }
}

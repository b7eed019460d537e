//! Where the JWT of the [JWT bearer grant](super::McpOAuthGrant::JwtBearer) comes from: a
//! workload identity token the platform issues (a Kubernetes service account token, a cloud
//! provider's identity token, a CI job's OIDC token), fixed, read from a file the platform keeps
//! fresh, or fetched by the program.

use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::BoxFuture;

/// The assertion (a JWT) the client trades for an access token with the
/// [JWT bearer grant](super::McpOAuthGrant::JwtBearer) (RFC 7523 section 2.1): workload
/// identity federation, where the platform vouches for the program.
///
/// Taken afresh for each token request, as such tokens are short-lived: a file is read again
/// (the platform rotates it in place), a function is called again. `Debug` never prints a
/// token.
///
/// ```
/// use phi_agent::mcp::{McpAssertion, McpOAuth, McpOAuthGrant};
///
/// // Kubernetes projects the pod's service account token into a file it keeps fresh.
/// let token = McpAssertion::from_file("/var/run/secrets/tokens/mcp-token");
/// let oauth = McpOAuth::default().with_grant(McpOAuthGrant::JwtBearer(token));
/// assert!(format!("{oauth:?}").contains("mcp-token"));
///
/// let fixed = McpAssertion::new("eyJhbGciOiJFUzI1NiJ9.e30.c2ln");
/// assert!(!format!("{fixed:?}").contains("eyJ"));
/// ```
#[derive(Clone)]
pub struct McpAssertion(Source);

#[derive(Clone)]
enum Source {
    Fixed(Arc<str>),
    File(PathBuf),
    Fetch(Arc<dyn Fn() -> BoxFuture<'static, Result<String, String>> + Send + Sync>),
}

impl McpAssertion {
    /// A fixed assertion (it will be refused once it expires).
    pub fn new(jwt: impl Into<String>) -> Self {
        Self(Source::Fixed(Arc::from(jwt.into())))
    }

    /// The assertion in the file at `path`, read for each token request (surrounding white
    /// space trimmed).
    pub fn from_file(path: impl Into<PathBuf>) -> Self {
        Self(Source::File(path.into()))
    }

    /// The assertion `fetch` returns, called for each token request (a metadata server's
    /// identity endpoint, say); its error fails the authorization with its message.
    pub fn from_fn<F, Fut>(fetch: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        Self(Source::Fetch(Arc::new(move || Box::pin(fetch()))))
    }

    /// The assertion to send now.
    pub(super) async fn get(&self) -> Result<String, String> {
        let jwt = match &self.0 {
            Source::Fixed(jwt) => jwt.to_string(),
            Source::File(path) => {
                // A small file, read off the async threads (tokio's `fs` is not built), and no
                // more of it than a token can be: the path may name the wrong file.
                let at = path.clone();
                tokio::task::spawn_blocking(move || read_bounded(&at))
                    .await
                    .map_err(|e| format!("reading the assertion file failed: {e}"))?
                    .map_err(|e| {
                        format!(
                            "the assertion file `{}` could not be read: {e}",
                            path.display()
                        )
                    })?
            }
            Source::Fetch(fetch) => fetch()
                .await
                .map_err(|e| format!("the assertion could not be fetched: {e}"))?,
        };
        let jwt = jwt.trim();
        if jwt.is_empty() {
            return Err("the assertion for the JWT bearer grant is empty".to_string());
        }
        Ok(jwt.to_string())
    }
}

/// The most of an assertion file read: a JWT is a few kilobytes.
const MAX_ASSERTION_BYTES: u64 = 64 * 1024;

/// The text of `path`, refused when it is longer than [`MAX_ASSERTION_BYTES`].
fn read_bounded(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_ASSERTION_BYTES + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_ASSERTION_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("it is over {MAX_ASSERTION_BYTES} bytes, more than any token"),
        ));
    }
    Ok(text)
}

impl fmt::Debug for McpAssertion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Source::Fixed(_) => f.write_str("McpAssertion::Fixed(<set>)"),
            Source::File(path) => write!(f, "McpAssertion::File({})", path.display()),
            Source::Fetch(_) => f.write_str("McpAssertion::Fetch(..)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_source_gives_its_assertion_trimmed_and_empty_is_an_error() {
        assert_eq!(McpAssertion::new(" a.b.c\n").get().await.unwrap(), "a.b.c");
        let dir = std::env::temp_dir().join(format!("phi-assertion-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("token");
        std::fs::write(&file, "first\n").unwrap();
        let from_file = McpAssertion::from_file(&file);
        assert_eq!(from_file.get().await.unwrap(), "first");
        std::fs::write(&file, "second").unwrap();
        assert_eq!(from_file.get().await.unwrap(), "second", "read again");
        // A path naming the wrong (large) file is refused, not read whole.
        std::fs::write(&file, "x".repeat(100 * 1024)).unwrap();
        let large = from_file.get().await.unwrap_err();
        assert!(large.contains("over 65536 bytes"), "{large}");
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            from_file
                .get()
                .await
                .unwrap_err()
                .contains("could not be read")
        );
        let fetched = McpAssertion::from_fn(|| async { Ok("x.y.z".to_string()) });
        assert_eq!(fetched.get().await.unwrap(), "x.y.z");
        let failing = McpAssertion::from_fn(|| async { Err("down".to_string()) });
        assert!(failing.get().await.unwrap_err().contains("down"));
        assert!(McpAssertion::new("  ").get().await.is_err());
    }
}

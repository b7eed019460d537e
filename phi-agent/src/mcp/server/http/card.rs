//! The server's Server Card (SEP-2127, MCP's server-card extension): a JSON document that says
//! who the server is and where to connect, read by a client before it connects. Built once, when
//! the server starts, from the server's own description ([`McpServer::with_server_info`] and the
//! like) and the endpoint's URL; served without the bearer token, since it is public by design.
//!
//! [`McpServer::with_server_info`]: crate::mcp::McpServer::with_server_info

use std::convert::Infallible;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Method, Response, StatusCode, header};
use rmcp::model::{Implementation, ProtocolVersion};
use serde_json::{Map, Value, json};

type Body = http_body_util::combinators::BoxBody<Bytes, Infallible>;

/// The schema every card names (`$schema`), the extension's second shape.
const CARD_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/v2/server-card.schema.json";

/// The card's media type, sent as its `Content-Type`.
const CARD_MEDIA_TYPE: &str = "application/mcp-server-card+json";

/// The domain-level path that earlier drafts of the extension and several SDKs serve the card at;
/// served too, so that clients of either draft find it.
const WELL_KNOWN_PATH: &str = "/.well-known/mcp/server-card.json";

/// The longest description a card may carry (the extension's schema).
const MAX_DESCRIPTION_CHARS: usize = 100;

/// A Server Card for [`HttpOptions::with_server_card`](super::HttpOptions::with_server_card):
/// the server's name in reverse-DNS form, and what its description lacks.
///
/// The card is served at `<endpoint>/server-card` (the location the extension reserves; for the
/// default path, `/mcp/server-card`) and at `/.well-known/mcp/server-card.json`, to `GET` without
/// the bearer token, as `application/mcp-server-card+json` with CORS and caching headers. It
/// carries the server's `version`, `title`, `websiteUrl` and `icons` from its
/// [`serverInfo`](crate::mcp::McpServer::with_server_info), the description, and one
/// `streamable-http` remote with the protocol revisions the server speaks. It lists no tools:
/// those stay behind the token, in `tools/list`.
///
/// ```
/// use phi_agent::mcp::{HttpOptions, ServerCard};
///
/// let options = HttpOptions::default().with_server_card(
///     ServerCard::new("com.example/weather")
///         .with_description("Forecasts and current weather by city")
///         .with_url("https://mcp.example.com/mcp"),
/// );
/// # let _ = options;
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ServerCard {
    name: String,
    description: Option<String>,
    url: Option<String>,
}

impl ServerCard {
    /// A card for the server named `name`, in reverse-DNS form with one `/` between the namespace
    /// and the server's own name (`com.example/weather`, `io.github.alice/notes`). A name of any
    /// other form is refused when the server starts.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: None,
            url: None,
        }
    }

    /// What the server does, in at most 100 characters. Default: the description given with
    /// [`McpServer::with_server_description`](crate::mcp::McpServer::with_server_description);
    /// a card needs one or the other.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The URL clients reach the endpoint at (`https://mcp.example.com/mcp`), for a server behind
    /// a proxy or a name. Default: the address the server listens on, with its path
    /// ([`HttpServer::url`](super::HttpServer::url)); a server bound to every address
    /// (`0.0.0.0`) needs this.
    pub fn with_url(mut self, url: impl Into<String>) -> Self {
        self.url = Some(url.into());
        self
    }
}

/// The card's two paths and its bytes, computed when the server starts.
pub(super) struct CardRoute {
    endpoint_path: String,
    body: Bytes,
}

impl CardRoute {
    /// Builds the card of the server described by `about`, whose endpoint is `default_url` unless
    /// the card names another; the error says what to change.
    pub(super) fn new(
        card: &ServerCard,
        about: &Implementation,
        path: &str,
        default_url: Option<String>,
    ) -> Result<Self, String> {
        check_name(&card.name)?;
        let description = card
            .description
            .clone()
            .or_else(|| about.description.clone())
            .ok_or_else(|| {
                format!(
                    "the Server Card of `{}` needs a description: give one with \
                     `ServerCard::with_description` or `McpServer::with_server_description`",
                    card.name
                )
            })?;
        let length = description.chars().count();
        if length == 0 || length > MAX_DESCRIPTION_CHARS {
            return Err(format!(
                "the Server Card's description has {length} characters; it must have 1 to \
                 {MAX_DESCRIPTION_CHARS}"
            ));
        }
        let url = card.url.clone().or(default_url).ok_or_else(|| {
            "the server listens on every address, so its Server Card cannot name the URL clients \
             reach it at: give it with `ServerCard::with_url(\"https://host/mcp\")`"
                .to_string()
        })?;
        if !(url.starts_with("https://") || url.starts_with("http://")) || url.contains(' ') {
            return Err(format!(
                "the Server Card's URL `{url}` is not an http:// or https:// URL"
            ));
        }
        let versions: Vec<&str> = ProtocolVersion::KNOWN_VERSIONS
            .iter()
            .map(ProtocolVersion::as_str)
            .collect();
        let mut document = Map::new();
        document.insert("$schema".into(), json!(CARD_SCHEMA));
        document.insert("name".into(), json!(card.name));
        document.insert("version".into(), json!(about.version));
        document.insert("description".into(), json!(description));
        if let Some(title) = &about.title {
            document.insert("title".into(), json!(title));
        }
        if let Some(website) = &about.website_url {
            document.insert("websiteUrl".into(), json!(website));
        }
        if let Some(icons) = &about.icons {
            document.insert(
                "icons".into(),
                serde_json::to_value(icons).map_err(|error| error.to_string())?,
            );
        }
        document.insert(
            "remotes".into(),
            json!([{
                "type": "streamable-http",
                "url": url,
                "supportedProtocolVersions": versions,
            }]),
        );
        let body = serde_json::to_vec(&Value::Object(document)).map_err(|e| e.to_string())?;
        Ok(Self {
            endpoint_path: format!("{}/server-card", path.trim_end_matches('/')),
            body: Bytes::from(body),
        })
    }

    /// The answer to a request for `path` with `method`, or `None` when the path is not the card's.
    pub(super) fn answer(&self, method: &Method, path: &str) -> Option<Response<Body>> {
        if path != self.endpoint_path && path != WELL_KNOWN_PATH {
            return None;
        }
        let mut response = if method == Method::GET || method == Method::HEAD {
            let body = if method == Method::HEAD {
                Bytes::new()
            } else {
                self.body.clone()
            };
            let mut response = Response::new(Full::new(body).boxed());
            let headers = response.headers_mut();
            headers.insert(
                header::CONTENT_TYPE,
                header::HeaderValue::from_static(CARD_MEDIA_TYPE),
            );
            // Public metadata, cached for an hour (the extension's advice).
            headers.insert(
                header::CACHE_CONTROL,
                header::HeaderValue::from_static("public, max-age=3600"),
            );
            response
        } else if method == Method::OPTIONS {
            // A browser's preflight: the CORS headers below are the whole answer.
            let mut response = Response::new(Full::new(Bytes::new()).boxed());
            *response.status_mut() = StatusCode::NO_CONTENT;
            response
        } else {
            let mut response = Response::new(
                Full::new(Bytes::from_static(
                    b"Method Not Allowed: the Server Card is read with GET",
                ))
                .boxed(),
            );
            *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
            response.headers_mut().insert(
                header::ALLOW,
                header::HeaderValue::from_static("GET, HEAD, OPTIONS"),
            );
            response
        };
        // Any page may read the card: it holds nothing that is not public, and is read-only.
        let headers = response.headers_mut();
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            header::HeaderValue::from_static("*"),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            header::HeaderValue::from_static("GET"),
        );
        headers.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            header::HeaderValue::from_static("Content-Type"),
        );
        Some(response)
    }
}

/// Checks the extension's form of a server name: 3 to 200 characters, a namespace of letters,
/// digits, `.` and `-`, one `/`, and a name of letters, digits, `.`, `_` and `-`.
fn check_name(name: &str) -> Result<(), String> {
    let form = "a reverse-DNS name with one `/`, such as `com.example/weather`";
    let length = name.chars().count();
    if !(3..=200).contains(&length) {
        return Err(format!(
            "the Server Card's name `{name}` has {length} characters; it must be {form}, \
             3 to 200 characters"
        ));
    }
    let Some((namespace, own)) = name.split_once('/') else {
        return Err(format!(
            "the Server Card's name `{name}` has no `/`; it must be {form}"
        ));
    };
    let namespace_ok = !namespace.is_empty()
        && namespace
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    let own_ok = !own.is_empty()
        && own
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-');
    if !namespace_ok || !own_ok {
        return Err(format!(
            "the Server Card's name `{name}` is not {form} (letters, digits, `.` and `-` before \
             the `/`; letters, digits, `.`, `_` and `-` after it)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn about() -> Implementation {
        let mut about = Implementation::new("weather", "1.2.0");
        about.title = Some("Weather".into());
        about
    }

    #[test]
    fn names_of_the_wrong_form_are_refused() {
        for name in [
            "weather",
            "a/",
            "/b",
            "com.example/wea ther",
            "com_x/y",
            "a/b/c",
            "x",
        ] {
            assert!(check_name(name).is_err(), "{name} was accepted");
        }
        for name in ["com.example/weather", "io.github.alice/notes_v2", "a-b/c.d"] {
            assert!(check_name(name).is_ok(), "{name} was refused");
        }
    }

    #[test]
    fn the_card_carries_the_description_and_the_remote() {
        let card = ServerCard::new("com.example/weather").with_description("Forecasts by city");
        let route = CardRoute::new(
            &card,
            &about(),
            "/mcp/",
            Some("http://127.0.0.1:8808/mcp".into()),
        )
        .expect("a valid card");
        let document: Value = serde_json::from_slice(&route.body).expect("JSON");
        assert_eq!(document["$schema"], CARD_SCHEMA);
        assert_eq!(document["version"], "1.2.0");
        assert_eq!(document["title"], "Weather");
        assert_eq!(document["remotes"][0]["url"], "http://127.0.0.1:8808/mcp");
        let versions = document["remotes"][0]["supportedProtocolVersions"]
            .as_array()
            .expect("versions");
        assert!(versions.contains(&json!("2026-07-28")));
        assert!(route.answer(&Method::GET, "/mcp/server-card").is_some());
        assert!(route.answer(&Method::GET, "/mcp").is_none());
    }

    #[test]
    fn a_card_without_description_or_url_says_what_to_add() {
        let missing = CardRoute::new(&ServerCard::new("com.example/w"), &about(), "/mcp", None)
            .err()
            .expect("no description");
        assert!(missing.contains("with_server_description"), "{missing}");
        let card = ServerCard::new("com.example/w").with_description("Weather");
        let unbound = CardRoute::new(&card, &about(), "/mcp", None)
            .err()
            .expect("no URL");
        assert!(unbound.contains("ServerCard::with_url"), "{unbound}");
        let long = ServerCard::new("com.example/w").with_description("x".repeat(101));
        assert!(CardRoute::new(&long, &about(), "/mcp", Some("http://h/mcp".into())).is_err());
    }
}

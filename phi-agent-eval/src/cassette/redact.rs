//! Secrets out of an exchange before it touches the disk: credential headers, a key in the
//! query, fields the user names, and any of their values echoed anywhere else.

use serde_json::Value;

/// What the redactor writes in place of a secret.
pub const REDACTED: &str = "<redacted>";

/// The headers that carry credentials with the providers and their gateways, always redacted
/// (besides any a transport marks sensitive).
const SECRET_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "x-goog-api-key",
    "api-key",
    "cookie",
    "set-cookie",
];

/// Which parts of an exchange are secrets.
///
/// ```
/// use phi_agent_eval::cassette::Redaction;
/// let redaction = Redaction::default().with_header("x-team-token").with_field("user_id");
/// # let _ = redaction;
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Redaction {
    headers: Vec<String>,
    query: Vec<String>,
    fields: Vec<String>,
}

impl Default for Redaction {
    /// The credential headers (`authorization`, `x-api-key`, `x-goog-api-key`, `api-key`,
    /// cookies) and the query parameter `key`.
    fn default() -> Self {
        Self {
            headers: SECRET_HEADERS.iter().map(|name| name.to_string()).collect(),
            query: vec!["key".into()],
            fields: Vec::new(),
        }
    }
}

impl Redaction {
    /// Also redacts the header `name` (any case).
    pub fn with_header(mut self, name: impl Into<String>) -> Self {
        self.headers.push(name.into().to_ascii_lowercase());
        self
    }

    /// Also redacts the query parameter `name`.
    pub fn with_query_param(mut self, name: impl Into<String>) -> Self {
        self.query.push(name.into());
        self
    }

    /// Also redacts the value of every JSON body field called `name`, at any depth.
    pub fn with_field(mut self, name: impl Into<String>) -> Self {
        self.fields.push(name.into());
        self
    }

    /// Whether the header `name` is a secret (`sensitive`: its transport marked it so).
    pub(crate) fn secret_header(&self, name: &str, sensitive: bool) -> bool {
        sensitive
            || self
                .headers
                .iter()
                .any(|secret| secret.eq_ignore_ascii_case(name))
    }

    /// `url` with the secret query parameters' values redacted; their values go to `found`.
    pub(crate) fn url(&self, url: &str, found: &mut Secrets) -> String {
        let Some((base, query)) = url.split_once('?') else {
            return url.to_string();
        };
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, value)) if self.query.iter().any(|secret| secret == name) => {
                    found.add(value);
                    format!("{name}={REDACTED}")
                }
                _ => pair.to_string(),
            })
            .collect();
        format!("{base}?{}", pairs.join("&"))
    }

    /// `value` with the named fields' values redacted (and collected in `found`).
    pub(crate) fn json(&self, value: &mut Value, found: &mut Secrets) {
        if self.fields.is_empty() {
            return;
        }
        match value {
            Value::Object(map) => {
                for (name, field) in map.iter_mut() {
                    if self.fields.iter().any(|secret| secret == name) {
                        if let Value::String(text) = field {
                            found.add(text);
                        }
                        *field = Value::String(REDACTED.into());
                    } else {
                        self.json(field, found);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.json(item, found)),
            _ => {}
        }
    }
}

/// The secret values met in an exchange, to take out wherever else they appear (a server may
/// echo a key in an error body).
#[derive(Debug, Default)]
pub(crate) struct Secrets(Vec<String>);

impl Secrets {
    /// Adds `value` and, for `Bearer <token>`, the token. Values under 8 bytes are no real keys,
    /// and replacing them everywhere would garble the cassette.
    pub(crate) fn add(&mut self, value: &str) {
        let token = value.rsplit(' ').next().unwrap_or(value);
        for secret in [value, token] {
            if secret.len() >= 8 && !self.0.iter().any(|known| known == secret) {
                self.0.push(secret.to_string());
            }
        }
        // The longest first, so that a token inside its `Bearer` value is not replaced alone.
        self.0.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
    }

    /// `text` with every secret replaced.
    pub(crate) fn scrub(&self, text: &str) -> String {
        let mut text = text.to_string();
        for secret in &self.0 {
            if text.contains(secret.as_str()) {
                text = text.replace(secret.as_str(), REDACTED);
            }
        }
        text
    }
}

//! Provider-safe names for imported MCP tools.
//!
//! MCP allows tool names such as `fs.read_file` (up to 128 characters of `[A-Za-z0-9_.-]`, and
//! servers in the wild send more), while OpenAI, Anthropic and Gemini accept only
//! `^[a-zA-Z0-9_-]{1,64}$`. A name that already fits is kept as is; any other name has each
//! character outside the portable set replaced by `_`, is cut to fit, and gets a suffix derived
//! from the original name so that two different originals never meet. The mapping is reversible
//! through the table [`ProviderSafeNames`] keeps, which is what a call uses to reach the server.

use std::collections::{HashMap, HashSet};

use crate::registry::{MAX_TOOL_NAME_LEN, validate_tool_name};

/// Length of the `-xxxxxxxx` suffix that keeps rewritten names apart.
const SUFFIX_LEN: usize = 9;

/// The provider-safe names of one server's tools, and the way back to the server's names.
///
/// ```
/// use phi_agent::mcp::ProviderSafeNames;
///
/// let names = ProviderSafeNames::new(["search", "fs.read_file"]).unwrap();
/// assert_eq!(names.local("search"), Some("search"));
/// let local = names.local("fs.read_file").unwrap();
/// assert!(local.starts_with("fs_read_file-"));
/// assert_eq!(names.remote(local), Some("fs.read_file"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct ProviderSafeNames {
    prefix: Option<String>,
    to_local: HashMap<String, String>,
    to_remote: HashMap<String, String>,
}

impl ProviderSafeNames {
    /// Maps every remote name; fails only when a server lists one name twice.
    pub fn new<'a>(remote_names: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        Self::with_prefix(None, remote_names)
    }

    /// Like [`new`](Self::new), with every local name starting `<prefix>_` (`gh_search`), so
    /// that two servers with a tool of the same name can serve one agent.
    ///
    /// ```
    /// use phi_agent::mcp::ProviderSafeNames;
    ///
    /// let names = ProviderSafeNames::with_prefix(Some("gh"), ["search"]).unwrap();
    /// assert_eq!(names.local("search"), Some("gh_search"));
    /// assert_eq!(names.remote("gh_search"), Some("search"));
    /// ```
    pub fn with_prefix<'a>(
        prefix: Option<&str>,
        remote_names: impl IntoIterator<Item = &'a str>,
    ) -> Result<Self, String> {
        let remote_names: Vec<&str> = remote_names.into_iter().collect();
        let mut seen = HashSet::new();
        if let Some(duplicate) = remote_names.iter().find(|name| !seen.insert(**name)) {
            return Err(format!("the server lists the tool `{duplicate}` twice"));
        }
        let mut names = Self {
            prefix: prefix.map(str::to_string),
            ..Self::default()
        };
        let wanted: Vec<(String, &str)> = remote_names
            .iter()
            .map(|remote| (names.wanted(remote), *remote))
            .collect();
        // Names that are already safe are claimed first, so a rewritten name can never take
        // the place of a tool that kept its own name.
        let kept: HashSet<&str> = wanted
            .iter()
            .map(|(wanted, _)| wanted.as_str())
            .filter(|name| validate_tool_name(name).is_ok())
            .collect();
        for (wanted, remote) in &wanted {
            let local = if kept.contains(wanted.as_str()) {
                wanted.clone()
            } else {
                rewrite(wanted, &kept, &names.to_remote)
            };
            names.to_remote.insert(local.clone(), remote.to_string());
            names.to_local.insert(remote.to_string(), local);
        }
        Ok(names)
    }

    /// Maps one more remote name (a tool the server added), leaving every earlier mapping as it
    /// was; returns its local name. A name mapped already keeps its local name.
    pub(crate) fn insert(&mut self, remote: &str) -> String {
        if let Some(local) = self.to_local.get(remote) {
            return local.clone();
        }
        let wanted = self.wanted(remote);
        let local = if validate_tool_name(&wanted).is_ok() && !self.to_remote.contains_key(&wanted)
        {
            wanted
        } else {
            rewrite(&wanted, &HashSet::new(), &self.to_remote)
        };
        self.to_remote.insert(local.clone(), remote.to_string());
        self.to_local.insert(remote.to_string(), local.clone());
        local
    }

    /// The local name `remote` gets when it is safe: itself, after the prefix if there is one.
    fn wanted(&self, remote: &str) -> String {
        match &self.prefix {
            Some(prefix) => format!("{prefix}_{remote}"),
            None => remote.to_string(),
        }
    }

    /// The provider-safe name of the server's tool `remote`.
    pub fn local(&self, remote: &str) -> Option<&str> {
        self.to_local.get(remote).map(String::as_str)
    }

    /// The server's name of the tool known locally as `local`.
    pub fn remote(&self, local: &str) -> Option<&str> {
        self.to_remote.get(local).map(String::as_str)
    }
}

/// `remote` with unsafe characters replaced, cut to fit, and suffixed with a hash of `remote`
/// (rehashed with a counter in the vanishingly rare case of a collision).
fn rewrite(remote: &str, kept: &HashSet<&str>, taken: &HashMap<String, String>) -> String {
    let base: String = remote
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_TOOL_NAME_LEN - SUFFIX_LEN)
        .collect();
    let base = if base.is_empty() { "tool" } else { &base };
    (0u64..)
        .map(|salt| format!("{base}-{:08x}", fnv1a(remote, salt) as u32))
        .find(|candidate| !kept.contains(candidate.as_str()) && !taken.contains_key(candidate))
        .expect("a free name exists among 2^64 candidates")
}

/// FNV-1a: stable across runs and Rust releases, so a tool keeps its name between sessions
/// (which keeps transcripts and provider caches valid).
fn fnv1a(text: &str, salt: u64) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325 ^ salt;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_names_are_kept() {
        let names = ProviderSafeNames::new(["get_weather", "a-b"]).unwrap();
        assert_eq!(names.local("get_weather"), Some("get_weather"));
        assert_eq!(names.remote("a-b"), Some("a-b"));
    }

    #[test]
    fn rewritten_names_are_valid_distinct_and_reversible() {
        let long = "x".repeat(100);
        let remotes = ["fs.read", "fs/read", "fs read", "émoji✓", long.as_str(), ""];
        let names = ProviderSafeNames::new(remotes).unwrap();
        let mut locals = HashSet::new();
        for remote in remotes {
            let local = names.local(remote).unwrap();
            validate_tool_name(local).unwrap();
            assert_eq!(names.remote(local), Some(remote));
            assert!(locals.insert(local.to_string()), "{local} given twice");
        }
    }

    #[test]
    fn a_rewrite_never_takes_a_kept_name() {
        let fake = format!("fs_read-{:08x}", fnv1a("fs.read", 0) as u32);
        let names = ProviderSafeNames::new(["fs.read", fake.as_str()]).unwrap();
        assert_eq!(names.local(&fake), Some(fake.as_str()));
        assert_ne!(names.local("fs.read"), Some(fake.as_str()));
        assert_eq!(
            names.remote(names.local("fs.read").unwrap()),
            Some("fs.read")
        );
    }

    #[test]
    fn names_are_stable_between_runs() {
        let first = ProviderSafeNames::new(["a.b"]).unwrap();
        let second = ProviderSafeNames::new(["other", "a.b"]).unwrap();
        assert_eq!(first.local("a.b"), second.local("a.b"));
    }

    #[test]
    fn prefixed_names_are_prefixed_and_reversible() {
        let names = ProviderSafeNames::with_prefix(Some("jira"), ["search", "fs.read"]).unwrap();
        assert_eq!(names.local("search"), Some("jira_search"));
        let local = names.local("fs.read").unwrap();
        assert!(local.starts_with("jira_fs_read-"), "{local}");
        assert_eq!(names.remote(local), Some("fs.read"));
    }

    #[test]
    fn inserting_keeps_the_earlier_names() {
        let mut names = ProviderSafeNames::new(["a.b", "search"]).unwrap();
        let before = (
            names.local("a.b").unwrap().to_string(),
            names.local("search").unwrap().to_string(),
        );
        assert_eq!(names.insert("fetch"), "fetch");
        assert_eq!(names.insert("search"), "search", "known names keep theirs");
        let rewritten = names.insert("x.y");
        validate_tool_name(&rewritten).unwrap();
        assert_eq!(names.remote(&rewritten), Some("x.y"));
        assert_eq!(names.local("a.b"), Some(before.0.as_str()));
        assert_eq!(names.local("search"), Some(before.1.as_str()));
    }

    #[test]
    fn duplicate_remote_names_are_refused() {
        let error = ProviderSafeNames::new(["a", "a"]).unwrap_err();
        assert!(error.contains("`a` twice"), "{error}");
    }
}

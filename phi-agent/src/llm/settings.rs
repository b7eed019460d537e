//! Reading a provider client's settings from the environment, the way the official SDKs do.

use crate::error::{AgentError, AgentResult};

/// `{PREFIX}_API_KEY` (required), `{PREFIX}_MODEL` and `{PREFIX}_BASE_URL` (optional).
pub(crate) struct EnvSettings {
    pub(crate) key: String,
    pub(crate) model: Option<String>,
    pub(crate) base_url: Option<String>,
}

impl EnvSettings {
    /// Reads the settings of `provider` (its name for people, e.g. "OpenAI") under `prefix`
    /// (e.g. `OPENAI`) from `get`; blank values count as unset.
    pub(crate) fn read(
        prefix: &str,
        provider: &str,
        get: impl Fn(&str) -> Option<String>,
    ) -> AgentResult<Self> {
        let get = |suffix: &str| {
            get(&format!("{prefix}_{suffix}")).filter(|value| !value.trim().is_empty())
        };
        let key = get("API_KEY").ok_or_else(|| {
            AgentError::Config(format!(
                "{prefix}_API_KEY is not set; export your {provider} API key"
            ))
        })?;
        Ok(Self {
            key,
            model: get("MODEL"),
            base_url: get("BASE_URL"),
        })
    }
}

/// The process environment, as a source of settings.
pub(crate) fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

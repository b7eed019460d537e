//! Which model an example talks to: a real provider when its key is set, else the example's
//! scripted model.

use std::sync::Arc;

use phi_agent::llm::{
    AnthropicClient, GeminiClient, LlmClient, OpenAiClient, ResponsesClient, ScriptedLlm,
};
use phi_agent::{AgentError, AgentResult};

/// The model the example talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// OpenAI chat completions (or any compatible API).
    OpenAiChat,
    /// The OpenAI Responses API.
    OpenAiResponses,
    /// Anthropic messages.
    Anthropic,
    /// Gemini `generateContent`.
    Gemini,
    /// The example's scripted model: no network calls.
    Offline,
}

/// Chooses the model from the environment, read through `get`; blank values count as unset.
///
/// Precedence: `PHI_PROVIDER` when set; otherwise the first of `OPENAI_API_KEY`,
/// `ANTHROPIC_API_KEY` and `GEMINI_API_KEY` that is set (OpenAI through the Responses API when
/// `OPENAI_API=responses`); otherwise offline. A value it does not know is an error, not a guess.
pub fn choose_provider(get: impl Fn(&str) -> Option<String>) -> Result<Provider, String> {
    let get = |name: &str| get(name).filter(|value| !value.trim().is_empty());
    let openai = || match get(ResponsesClient::API_VARIABLE).as_deref().map(str::trim) {
        None | Some("chat") => Ok(Provider::OpenAiChat),
        Some("responses") => Ok(Provider::OpenAiResponses),
        Some(other) => Err(format!(
            "OPENAI_API is `{other}`; use `chat` (chat completions) or `responses` (the Responses API)"
        )),
    };
    if let Some(name) = get("PHI_PROVIDER") {
        return match name.trim() {
            "openai" => openai(),
            "openai-responses" => Ok(Provider::OpenAiResponses),
            "anthropic" => Ok(Provider::Anthropic),
            "gemini" => Ok(Provider::Gemini),
            "offline" => Ok(Provider::Offline),
            other => Err(format!(
                "PHI_PROVIDER is `{other}`; use openai, openai-responses, anthropic, gemini or offline"
            )),
        };
    }
    if get("OPENAI_API_KEY").is_some() {
        openai()
    } else if get("ANTHROPIC_API_KEY").is_some() {
        Ok(Provider::Anthropic)
    } else if get("GEMINI_API_KEY").is_some() {
        Ok(Provider::Gemini)
    } else {
        Ok(Provider::Offline)
    }
}

/// The model to use, from the environment (see [`choose_provider`]), and a line that says which
/// one it is; `offline` makes the example's scripted model, and `does` says what it does (as in
/// "a scripted model answers").
pub fn choose_model(
    offline: impl FnOnce() -> ScriptedLlm,
    does: &str,
) -> AgentResult<(Arc<dyn LlmClient>, String)> {
    let provider = choose_provider(|name| std::env::var(name).ok()).map_err(AgentError::Config)?;
    Ok(match provider {
        Provider::OpenAiChat => {
            let client = OpenAiClient::from_env()?;
            let line = format!(
                "online: OpenAI-compatible API at {}, model {}",
                client.base_url(),
                client.model()
            );
            (Arc::new(client), line)
        }
        Provider::OpenAiResponses => {
            let client = ResponsesClient::from_env()?;
            let line = format!(
                "online: OpenAI Responses API at {}, model {}",
                client.base_url(),
                client.model()
            );
            (Arc::new(client), line)
        }
        Provider::Anthropic => {
            let client = AnthropicClient::from_env()?;
            let line = format!(
                "online: Anthropic API at {}, model {}",
                client.base_url(),
                client.model()
            );
            (Arc::new(client), line)
        }
        Provider::Gemini => {
            let client = GeminiClient::from_env()?;
            let line = format!(
                "online: Gemini API at {}, model {}",
                client.base_url(),
                client.model()
            );
            (Arc::new(client), line)
        }
        Provider::Offline => {
            let line = format!(
                "offline: none of OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY is set, so \
                 {does} (no network calls)"
            );
            (Arc::new(offline()), line)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choose(pairs: &[(&str, &str)]) -> Result<Provider, String> {
        choose_provider(|name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_string())
        })
    }

    #[test]
    fn the_first_key_set_wins_in_a_fixed_order() {
        let all = [
            ("OPENAI_API_KEY", "sk"),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("GEMINI_API_KEY", "AIza"),
        ];
        assert_eq!(choose(&all), Ok(Provider::OpenAiChat));
        assert_eq!(choose(&all[1..]), Ok(Provider::Anthropic));
        assert_eq!(choose(&all[2..]), Ok(Provider::Gemini));
        assert_eq!(choose(&[]), Ok(Provider::Offline));
        assert_eq!(
            choose(&[("OPENAI_API_KEY", " "), ("GEMINI_API_KEY", "AIza")]),
            Ok(Provider::Gemini),
            "a blank key is unset"
        );
    }

    #[test]
    fn openai_api_chooses_between_openais_two_apis() {
        let key = ("OPENAI_API_KEY", "sk");
        assert_eq!(
            choose(&[key, ("OPENAI_API", "responses")]),
            Ok(Provider::OpenAiResponses)
        );
        assert_eq!(
            choose(&[key, ("OPENAI_API", "chat")]),
            Ok(Provider::OpenAiChat)
        );
        let error = choose(&[key, ("OPENAI_API", "completions")]).unwrap_err();
        assert!(error.contains("`completions`"), "{error}");
        assert_eq!(
            choose(&[("ANTHROPIC_API_KEY", "k"), ("OPENAI_API", "responses")]),
            Ok(Provider::Anthropic),
            "OPENAI_API alone chooses no provider"
        );
    }

    #[test]
    fn phi_provider_overrides_the_keys() {
        let all = [
            ("OPENAI_API_KEY", "sk"),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("GEMINI_API_KEY", "AIza"),
        ];
        for (name, expected) in [
            ("gemini", Provider::Gemini),
            ("anthropic", Provider::Anthropic),
            ("openai", Provider::OpenAiChat),
            ("openai-responses", Provider::OpenAiResponses),
            ("offline", Provider::Offline),
        ] {
            let mut pairs = all.to_vec();
            pairs.push(("PHI_PROVIDER", name));
            assert_eq!(choose(&pairs), Ok(expected), "{name}");
        }
        let error = choose(&[("PHI_PROVIDER", "gpt")]).unwrap_err();
        assert!(error.contains("PHI_PROVIDER is `gpt`"), "{error}");
    }
}

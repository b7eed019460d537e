//! What an adapter asks of the provider's prompt cache.

/// The prompt caching an adapter asks for: the providers bill a cached input prefix at a
/// fraction of the input price, and the agent keeps its prefix (tools, system prompt, the
/// conversation so far) byte-stable from turn to turn so that the cache can serve it.
///
/// - Anthropic (`AnthropicClient::with_prompt_cache`): cache breakpoints (`cache_control`) at
///   the end of the system prompt and on the last block of the last two user turns (3 of the 4
///   the API allows), kept for [`FiveMinutes`](Self::FiveMinutes) (a write costs 1.25x the input
///   price) or [`OneHour`](Self::OneHour) (2x); a read costs 0.1x. On by default.
/// - OpenAI chat and Responses (`OpenAiClient::with_prompt_cache`,
///   `ResponsesClient::with_prompt_cache`): `prompt_cache_key`, the session's id, so that the
///   turns of one session reach the same cache; the lifetime is the provider's. On by default
///   against the public API only: a server that copies the API may refuse fields it does not
///   know.
/// - Gemini caches implicitly and reports its hits; there is nothing to ask.
///
/// ```
/// use phi_agent::llm::PromptCache;
/// assert_eq!(PromptCache::default(), PromptCache::FiveMinutes);
/// assert!(!PromptCache::Off.is_on());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum PromptCache {
    /// Ask for nothing.
    Off,
    /// Cache the prefix for the provider's short lifetime (Anthropic: 5 minutes, renewed by
    /// every hit).
    #[default]
    FiveMinutes,
    /// Cache the prefix for an hour where the provider offers it (Anthropic; OpenAI's
    /// lifetime is its own).
    OneHour,
}

impl PromptCache {
    /// Whether anything is asked of the cache.
    pub fn is_on(self) -> bool {
        self != PromptCache::Off
    }
}

/// The longest `prompt_cache_key` sent as it is; OpenAI refuses longer ones.
#[cfg(feature = "openai")]
const MAX_KEY_LEN: usize = 64;

/// `key` as OpenAI's `prompt_cache_key`: as it is when short enough, else a digest of it that
/// is the same in every process (FNV-1a), so that one session keeps one key.
#[cfg(feature = "openai")]
pub(crate) fn openai_key(key: &str) -> std::borrow::Cow<'_, str> {
    if key.len() <= MAX_KEY_LEN {
        return std::borrow::Cow::Borrowed(key);
    }
    let digest = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    std::borrow::Cow::Owned(format!("fnv-{digest:016x}"))
}

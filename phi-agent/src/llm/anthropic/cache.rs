//! Cache breakpoints: `cache_control` where the request's byte-stable prefix ends (placed on
//! the turns by `request::mark_turns`).
//!
//! The prompt is tools, then system, then the messages; a breakpoint caches everything before
//! it. Three are set (the API allows 4): the end of the system text (tools and system), and the
//! last block of each of the last two user turns. The last one writes this turn's prefix; the
//! one before sits where the previous request's last one sat, so that the next request reads
//! the prefix written now even when this turn added more blocks than the API looks back over.

use serde::Serialize;

use crate::llm::PromptCache;

/// `cache_control`: `{"type": "ephemeral"}`, with `"ttl": "1h"` for the long lifetime (the
/// short one is the API's default, so its bytes stay those of a request without a lifetime).
#[derive(Serialize, Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl: Option<&'static str>,
}

impl CacheControl {
    /// The breakpoint `cache` asks for, if any.
    pub(super) fn of(cache: PromptCache) -> Option<Self> {
        let ttl = match cache {
            PromptCache::Off => return None,
            PromptCache::FiveMinutes => None,
            PromptCache::OneHour => Some("1h"),
        };
        Some(Self {
            kind: "ephemeral",
            ttl,
        })
    }
}

/// The request's `system`: plain text without caching, one text block with a breakpoint with.
#[derive(Serialize)]
#[serde(untagged)]
pub(super) enum System {
    Text(String),
    Blocks([SystemBlock; 1]),
}

#[derive(Serialize)]
pub(super) struct SystemBlock {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
    cache_control: CacheControl,
}

impl System {
    /// `text` as the request's system, with a breakpoint when `control` is given.
    pub(super) fn new(text: String, control: Option<CacheControl>) -> Self {
        match control {
            None => System::Text(text),
            Some(cache_control) => System::Blocks([SystemBlock {
                kind: "text",
                text,
                cache_control,
            }]),
        }
    }
}

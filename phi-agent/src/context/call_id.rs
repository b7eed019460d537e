//! A tool call's id, kept inline: a context is made for every call, and an id copied into a
//! heap allocation of its own was most of what that cost.

use std::sync::Arc;

/// Longer than any provider's ids (OpenAI `call_` + 24 characters, Anthropic `toolu_` + 24,
/// MCP request ids), and short enough that a context stays a few cache lines.
const INLINE: usize = 48;

/// The id of one tool call: its bytes inline when it fits, else shared.
#[derive(Clone)]
pub(super) enum CallId {
    Inline { len: u8, bytes: [u8; INLINE] },
    Shared(Arc<str>),
}

impl CallId {
    /// The id `id`, copied inline when it fits.
    pub(super) fn new(id: &str) -> Self {
        if id.len() > INLINE {
            return Self::Shared(Arc::from(id));
        }
        let mut bytes = [0; INLINE];
        bytes[..id.len()].copy_from_slice(id.as_bytes());
        Self::Inline {
            len: id.len() as u8,
            bytes,
        }
    }

    pub(super) fn as_str(&self) -> &str {
        match self {
            // Copied from a `str` whole, so always UTF-8; the fallback is never taken.
            Self::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or_default()
            }
            Self::Shared(id) => id,
        }
    }
}

impl From<Arc<str>> for CallId {
    /// An id already shared is kept as it is.
    fn from(id: Arc<str>) -> Self {
        Self::Shared(id)
    }
}

impl std::fmt::Debug for CallId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_read_back_as_given_inline_or_shared() {
        for id in [
            "",
            "call_1",
            "toolu_01A09q90qw90lq917835lq9",
            &"x".repeat(INLINE),
        ] {
            let call = CallId::new(id);
            assert!(matches!(call, CallId::Inline { .. }), "{id}");
            assert_eq!(call.as_str(), id);
            assert_eq!(call.clone().as_str(), id);
        }
        let long = "é".repeat(INLINE);
        let call = CallId::new(&long);
        assert!(matches!(call, CallId::Shared(_)));
        assert_eq!(call.as_str(), long);
        assert_eq!(format!("{call:?}"), format!("{long:?}"));
        assert_eq!(CallId::from(Arc::<str>::from("a")).as_str(), "a");
    }
}

//! Which provider dialect: the [`Dialect`] names, in the conformance table's order.

use std::fmt;

/// A provider's variant of JSON Schema. The rules behind each, and the provider documentation
/// they come from, are in `docs/src/providers.md` (one section per dialect, e.g.
/// `docs/src/providers.md#openai-strict`, `#gemini`; `#shared-object-root` for the root rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    /// OpenAI function calling with `strict: true`: every object closed, every field required,
    /// `anyOf` the only union, a small keyword and format allowlist.
    OpenAiStrict,
    /// OpenAI function calling without `strict`: the canonical schema under an object root.
    OpenAi,
    /// Anthropic `input_schema`: the canonical schema; no `anyOf` / `oneOf` / `allOf` at the root.
    Anthropic,
    /// Gemini `parameters` (an OpenAPI 3 subset): no `$ref`, `nullable` instead of `null`
    /// unions, string-only enums, no `additionalProperties`.
    Gemini,
    /// MCP `inputSchema` (2025-11-25): the canonical schema under an object root.
    Mcp,
}

impl Dialect {
    /// Every dialect, in the order of the conformance table.
    pub const ALL: [Dialect; 5] = [
        Dialect::OpenAiStrict,
        Dialect::OpenAi,
        Dialect::Anthropic,
        Dialect::Gemini,
        Dialect::Mcp,
    ];

    /// A short human name, as used in error messages ("OpenAI strict mode").
    pub fn name(self) -> &'static str {
        match self {
            Dialect::OpenAiStrict => "OpenAI strict mode",
            Dialect::OpenAi => "OpenAI (non-strict)",
            Dialect::Anthropic => "Anthropic",
            Dialect::Gemini => "Gemini",
            Dialect::Mcp => "MCP",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

//! The keys of `#[phi_tool(..)]`, declared once in [`ToolAttr`].
//!
//! Values are parsed into what they mean here (a timeout in milliseconds, an [`Exposure`], a
//! list of string literals), each with an error in our words when they cannot be.

use darling::FromMeta;
use darling::ast::NestedMeta;
use proc_macro2::TokenStream;
use syn::{Expr, Lit, LitStr, Meta, Path};

use crate::errors::Errors;
use crate::keys::{self, attribute_keys};

attribute_keys! {
    /// The keys of `#[phi_tool(..)]`; every key is optional. Error messages list the keys in
    /// this order.
    pub(crate) struct ToolAttr for "#[phi_tool(..)]" {
        /// The tool's name; default: the fn's.
        "name" => name: Option<LitStr>,
        /// Instead of the doc comment.
        "description" => description: Option<LitStr>,
        /// Milliseconds; default: the agent's `default_tool_timeout_ms`.
        "timeout" => timeout: Option<Timeout>,
        /// Who may see the tool; default: direct.
        "exposure" => exposure: Option<Exposure>,
        /// The result budget: bytes (`8192`, `"8 KiB"`) or estimated tokens (`"2000 tokens"`).
        "max_result" => max_result: Option<MaxResult>,
        /// Who may call the tool: `"direct"`, `"code"` or `"both"` (the default).
        "callers" => callers: Option<Callers>,
        /// Deferred tools only: a predicate over `&ActivationContext`.
        "activate_when" => activate_when: Option<Path>,
        /// Deferred tools only: the tools that must be active first.
        "requires_tools" => requires_tools: Option<RequiredTools>,
        /// Metadata; default: the user's crate name.
        "origin" => origin: Option<LitStr>,
        /// Metadata; default: the user's crate version.
        "version" => version: Option<LitStr>,
        /// Metadata: what the tool needs to work.
        "requirements" => requirements: Option<Requirements>,
        /// Annotations (MCP hints), each `flag` or `flag = bool`.
        "read_only" => read_only: Option<bool>,
        "destructive" => destructive: Option<bool>,
        "idempotent" => idempotent: Option<bool>,
        "open_world" => open_world: Option<bool>,
        /// Whether a person must approve a call: `flag`, `flag = bool`, or `= predicate`.
        "needs_approval" => needs_approval: Option<NeedsApproval>,
        /// The arguments of one call, shown to the model; repeatable. Taken out of the tokens
        /// before darling reads them (see `example::take_examples`).
        "example" => examples: Examples,
        /// Whether an MCP client may get a call as a task: "optional" or "required".
        "task" => task: Option<TaskMode>,
        /// With `task`: the call's first questions come before its task starts (MCP
        /// 2026-07-28's input-required rounds): `flag` or `flag = bool`.
        "ask_before_task" => ask_before_task: Option<bool>,
        /// MCP Apps: the `ui://` resource of the tool's interactive view.
        "ui" => ui: Option<LitStr>,
        /// A barrier in its turn's batch of calls: `flag` or `flag = bool`.
        "sequential" => sequential: Option<bool>,
        /// The most calls at once, per session: a positive integer.
        "concurrency" => concurrency: Option<Concurrency>,
        /// The most calls per period, per session: `"10/s"`, `"100/m"`, `"1000/h"`.
        "rate" => rate: Option<RateKey>,
        /// Every parameter type must fit OpenAI strict mode.
        "strict" => strict: bool,
        /// Where phi-agent is, when it is renamed or re-exported.
        "crate" => krate: Option<Path>,
    }
}

impl ToolAttr {
    /// Parses the attribute's tokens; see [`keys::parse`]. `attribute` is how the user wrote
    /// it, for messages: `#[phi_tool(..)]` on a fn, `#[tool(..)]` on a method.
    pub(crate) fn parse(tokens: TokenStream, attribute: &str, errors: &mut Errors) -> Self {
        let (tokens, examples) = super::example::take_examples(tokens, errors);
        let mut attr: Self = match errors.handle(NestedMeta::parse_meta_list(tokens)) {
            Some(items) => keys::parse_as(items, attribute, errors),
            None => Self::default(),
        };
        attr.examples = Examples(examples);
        attr
    }
}

/// Every `example = ..`, in order.
#[derive(Default)]
pub(crate) struct Examples(pub(crate) Vec<super::example::Example>);

impl std::fmt::Debug for Examples {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Examples({})", self.0.len())
    }
}

// Never read by darling: `ToolAttr::parse` takes every `example` out first.
impl FromMeta for Examples {}

/// `timeout = 30_000`: milliseconds, more than zero.
#[derive(Debug)]
pub(crate) struct Timeout(pub(crate) u64);

impl FromMeta for Timeout {
    // Taken as written: darling would read a string literal as an expression, which turns
    // `timeout = "30s"` into the number `30`.
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let hint = "`timeout` is in milliseconds and must be a positive integer literal, e.g. `timeout = 30_000` for 30 seconds";
        let Expr::Lit(syn::ExprLit {
            lit: Lit::Int(int), ..
        }) = expr
        else {
            return Err(syn::Error::new_spanned(expr, hint).into());
        };
        match int.base10_parse::<u64>() {
            Ok(0) | Err(_) => Err(syn::Error::new_spanned(int, hint).into()),
            Ok(ms) => Ok(Timeout(ms)),
        }
    }
}

/// `concurrency = n`: the most calls of the tool at once, more than zero.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Concurrency(pub(crate) u64);

impl FromMeta for Concurrency {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let hint = "`concurrency` is the most calls of this tool that run at once in a session: a positive integer literal, e.g. `concurrency = 2` (`concurrency = 1`: one at a time)";
        let Expr::Lit(syn::ExprLit {
            lit: Lit::Int(int), ..
        }) = expr
        else {
            return Err(syn::Error::new_spanned(expr, hint).into());
        };
        match int.base10_parse::<u32>() {
            Ok(0) => Err(syn::Error::new_spanned(
                int,
                "`concurrency = 0` would never let the tool run; write `concurrency = 1` for one call at a time, or leave the key out for no bound",
            )
            .into()),
            Ok(calls) => Ok(Concurrency(u64::from(calls))),
            Err(_) => Err(syn::Error::new_spanned(int, hint).into()),
        }
    }
}

/// `rate = "10/s"`: at most `calls` calls per `unit`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RateKey {
    pub(crate) calls: u32,
    pub(crate) unit: RateUnit,
}

/// The unit of a `rate`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RateUnit {
    Second,
    Minute,
    Hour,
}

impl FromMeta for RateKey {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let hint = "`rate` is the most calls per period, in a session: a string \"<calls>/<unit>\", calls a positive integer and the unit s, m or h, e.g. `rate = \"10/s\"`, `\"100/m\"`, `\"1000/h\"`";
        let Expr::Lit(syn::ExprLit {
            lit: Lit::Str(text),
            ..
        }) = expr
        else {
            return Err(syn::Error::new_spanned(expr, hint).into());
        };
        parse_rate(&text.value()).ok_or_else(|| syn::Error::new_spanned(text, hint).into())
    }
}

/// `"10/s"`: what `phi_agent::Rate` parses, checked here so that a mistake is a compile error.
fn parse_rate(text: &str) -> Option<RateKey> {
    let (calls, unit) = text.split_once('/')?;
    let calls: u32 = calls.trim().replace('_', "").parse().ok()?;
    let unit = match unit.trim() {
        "s" | "sec" | "second" => RateUnit::Second,
        "m" | "min" | "minute" => RateUnit::Minute,
        "h" | "hour" => RateUnit::Hour,
        _ => return None,
    };
    (calls > 0).then_some(RateKey { calls, unit })
}

/// `max_result = ..`: a result budget in bytes or in estimated tokens, more than zero.
#[derive(Debug, Clone, Copy)]
pub(crate) enum MaxResult {
    Bytes(u64),
    Tokens(u64),
}

impl FromMeta for MaxResult {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let hint = "`max_result` is a budget for one call's output: bytes as an integer (`max_result = 8192`) or a string with a unit (`\"8 KiB\"`, `\"1 MiB\"`, `\"64 kB\"`, `\"500 B\"`), or estimated tokens (`\"2000 tokens\"`); more than zero";
        let error = |node: &dyn quote::ToTokens| syn::Error::new_spanned(node, hint).into();
        match expr {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Int(int), ..
            }) => match int.base10_parse::<u64>() {
                Ok(0) | Err(_) => Err(error(int)),
                Ok(bytes) => Ok(MaxResult::Bytes(bytes)),
            },
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(text),
                ..
            }) => parse_budget(&text.value()).ok_or_else(|| error(text)),
            other => Err(error(other)),
        }
    }
}

/// `"8 KiB"`, `"2000 tokens"`, ...: a positive number and a unit, a space between them or not.
fn parse_budget(text: &str) -> Option<MaxResult> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '_'))
        .unwrap_or(text.len());
    let number: u64 = text[..split].replace('_', "").parse().ok()?;
    let unit = text[split..].trim();
    let scale: u64 = match unit {
        "tokens" | "token" => return (number > 0).then_some(MaxResult::Tokens(number)),
        "" | "B" | "bytes" | "byte" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "kB" | "KB" => 1_000,
        "MB" => 1_000_000,
        _ => return None,
    };
    let bytes = number.checked_mul(scale)?;
    (bytes > 0).then_some(MaxResult::Bytes(bytes))
}

/// `callers = ..`: who may call the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Callers {
    Direct,
    Code,
    Both,
}

impl FromMeta for Callers {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let value = LitStr::from_expr(expr)?;
        match value.value().as_str() {
            "direct" => Ok(Callers::Direct),
            "code" => Ok(Callers::Code),
            "both" => Ok(Callers::Both),
            other => Err(syn::Error::new_spanned(
                &value,
                format!(
                    "unknown callers `{other}`; use one of \"direct\" (only the model, in a turn of its own), \"code\" (only code the model writes) or \"both\" (the default)"
                ),
            )
            .into()),
        }
    }
}

/// Who may see the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Exposure {
    /// Always sent to the model.
    #[default]
    Direct,
    /// Sent once activated (`activate_when`, `requires_tools`).
    Deferred,
    /// Never sent to the model; the program can still call it.
    Hidden,
}

impl FromMeta for Exposure {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let value = LitStr::from_expr(expr)?;
        match value.value().as_str() {
            "direct" => Ok(Exposure::Direct),
            "deferred" => Ok(Exposure::Deferred),
            "hidden" => Ok(Exposure::Hidden),
            other => Err(syn::Error::new_spanned(
                &value,
                format!(
                    "unknown exposure `{other}`; use one of \"direct\" (always visible, the default), \"deferred\" (visible once activated) or \"hidden\" (never visible to the model)"
                ),
            )
            .into()),
        }
    }
}

/// `needs_approval`: always (`needs_approval`, `= true`), never (`= false`), or when a
/// predicate over the decoded arguments says so (`= path`).
#[derive(Debug)]
pub(crate) enum NeedsApproval {
    /// A fixed answer.
    Always(bool),
    /// `fn(&Args, &ToolContext) -> bool`, sync or async; its signature is checked by the
    /// compiler, on the path.
    When(Path),
}

impl FromMeta for NeedsApproval {
    fn from_word() -> darling::Result<Self> {
        Ok(NeedsApproval::Always(true))
    }

    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        match expr {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Bool(value),
                ..
            }) => Ok(NeedsApproval::Always(value.value)),
            // `= yes` reads as the path of a predicate named `yes`, which rustc would then
            // report as a value it cannot find; it is a flag value written as a word.
            Expr::Path(path)
                if path
                    .path
                    .get_ident()
                    .is_some_and(|word| FLAG_WORDS.contains(&word.to_string().as_str())) =>
            {
                Err(syn::Error::new_spanned(
                    path,
                    "`needs_approval` is a flag: write `needs_approval` (every call is approved by a person) or `needs_approval = false`; `needs_approval = path` names a predicate `fn(&Args, &ToolContext) -> bool`, e.g. `needs_approval = outside_workspace`",
                )
                .into())
            }
            Expr::Path(path) if path.qself.is_none() => Ok(NeedsApproval::When(path.path.clone())),
            other => Err(syn::Error::new_spanned(
                other,
                "`needs_approval` is a flag (`needs_approval`, `needs_approval = false`) or the path of a predicate `fn(&Args, &ToolContext) -> bool`, e.g. `needs_approval = outside_workspace`",
            )
            .into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_read_their_unit() {
        let bytes = |text: &str| match parse_budget(text) {
            Some(MaxResult::Bytes(bytes)) => Some(bytes),
            _ => None,
        };
        assert_eq!(bytes("8 KiB"), Some(8192));
        assert_eq!(bytes("8KiB"), Some(8192));
        assert_eq!(bytes("1 MiB"), Some(1 << 20));
        assert_eq!(bytes("64 kB"), Some(64_000));
        assert_eq!(bytes("500"), Some(500));
        assert_eq!(bytes("10_000 B"), Some(10_000));
        assert!(matches!(
            parse_budget("2000 tokens"),
            Some(MaxResult::Tokens(2000))
        ));
        for wrong in ["0 KiB", "8 kib", "KiB", "-3", "8.5 KiB", "0 tokens", ""] {
            assert!(parse_budget(wrong).is_none(), "{wrong}");
        }
    }
}

/// Words that mean a flag's value, not the name of a predicate fn.
const FLAG_WORDS: &[&str] = &[
    "yes", "no", "y", "n", "on", "off", "always", "never", "True", "False", "TRUE", "FALSE",
];

/// `requires_tools = ["file_read", ..]`.
#[derive(Debug)]
pub(crate) struct RequiredTools(pub(crate) StringList);

impl FromMeta for RequiredTools {
    fn from_meta(meta: &Meta) -> darling::Result<Self> {
        StringList::parse(meta, "requires_tools", "[\"file_read\"]").map(Self)
    }
}

/// `requirements = ["network", ..]`.
#[derive(Debug)]
pub(crate) struct Requirements(pub(crate) StringList);

impl FromMeta for Requirements {
    fn from_meta(meta: &Meta) -> darling::Result<Self> {
        StringList::parse(meta, "requirements", "[\"network\"]").map(Self)
    }
}

/// `key = ["a", "b"]`: string literals, with the list as written (for spans).
#[derive(Debug)]
pub(crate) struct StringList {
    /// The whole value, to point at.
    pub(crate) expr: Expr,
    pub(crate) items: Vec<LitStr>,
}

impl StringList {
    /// Parses `key = [..]`; a wrong value is reported with `example` as the fix.
    fn parse(meta: &Meta, key: &str, example: &str) -> darling::Result<Self> {
        let Verbatim(expr) = Verbatim::from_meta(meta)?;
        let hint = || format!("`{key}` takes a list of string literals, e.g. `{key} = {example}`");
        let Expr::Array(array) = &expr else {
            return Err(syn::Error::new_spanned(&expr, hint()).into());
        };
        let mut errors = darling::Error::accumulator();
        let items = array
            .elems
            .iter()
            .filter_map(|item| match item {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.clone()),
                other => {
                    errors.push(syn::Error::new_spanned(other, hint()).into());
                    None
                }
            })
            .collect();
        errors.finish_with(StringList { expr, items })
    }
}

/// A value taken as written, so that darling's own error covers the other forms (`key`,
/// `key(..)`).
struct Verbatim(Expr);

impl FromMeta for Verbatim {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        Ok(Verbatim(expr.clone()))
    }
}

/// `task = "optional"` or `task = "required"`: whether an MCP client may get a call of the tool
/// as a task (`TaskSupport`); without the key, never.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskMode {
    /// A client that declared the tasks extension gets a task.
    Optional,
    /// Every call is a task.
    Required,
}

impl FromMeta for TaskMode {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        let value = LitStr::from_expr(expr)?;
        match value.value().as_str() {
            "optional" => Ok(TaskMode::Optional),
            "required" => Ok(TaskMode::Required),
            other => Err(syn::Error::new_spanned(
                &value,
                format!(
                    "unknown task support `{other}`; use \"optional\" (a call is a task for a client that asks for one) or \"required\" (every call is a task); without `task`, no call is"
                ),
            )
            .into()),
        }
    }
}

#[cfg(test)]
mod rate_tests {
    use super::*;

    #[test]
    fn rates_parse_as_the_runtime_parses_them() {
        let parsed = |text: &str| parse_rate(text).map(|rate| (rate.calls, rate.unit as u8));
        assert_eq!(parsed("10/s"), Some((10, RateUnit::Second as u8)));
        assert_eq!(parsed(" 1_000 / h"), Some((1_000, RateUnit::Hour as u8)));
        assert_eq!(parsed("5/min"), Some((5, RateUnit::Minute as u8)));
        for bad in ["0/s", "10", "10/d", "ten/s", "/s", "10/"] {
            assert!(parse_rate(bad).is_none(), "{bad:?} was accepted");
        }
    }
}

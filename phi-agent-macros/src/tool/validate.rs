//! The rules of `#[phi_tool]`, checked on the parsed attribute and fn: what a tool's name may be,
//! that it has a description, which keys only deferred tools take, and what a parameter may be
//! renamed to. The result is the [`Tool`] that code generation reads.

use syn::{Ident, Path};

use super::callee::Callee;
use super::parse::{Exposure, Parsed, ToolAttr, ToolFn};
use crate::errors::Errors;
use crate::naming;

/// A validated tool: everything code generation reads. After an error it holds what could be
/// made of the input, for the fallback expansion; a key that broke a rule is removed from
/// `attr`, so that it is not generated.
pub(crate) struct Tool {
    pub(crate) attr: ToolAttr,
    pub(crate) func: ToolFn,
    /// The runtime's path: `crate = ..` or `::phi_agent`.
    pub(crate) krate: Path,
    /// The name the model sees.
    pub(crate) name: String,
    /// What the model reads to decide when to call the tool.
    pub(crate) description: String,
    pub(crate) exposure: Exposure,
    /// `GetWeather` for `get_weather`.
    pub(crate) tool_type: Ident,
    /// `GetWeatherArgs` for `get_weather`.
    pub(crate) args_type: Ident,
    /// How the body is called: by fn name, or as a method on a receiver the tool holds.
    pub(crate) callee: Callee,
}

/// Checks the rules on `parsed`, recording every broken one in `errors`.
pub(crate) fn validate(parsed: Parsed, errors: &mut Errors) -> Tool {
    let Parsed { mut attr, func } = parsed;
    let exposure = attr.exposure.unwrap_or_default();
    deferred_only_keys(&mut attr, exposure, errors);
    required_tool_names(&attr, errors);
    renames(&func, errors);
    let fn_ident = &func.item.sig.ident;
    let name = tool_name(&attr, fn_ident, errors);
    let description = description(&attr, &func, &name, errors);
    Tool {
        krate: attr
            .krate
            .clone()
            .unwrap_or_else(|| syn::parse_quote!(::phi_agent)),
        name,
        description,
        exposure,
        tool_type: naming::tool_type_ident(fn_ident),
        args_type: naming::args_type_ident(fn_ident),
        callee: Callee::Fn,
        attr,
        func,
    }
}

/// Why `name` breaks `^[a-zA-Z0-9_-]{1,64}$`, if it does: the names that OpenAI, Anthropic,
/// Gemini and MCP all accept.
fn tool_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    if name.len() > 64 {
        return Some(format!("it has {} characters, more than 64", name.len()));
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        .map(|c| format!("it contains `{c}`"))
}

/// The tool's name (`name = ".."` or the fn's), which must satisfy the name rule.
fn tool_name(attr: &ToolAttr, fn_ident: &Ident, errors: &mut Errors) -> String {
    // Either way the error goes on the one token the name came from.
    let (name, span) = match &attr.name {
        Some(name) => (name.value(), name.span()),
        None => (naming::unraw(fn_ident), fn_ident.span()),
    };
    if let Some(problem) = tool_name_problem(&name) {
        errors.push(syn::Error::new(
            span,
            format!(
                "invalid tool name `{name}`: {problem}; use 1 to 64 characters from `a-z A-Z 0-9 _ -` so every provider accepts it"
            ),
        ));
    }
    name
}

/// The description: `description = ".."` (not blank) or else the doc comment, one of which a
/// tool must have.
fn description(attr: &ToolAttr, func: &ToolFn, name: &str, errors: &mut Errors) -> String {
    match (&attr.description, &func.doc) {
        (Some(text), _) if text.value().trim().is_empty() => {
            errors.push(syn::Error::new_spanned(
                text,
                "the description is empty; say what the tool does, for the model",
            ));
            String::new()
        }
        (Some(text), _) => text.value(),
        (None, Some(doc)) => doc.clone(),
        (None, None) => {
            errors.push(syn::Error::new_spanned(
                &func.item.sig.ident,
                format!(
                    "tool `{name}` has no description: the model reads it to decide when to call the tool; add a doc comment (`/// What the tool does`) above it, or the key `description = \"...\"`"
                ),
            ));
            String::new()
        }
    }
}

/// `activate_when` and `requires_tools` decide when a deferred tool becomes visible; on any other
/// tool they would never be read, so they are an error (and removed).
fn deferred_only_keys(attr: &mut ToolAttr, exposure: Exposure, errors: &mut Errors) {
    if exposure == Exposure::Deferred {
        return;
    }
    let not_deferred = |key: &str, node: &dyn quote::ToTokens| {
        syn::Error::new_spanned(
            node,
            format!(
                "`{key}` only applies to deferred tools; add `exposure = \"deferred\"` or remove `{key}`"
            ),
        )
    };
    if let Some(path) = attr.activate_when.take() {
        errors.push(not_deferred("activate_when", &path));
    }
    if let Some(list) = attr.requires_tools.take() {
        errors.push(not_deferred("requires_tools", &list.0.expr));
    }
}

/// Every name in `requires_tools` must be a name a tool can have, or the tool never activates.
fn required_tool_names(attr: &ToolAttr, errors: &mut Errors) {
    let names = attr.requires_tools.iter().flat_map(|list| &list.0.items);
    for tool in names {
        if let Some(problem) = tool_name_problem(&tool.value()) {
            errors.push(syn::Error::new_spanned(
                tool,
                format!(
                    "`requires_tools` names `{}`, which is not a valid tool name: {problem}",
                    tool.value()
                ),
            ));
        }
    }
}

/// `#[phi(rename = "..")]` must give a name.
fn renames(func: &ToolFn, errors: &mut Errors) {
    for rename in func.args().filter_map(|arg| arg.rename.as_ref()) {
        if rename.value().is_empty() {
            errors.push(syn::Error::new_spanned(
                rename,
                "`rename` needs a non-empty name",
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_follow_the_portable_rule() {
        assert_eq!(tool_name_problem("get-weather_2"), None);
        assert_eq!(
            tool_name_problem("fs.read").as_deref(),
            Some("it contains `.`")
        );
        assert!(tool_name_problem("").is_some());
        assert!(tool_name_problem(&"a".repeat(64)).is_none());
        assert!(tool_name_problem(&"a".repeat(65)).is_some());
    }
}

//! The rules of `#[phi_tool]`, checked on the parsed attribute and fn: what a tool's name may be,
//! that it has a description, which keys only deferred tools take, and what a parameter may be
//! renamed to. The result is the [`Tool`] that code generation reads.

use syn::{Ident, Path};

use super::callee::Callee;
use super::parse::example::{Example, Json};
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
    ui_view(&attr, errors);
    renames(&func, errors);
    headers(&func, errors);
    example_keys(&attr, &func, errors);
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

/// `ui = ".."` names the tool's view, which MCP Apps serve as a `ui://` resource.
fn ui_view(attr: &ToolAttr, errors: &mut Errors) {
    if let Some(uri) = &attr.ui
        && !uri.value().starts_with("ui://")
    {
        errors.push(syn::Error::new_spanned(
            uri,
            format!(
                "`{}` is not a `ui://` URI; a tool's view (MCP Apps) is a `ui://` resource, e.g. `ui = \"ui://weather/card\"`",
                uri.value()
            ),
        ));
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

/// Whether `c` may appear in an HTTP field name: RFC 9110's `tchar` (§5.6.2).
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// Why `name` cannot follow `Mcp-Param-` in a header name, if it cannot.
fn header_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    name.chars().find(|c| !is_tchar(*c)).map(|c| {
        if c.is_whitespace() {
            "it contains whitespace".into()
        } else {
            format!("it contains `{c}`")
        }
    })
}

/// `#[phi(header = "..")]` (SEP-2243's `x-mcp-header`): an RFC 9110 token, unique in the tool
/// regardless of case (HTTP field names are case-insensitive). A client that meets a schema
/// breaking either rule drops the whole tool, so both are compile errors here. The type is
/// checked by the `HeaderParameter` bound the tool emits.
fn headers(func: &ToolFn, errors: &mut Errors) {
    let mut seen: Vec<(String, &syn::Ident)> = Vec::new();
    for arg in func.args() {
        let Some(header) = &arg.header else { continue };
        let name = header.value();
        if let Some(problem) = header_name_problem(&name) {
            errors.push(syn::Error::new_spanned(
                header,
                format!(
                    "`{name}` is not a valid header name: {problem}; use letters, digits and `!#$%&'*+-.^_`|~`, e.g. `header = \"Region\"` (sent as `Mcp-Param-Region`)"
                ),
            ));
            continue;
        }
        let folded = name.to_ascii_lowercase();
        if let Some((_, first)) = seen.iter().find(|(other, _)| *other == folded) {
            errors.push(syn::Error::new_spanned(
                header,
                format!(
                    "the header `{name}` is already mirrored from parameter `{}` (header names are case-insensitive); give each parameter its own header name",
                    naming::unraw(first)
                ),
            ));
            continue;
        }
        seen.push((folded, &arg.ident));
    }
}

/// The keys of every JSON example must be parameters of the tool (by the name the model sees),
/// unless a parameter is flattened or renamed in a way read only by serde, when the decoder at
/// registration is the judge. Whether values fit their types is checked there too.
fn example_keys(attr: &ToolAttr, func: &ToolFn, errors: &mut Errors) {
    let Some(known) = parameter_names(func) else {
        return;
    };
    for example in &attr.examples.0 {
        let Example::Json(json) = example else {
            continue;
        };
        // A brace group or a literal checked to hold an object: never anything else.
        let Json::Object { entries, .. } = json else {
            continue;
        };
        for (key, key_span, _) in entries {
            if known.iter().any(|name| name == key) {
                continue;
            }
            let names: Vec<&str> = known.iter().map(String::as_str).collect();
            let suggestion = crate::keys::closest(key, &names)
                .map(|close| format!("did you mean `\"{close}\"`? "))
                .unwrap_or_default();
            let listed = if names.is_empty() {
                "the tool takes no parameters".to_string()
            } else {
                format!("the parameters are: {}", names.join(", "))
            };
            errors.push(syn::Error::new(
                *key_span,
                format!("the example has the key `\"{key}\"`, which is not a parameter of this tool; {suggestion}{listed}"),
            ));
        }
    }
}

/// The names the model sees for the parameters (and each serde `alias`), or `None` when serde
/// attributes make them unknowable here (`flatten`, or a `rename` this reader does not follow).
fn parameter_names(func: &ToolFn) -> Option<Vec<String>> {
    let mut names = Vec::new();
    for arg in func.args() {
        let mut name = match &arg.rename {
            Some(rename) => rename.value(),
            None => naming::unraw(&arg.ident),
        };
        for field_attr in arg
            .field_attrs
            .iter()
            .filter(|a| a.path().is_ident("serde"))
        {
            let mut understood = true;
            let parsed = field_attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") || meta.path.is_ident("alias") {
                    let is_rename = meta.path.is_ident("rename");
                    match meta.value().and_then(|value| value.parse::<syn::LitStr>()) {
                        Ok(text) if is_rename => name = text.value(),
                        Ok(text) => names.push(text.value()),
                        Err(_) => understood = false,
                    }
                } else if meta.path.is_ident("flatten") {
                    understood = false;
                } else if meta.input.peek(syn::Token![=]) {
                    // Another key's value (`default = ".."`): read past it.
                    let _ = meta.value()?.parse::<syn::Expr>()?;
                } else if meta.input.peek(syn::token::Paren) {
                    let _ = meta.input.parse::<proc_macro2::Group>()?;
                }
                Ok(())
            });
            if parsed.is_err() || !understood {
                return None;
            }
        }
        names.push(name);
    }
    Some(names)
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

    #[test]
    fn header_names_are_http_tokens() {
        assert_eq!(header_name_problem("Region"), None);
        assert_eq!(header_name_problem("X-Tenant_1.v2"), None);
        assert_eq!(header_name_problem("").as_deref(), Some("it is empty"));
        assert_eq!(
            header_name_problem("My Region").as_deref(),
            Some("it contains whitespace")
        );
        assert_eq!(
            header_name_problem("Region:").as_deref(),
            Some("it contains `:`")
        );
        assert!(header_name_problem("Régión").is_some());
    }
}

//! The keys of `#[phi_tool(..)]`, parsed with darling and then validated into [`ToolOptions`].

use darling::FromMeta;
use darling::ast::NestedMeta;
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{Expr, Lit, LitStr, Path};

use crate::errors::Errors;
use crate::keys;

/// The keys `#[phi_tool(..)]` accepts, as listed in error messages.
const KEYS: &[&str] = &[
    "name",
    "description",
    "timeout",
    "exposure",
    "activate_when",
    "requires_tools",
    "origin",
    "version",
    "requirements",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "strict",
    "crate",
];

/// The attribute as written; every key is optional.
#[derive(Debug, Default, FromMeta)]
#[darling(default)]
struct RawOptions {
    name: Option<LitStr>,
    description: Option<LitStr>,
    timeout: Option<Verbatim>,
    exposure: Option<LitStr>,
    activate_when: Option<Path>,
    requires_tools: Option<Verbatim>,
    origin: Option<LitStr>,
    version: Option<LitStr>,
    requirements: Option<Verbatim>,
    #[darling(rename = "crate")]
    krate: Option<Path>,
    read_only: Option<bool>,
    destructive: Option<bool>,
    idempotent: Option<bool>,
    open_world: Option<bool>,
    strict: Option<bool>,
}

/// A value taken as written. (darling would parse a string literal as an expression, which
/// turns `timeout = "30s"` into the number `30`.)
#[derive(Debug)]
struct Verbatim(Expr);

impl FromMeta for Verbatim {
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        Ok(Verbatim(expr.clone()))
    }
}

/// Who may see the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Exposure {
    #[default]
    Direct,
    Deferred,
    Hidden,
}

/// The validated options of one tool.
#[derive(Debug, Default)]
pub(crate) struct ToolOptions {
    pub(crate) name: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) timeout_ms: Option<u64>,
    pub(crate) exposure: Exposure,
    pub(crate) activate_when: Option<Path>,
    pub(crate) requires_tools: Vec<LitStr>,
    pub(crate) origin: Option<LitStr>,
    pub(crate) version: Option<LitStr>,
    pub(crate) requirements: Vec<LitStr>,
    pub(crate) krate: Option<Path>,
    pub(crate) read_only: Option<bool>,
    pub(crate) destructive: Option<bool>,
    pub(crate) idempotent: Option<bool>,
    pub(crate) open_world: Option<bool>,
    /// Every parameter type must fit OpenAI strict mode.
    pub(crate) strict: bool,
}

impl ToolOptions {
    /// Parses and validates the attribute's tokens. Problems go to `errors`; what could be
    /// understood is returned either way, so that code generation can go on.
    pub(crate) fn parse(tokens: TokenStream, errors: &mut Errors) -> Self {
        let Some(items) = errors.handle(NestedMeta::parse_meta_list(tokens)) else {
            return Self::default();
        };
        let items = keys::retain_known(items, "#[phi_tool(..)]", KEYS, errors);
        let Some(raw) = errors.handle(RawOptions::from_list(&items)) else {
            return Self::default();
        };
        let mut options = ToolOptions {
            timeout_ms: raw
                .timeout
                .as_ref()
                .and_then(|t| errors.handle(timeout_ms(&t.0))),
            exposure: raw
                .exposure
                .as_ref()
                .and_then(|e| errors.handle(exposure(e)))
                .unwrap_or_default(),
            requires_tools: raw
                .requires_tools
                .as_ref()
                .and_then(|e| errors.handle(string_list(&e.0, "requires_tools", "[\"file_read\"]")))
                .unwrap_or_default(),
            requirements: raw
                .requirements
                .as_ref()
                .and_then(|e| errors.handle(string_list(&e.0, "requirements", "[\"network\"]")))
                .unwrap_or_default(),
            name: raw.name,
            description: raw.description,
            activate_when: raw.activate_when,
            origin: raw.origin,
            version: raw.version,
            krate: raw.krate,
            read_only: raw.read_only,
            destructive: raw.destructive,
            idempotent: raw.idempotent,
            open_world: raw.open_world,
            strict: raw.strict.unwrap_or(false),
        };
        if options.exposure != Exposure::Deferred {
            if let Some(path) = &options.activate_when {
                errors.push(not_deferred("activate_when", path));
                options.activate_when = None;
            }
            if let Some(expr) = &raw.requires_tools {
                errors.push(not_deferred("requires_tools", &expr.0));
                options.requires_tools.clear();
            }
        }
        for tool in &options.requires_tools {
            if let Some(problem) = crate::naming::tool_name_problem(&tool.value()) {
                errors.push(syn::Error::new_spanned(
                    tool,
                    format!(
                        "`requires_tools` names `{}`, which is not a valid tool name: {problem}",
                        tool.value()
                    ),
                ));
            }
        }
        options
    }
}

fn timeout_ms(expr: &Expr) -> syn::Result<u64> {
    let hint = "`timeout` is in milliseconds and must be a positive integer literal, e.g. `timeout = 30_000` for 30 seconds";
    let Expr::Lit(lit) = expr else {
        return Err(syn::Error::new_spanned(expr, hint));
    };
    let Lit::Int(int) = &lit.lit else {
        return Err(syn::Error::new_spanned(expr, hint));
    };
    match int.base10_parse::<u64>() {
        Ok(0) | Err(_) => Err(syn::Error::new_spanned(int, hint)),
        Ok(ms) => Ok(ms),
    }
}

fn exposure(value: &LitStr) -> syn::Result<Exposure> {
    match value.value().as_str() {
        "direct" => Ok(Exposure::Direct),
        "deferred" => Ok(Exposure::Deferred),
        "hidden" => Ok(Exposure::Hidden),
        other => Err(syn::Error::new_spanned(
            value,
            format!(
                "unknown exposure `{other}`; use one of \"direct\" (always visible, the default), \"deferred\" (visible once activated) or \"hidden\" (never visible to the model)"
            ),
        )),
    }
}

fn string_list(expr: &Expr, key: &str, example: &str) -> syn::Result<Vec<LitStr>> {
    let hint = || format!("`{key}` takes a list of string literals, e.g. `{key} = {example}`");
    let Expr::Array(array) = expr else {
        return Err(syn::Error::new_spanned(expr, hint()));
    };
    let mut errors = Errors::default();
    let items = array
        .elems
        .iter()
        .filter_map(|item| match item {
            Expr::Lit(syn::ExprLit {
                lit: Lit::Str(s), ..
            }) => Some(s.clone()),
            other => {
                errors.push(syn::Error::new_spanned(other, hint()));
                None
            }
        })
        .collect();
    match errors.into_error() {
        Some(error) => Err(error),
        None => Ok(items),
    }
}

fn not_deferred<T: ToTokens>(key: &str, node: &T) -> syn::Error {
    syn::Error::new_spanned(
        node,
        format!(
            "`{key}` only applies to deferred tools; add `exposure = \"deferred\"` or remove `{key}`"
        ),
    )
}

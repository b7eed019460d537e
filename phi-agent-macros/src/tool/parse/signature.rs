//! The tool fn as a typed model: its parameters, its context parameter, its return type and its
//! doc comment. Every problem is recorded; parsing never stops at the first one.
//!
//! A shape that cannot become a tool (a method, a generic fn, a reference or pattern parameter)
//! is reported here, with the fix, because it has no place in the model.

use darling::FromMeta;

use crate::errors::Errors;
use crate::keys::{self, attribute_keys};
use syn::{
    Attribute, Expr, FnArg, GenericArgument, Ident, ItemFn, LitStr, Pat, PathArguments, ReturnType,
    Type,
};

/// A parsed `#[phi_tool]` fn.
pub(crate) struct ToolFn {
    /// The fn as it is emitted: parameter attributes that belong to the macro are removed.
    pub(crate) item: ItemFn,
    /// Parameters in declaration order.
    pub(crate) params: Vec<Param>,
    /// What the fn returns.
    pub(crate) returns: Returns,
    /// The fn's doc comment, if it has one.
    pub(crate) doc: Option<String>,
}

/// One parameter of the tool fn.
pub(crate) enum Param {
    /// `&ToolContext`, injected by the runtime.
    Context,
    /// A field of the arguments struct.
    Arg(Box<ArgParam>),
}

/// A parameter the model fills in.
pub(crate) struct ArgParam {
    pub(crate) ident: Ident,
    pub(crate) ty: Type,
    /// Doc comments, `#[serde(..)]` and `#[schemars(..)]`: moved to the field.
    pub(crate) field_attrs: Vec<Attribute>,
    pub(crate) default: Option<DefaultValue>,
    pub(crate) rename: Option<LitStr>,
    /// `#[phi(header = "Region")]`: the MCP header (`Mcp-Param-Region`) the argument is mirrored
    /// into, written to the schema as `x-mcp-header` (SEP-2243).
    pub(crate) header: Option<LitStr>,
}

attribute_keys! {
    /// The keys of `#[phi(..)]` on a parameter.
    struct ParamAttr for "#[phi(..)]" {
        /// `default` or `default = expr`.
        "default" => default: Option<DefaultValue>,
        /// The field's name in the schema.
        "rename" => rename: Option<LitStr>,
        /// The MCP header the argument is mirrored into (`x-mcp-header`).
        "header" => header: Option<LitStr>,
    }
}

/// `#[phi(default)]` or `#[phi(default = expr)]`.
#[derive(Debug)]
pub(crate) enum DefaultValue {
    /// `Default::default()`.
    Trait,
    /// The expression, evaluated whenever the model leaves the parameter out.
    Expr(Expr),
}

impl FromMeta for DefaultValue {
    fn from_word() -> darling::Result<Self> {
        Ok(DefaultValue::Trait)
    }

    // Taken as written: unlike darling's default, a string literal stays a string literal.
    fn from_expr(expr: &Expr) -> darling::Result<Self> {
        Ok(DefaultValue::Expr(expr.clone()))
    }
}

/// The return type of the tool fn.
pub(crate) enum Returns {
    /// No return type: the tool returns `()`.
    Unit,
    /// A plain value `T`.
    Plain(Type),
    /// `AgentResult<T>`, `Result<T, E>` or another `Result` alias; `ok` is `T` when it is written.
    Result { ty: Box<Type>, ok: Option<Type> },
}

impl Returns {
    /// The success type, when it can be read off the signature.
    pub(crate) fn ok_type(&self) -> Option<&Type> {
        match self {
            Returns::Unit => None,
            Returns::Plain(ty) => Some(ty),
            Returns::Result { ok, .. } => ok.as_ref(),
        }
    }
}

impl ToolFn {
    /// Parses `item`, recording every problem in `errors`.
    pub(crate) fn parse(mut item: ItemFn, errors: &mut Errors) -> Self {
        let sig = &item.sig;
        if !sig.generics.params.is_empty() {
            errors.push(
                syn::Error::new_spanned(&sig.generics,
                    "a tool fn cannot be generic: the model's arguments are decoded into one concrete type; replace the type parameters with concrete types",
                ),
            );
        } else if let Some(where_clause) = &sig.generics.where_clause {
            errors.push(syn::Error::new_spanned(
                where_clause,
                "a tool fn cannot have a `where` clause; remove it",
            ));
        }
        if let Some(variadic) = &sig.variadic {
            errors.push(syn::Error::new_spanned(
                variadic,
                "a tool fn cannot be variadic",
            ));
        }
        let returns = parse_return(&sig.output, errors);

        let mut params = Vec::new();
        let mut context_seen = false;
        for input in item.sig.inputs.iter_mut() {
            match input {
                FnArg::Receiver(receiver) => errors.push(
                    syn::Error::new_spanned(receiver,
                        "`#[phi_tool]` goes on a free fn, not a method: for a method, put `#[phi_tools]` on the `impl` block and mark the method `#[tool]` (its tool then holds the receiver)",
                    ),
                ),
                FnArg::Typed(pat_type) => {
                    let (kept, taken) = take_macro_attrs(&pat_type.attrs);
                    pat_type.attrs = kept;
                    if let Some(param) = parse_param(pat_type, taken, &mut context_seen, errors) {
                        params.push(param);
                    }
                }
            }
        }
        let doc = doc_text(&item.attrs);
        ToolFn {
            item,
            params,
            returns,
            doc,
        }
    }

    /// The parameters the model fills in.
    pub(crate) fn args(&self) -> impl Iterator<Item = &ArgParam> {
        self.params.iter().filter_map(|param| match param {
            Param::Arg(arg) => Some(&**arg),
            Param::Context => None,
        })
    }
}

/// Splits a parameter's attributes into those kept on the fn and those taken by the macro.
fn take_macro_attrs(attrs: &[Attribute]) -> (Vec<Attribute>, Vec<Attribute>) {
    attrs.iter().cloned().partition(|attr| {
        !["doc", "phi", "serde", "schemars"]
            .iter()
            .any(|name| attr.path().is_ident(name))
    })
}

fn parse_param(
    pat_type: &syn::PatType,
    attrs: Vec<Attribute>,
    context_seen: &mut bool,
    errors: &mut Errors,
) -> Option<Param> {
    let ty = &*pat_type.ty;
    if let Some(context) = context_reference(ty) {
        if context.mutability.is_some() {
            errors.push(syn::Error::new_spanned(
                ty,
                "take the context by shared reference: `&ToolContext`",
            ));
        } else if *context_seen {
            errors.push(syn::Error::new_spanned(
                pat_type,
                "a tool fn takes at most one `&ToolContext` parameter; remove this one",
            ));
        } else if let Some(attr) = attrs.iter().find(|a| !a.path().is_ident("doc")) {
            errors.push(
                syn::Error::new_spanned(attr, "the `&ToolContext` parameter is injected, not part of the schema; remove this attribute"),
            );
        }
        *context_seen = true;
        return Some(Param::Context);
    }

    let ident = match &*pat_type.pat {
        Pat::Ident(pat) if pat.subpat.is_none() && pat.by_ref.is_none() => pat.ident.clone(),
        other => {
            errors.push(
                syn::Error::new_spanned(other,
                    "tool parameters must be plain names: each one becomes a named field of the tool's arguments; bind a name here and destructure it in the body",
                ),
            );
            return None;
        }
    };
    if !check_type(ty, errors) {
        return None;
    }

    let mut options = ParamAttr::default();
    let mut field_attrs = Vec::new();
    for attr in attrs {
        if attr.path().is_ident("phi") {
            let parsed = match &attr.meta {
                syn::Meta::List(list) => errors
                    .handle(darling::ast::NestedMeta::parse_meta_list(
                        list.tokens.clone(),
                    ))
                    .map(|items| keys::parse::<ParamAttr>(items, errors)),
                other => {
                    errors.push(syn::Error::new_spanned(
                        other,
                        "write `#[phi(default)]`, `#[phi(default = expr)]`, `#[phi(rename = \"..\")]` or `#[phi(header = \"..\")]`",
                    ));
                    None
                }
            };
            if let Some(parsed) = parsed {
                options.default = parsed.default.or(options.default);
                options.rename = parsed.rename.or(options.rename);
                options.header = parsed.header.or(options.header);
            }
        } else {
            field_attrs.push(attr);
        }
    }
    // A leading `_` (rustc's advice for a parameter the body does not read) is not part of the
    // name the model sees: `_units` is `units` in the schema and in the arguments.
    let rename = options.rename.or_else(|| unprefixed(&ident));
    Some(Param::Arg(Box::new(ArgParam {
        ident,
        ty: ty.clone(),
        field_attrs,
        default: options.default,
        rename,
        header: options.header,
    })))
}

/// `units` for a parameter named `_units`; `None` for a name without a leading `_`.
fn unprefixed(ident: &syn::Ident) -> Option<LitStr> {
    let name = ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name);
    let bare = name.trim_start_matches('_');
    (bare.len() < name.len() && !bare.is_empty()).then(|| LitStr::new(bare, ident.span()))
}

/// `&ToolContext` (any path ending in `ToolContext`), as a reference type.
fn context_reference(ty: &Type) -> Option<&syn::TypeReference> {
    let Type::Reference(reference) = ty else {
        return None;
    };
    let Type::Path(path) = &*reference.elem else {
        return None;
    };
    let last = path.path.segments.last()?;
    (last.ident == "ToolContext").then_some(reference)
}

/// Rejects parameter types that can never be decoded from JSON, with a fix; `true` if `ty` may
/// be a field.
fn check_type(ty: &Type, errors: &mut Errors) -> bool {
    match ty {
        Type::Reference(reference) => {
            let owned = owned_suggestion(&reference.elem);
            errors.push(
                syn::Error::new_spanned(ty, format!(
                    "a tool parameter cannot be a reference: the model's arguments are decoded into owned values; use `{owned}` instead"
                )),
            );
            false
        }
        Type::ImplTrait(_) => {
            errors.push(
                syn::Error::new_spanned(ty,
                    "a tool parameter cannot be `impl Trait`: the model's arguments are decoded into one concrete type; name the type, e.g. `String`",
                ),
            );
            false
        }
        Type::Path(path)
            if path.qself.is_none()
                && path
                    .path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident == "ToolContext") =>
        {
            errors.push(syn::Error::new_spanned(
                ty,
                "take the context by reference: `ctx: &ToolContext`",
            ));
            false
        }
        _ => true,
    }
}

/// The owned type to suggest for a borrowed `&elem`.
fn owned_suggestion(elem: &Type) -> String {
    match elem {
        Type::Path(path) if path.path.is_ident("str") => "String".into(),
        Type::Path(path) if path.path.segments.last().is_some_and(|s| s.ident == "Path") => {
            "PathBuf".into()
        }
        Type::Slice(slice) => format!("Vec<{}>", type_text(&slice.elem)),
        other => type_text(other),
    }
}

fn type_text(ty: &Type) -> String {
    quote::ToTokens::to_token_stream(ty)
        .to_string()
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace("< ", "<")
        .replace(" ,", ",")
        .replace(" :: ", "::")
}

fn parse_return(output: &ReturnType, errors: &mut Errors) -> Returns {
    let ReturnType::Type(_, ty) = output else {
        return Returns::Unit;
    };
    match &**ty {
        Type::ImplTrait(_) => {
            errors.push(
                syn::Error::new_spanned(ty,
                    "a tool fn cannot return `impl Trait`: name the output type, e.g. `String` or a `Serialize` struct",
                ),
            );
            Returns::Unit
        }
        Type::Path(path) if path.qself.is_none() => {
            let last = path.path.segments.last();
            match last {
                Some(segment) if segment.ident == "Result" || segment.ident == "AgentResult" => {
                    let ok = match &segment.arguments {
                        PathArguments::AngleBracketed(args) => {
                            args.args.iter().find_map(|arg| match arg {
                                GenericArgument::Type(ty) => Some(ty.clone()),
                                _ => None,
                            })
                        }
                        _ => None,
                    };
                    Returns::Result { ty: ty.clone(), ok }
                }
                _ => Returns::Plain((**ty).clone()),
            }
        }
        other => Returns::Plain(other.clone()),
    }
}

/// The text of the doc comment: one line per `///` line, the single leading space of each line
/// removed, Markdown kept. Non-literal docs (`#[doc = include_str!(..)]`) are skipped.
pub(crate) fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|text| {
            text.split('\n')
                .map(|line| line.strip_prefix(' ').unwrap_or(line).trim_end().to_owned())
                .collect::<Vec<_>>()
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

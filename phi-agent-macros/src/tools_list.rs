//! `tools![..]`: a `Vec<Arc<dyn Tool>>` from `#[phi_tool]` fns, `#[tool]` methods (`store.lookup`)
//! and tool values.
//!
//! The input is `krate; item, item, ..`, where `krate` is the runtime's path (`phi_agent::tools!`
//! passes `$crate`, so a renamed dependency keeps working).

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Token};

use crate::errors::Errors;
use crate::naming;

/// One item of the list.
enum Item {
    /// A path to a `#[phi_tool]` fn, rewritten to the path of its generated type.
    ToolFn { tool_type: syn::Path, label: String },
    /// `store.lookup`: the tool of the `#[tool]` method `lookup` of the `#[phi_tools]` type
    /// `store` (an `Arc`) points to, built by the method's hidden constructor.
    Method { receiver: Expr, method: syn::Ident },
    /// Any expression whose value implements `Tool`.
    Value(Expr),
}

/// Expands `krate; items..`.
pub(crate) fn expand(input: TokenStream) -> TokenStream {
    let mut tokens = input.into_iter();
    let krate: TokenStream = tokens
        .by_ref()
        .take_while(|token| !matches!(token, TokenTree::Punct(p) if p.as_char() == ';'))
        .collect();
    let rest: TokenStream = tokens.collect();
    let mut errors = Errors::default();
    let parsed = Punctuated::<Expr, Token![,]>::parse_terminated
        .parse2(rest)
        .map_err(|error| {
            let message = format!(
                "{error}; `tools![..]` takes a comma-separated list of `#[phi_tool]` fn paths and tool values"
            );
            syn::Error::new(error.span(), message)
        });
    let Some(exprs) = errors.handle(parsed) else {
        return errors.finish().err().unwrap_or_default();
    };

    let mut seen: Vec<String> = Vec::new();
    let mut items = Vec::new();
    for expr in exprs {
        let text = expr.to_token_stream().to_string();
        if seen.contains(&text) {
            errors.push(syn::Error::new(
                expr.span(),
                format!("`{text}` is listed twice in `tools![]`; remove this mention"),
            ));
        }
        seen.push(text);
        items.push((classify(&expr), expr));
    }

    let boxed = items.iter().map(|(item, expr)| {
        // A method's constructor already returns the shared tool.
        if let Item::Method { receiver, method } = item {
            return method_tool(&krate, receiver, method);
        }
        match item {
            // A `#[phi_tool]` fn's type implements `TypedTool`: `typed_tool` holds it without
            // the blanket `dyn Tool`, whose ten methods would be compiled once per tool.
            Item::ToolFn { tool_type, .. } => {
                quote_spanned! {expr.span()=> #krate::__private::IntoTypedTool::into_typed_tool(#tool_type) }
            }
            Item::Method { .. } => TokenStream::new(),
            Item::Value(expr) => {
                quote_spanned! {expr.span()=> #krate::__private::into_tool(#expr) }
            }
        }
    });

    // A fn listed twice already has its error; the name check would only repeat it.
    let name_check = if errors.is_empty() {
        unique_names(&krate, &items)
    } else {
        TokenStream::new()
    };
    let errors = errors.finish().err();
    quote! {{
        #errors
        #name_check
        let __phi_tools: ::std::vec::Vec<::std::sync::Arc<dyn #krate::Tool>> =
            ::std::vec![#(#boxed),*];
        __phi_tools
    }}
}

/// `store.lookup` as `Arc<dyn Tool>`: the method's hidden constructor, called on a clone of
/// `store`'s `Arc`.
///
/// A name that is no `#[tool]` method of the receiver's type (a typo, or a method without
/// `#[tool]`) must not surface as rustc's "no method named `__phi_tool_..`": beside the call,
/// a local trait gives every type a stand-in constructor of that name, which the real one (an
/// inherent method) always wins over. The stand-in requires `Self: ToolMethod<lokup>` of a marker
/// declared here, which nothing implements, so that the error is ours, names the method as the
/// user wrote it, and lists the type's tool methods (each block implements `ToolMethod` for a
/// marker per method).
fn method_tool(krate: &TokenStream, receiver: &Expr, method: &syn::Ident) -> TokenStream {
    let constructor = crate::methods::shape::constructor_ident(method);
    // Bound first, so that a receiver that is not an `Arc` is reported once.
    let call = quote_spanned! {receiver.span()=>
        let __phi_receiver: ::std::sync::Arc<_> =
            #krate::__private::SharedReceiver::share(&#receiver);
    };
    // The bound sits in the return type, so that rustc adds no note naming the stand-in.
    let bound = quote_spanned! {method.span()=> #krate::__private::ToolMethod<#method> };
    quote_spanned! {method.span()=> {
        #call
        // Named as the user wrote the method, since rustc prints it in the error; braced, so that
        // it takes no value name the receiver expression might use.
        #[allow(non_camel_case_types, dead_code)]
        struct #method {}
        // Unused whenever the name is right: then the real constructor is called.
        #[allow(dead_code)]
        trait __PhiStandIn {
            fn #constructor(self: ::std::sync::Arc<Self>) -> <Self as #bound>::Tool
            where
                Self: #bound;
        }
        impl<T: ?::core::marker::Sized> __PhiStandIn for T {
            fn #constructor(self: ::std::sync::Arc<Self>) -> <Self as #bound>::Tool
            where
                Self: #bound,
            {
                ::core::unreachable!()
            }
        }
        __phi_receiver.#constructor()
    }}
}

/// A snake_case path names a `#[phi_tool]` fn, `value.method` a `#[tool]` method; anything else
/// is a tool value.
fn classify(expr: &Expr) -> Item {
    if let Expr::Field(field) = expr
        && let syn::Member::Named(method) = &field.member
    {
        return Item::Method {
            receiver: (*field.base).clone(),
            method: method.clone(),
        };
    }
    if let Expr::Path(path) = expr
        && path.qself.is_none()
        && path.attrs.is_empty()
        && let Some(last) = path.path.segments.last()
        && last.arguments.is_empty()
        && naming::is_snake_case(&last.ident)
    {
        let mut tool_type = path.path.clone();
        if let Some(last) = tool_type.segments.last_mut() {
            last.ident = naming::tool_type_ident(&last.ident);
        }
        let label = path
            .path
            .segments
            .iter()
            .map(|s| naming::unraw(&s.ident))
            .collect::<Vec<_>>()
            .join("::");
        return Item::ToolFn { tool_type, label };
    }
    Item::Value(expr.clone())
}

/// A compile-time check that the `#[phi_tool]` fns in the list have distinct names; a clash is
/// reported on the later item and names both.
fn unique_names(krate: &TokenStream, items: &[(Item, Expr)]) -> TokenStream {
    let tool_fns: Vec<_> = items
        .iter()
        .filter_map(|(item, expr)| match item {
            Item::ToolFn { tool_type, label } => Some((tool_type, label, expr)),
            Item::Method { .. } | Item::Value(_) => None,
        })
        .collect();
    if tool_fns.len() < 2 {
        return TokenStream::new();
    }
    // The tool as a value, as `into_tool` gets it and with its spans: a path that names no tool
    // (a plain fn, a typo) is then one error, which rustc does not repeat for this use.
    let names = tool_fns
        .iter()
        .map(|(ty, _, _)| quote!(#krate::__private::tool_fn_name(&#ty)));
    let labels = tool_fns.iter().map(|(_, label, _)| label);
    let checks = tool_fns
        .iter()
        .enumerate()
        .skip(1)
        .map(|(index, (_, _, expr))| {
            // Every token of the check carries the item's span, so the error points at the item.
            quote_spanned! {expr.span()=>
                const _: () = if let ::core::option::Option::Some(message) =
                    &__phi_duplicate_name(__PHI_NAMES, __PHI_LABELS, &__PHI_EARLIER, #index)
                {
                    ::core::panic!("{}", message.as_str())
                };
            }
        });
    let count = tool_fns.len();
    // The table's size: a power of two, at least twice the names, so that probes stay short.
    let slots = (2 * count).next_power_of_two();
    quote! {
        use #krate::__private::duplicate_name as __phi_duplicate_name;
        const __PHI_NAMES: &[&str; #count] = &[#(#names),*];
        const __PHI_LABELS: &[&str] = &[#(#labels),*];
        const __PHI_EARLIER: [usize; #count] =
            #krate::__private::earlier_duplicates::<#count, #slots>(__PHI_NAMES);
        #(#checks)*
    }
}

//! One `#[tool]` method: its receiver, and the fn it is read as.
//!
//! The method is turned into the free fn it would be without its receiver and handed to the fn
//! parser and validator, so that its parameters, keys and description follow `#[phi_tool]`'s
//! rules exactly. What only a method can get wrong is checked here, each with its fix.

use proc_macro2::TokenStream;
use syn::punctuated::Punctuated;
use syn::{Attribute, FnArg, GenericArgument, ImplItemFn, PathArguments, ReceiverKind, Type};

use crate::errors::Errors;
use crate::tool::callee::{Receiver, mentions};
use crate::tool::parse::{Parsed, ToolAttr, ToolFn};

/// Whether `attr` is `#[tool]` / `#[tool(..)]` (or `#[phi_agent::tool(..)]`).
pub(crate) fn is_tool_attr(attr: &Attribute) -> bool {
    let path = attr.path();
    path.is_ident("tool")
        || (path.segments.len() == 2
            && path.segments[0].ident == "phi_agent"
            && path.segments[1].ident == "tool")
}

/// Whether `attr` is `#[phi_tool]` (the fn attribute, misplaced on a method).
pub(crate) fn is_phi_tool_attr(attr: &Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|segment| segment.ident == "phi_tool")
}

/// A `#[tool]` method, parsed: the keys and the fn the validator reads, and how it takes `self`.
pub(crate) struct ToolMethod {
    pub(crate) parsed: Parsed,
    pub(crate) receiver: Receiver,
}

/// Parses `method` (its `#[tool]` attribute already removed and given as `tool_attr`), recording
/// every problem in `errors`. `generic_params` are the impl's type and const parameters, which a
/// parameter type may not name.
pub(crate) fn parse(
    method: &ImplItemFn,
    tool_attr: &Attribute,
    generic_params: &[String],
    errors: &mut Errors,
) -> ToolMethod {
    let attr = ToolAttr::parse(attr_tokens(tool_attr, errors), "#[tool(..)]", errors);
    let receiver = receiver(method, errors);
    let sig = &method.sig;
    if sig.asyncness.is_none() {
        errors.push(syn::Error::new_spanned(
            sig.fn_token,
            "a tool method must be `async fn`: write `async fn`, and move blocking work into `tokio::task::spawn_blocking` (or make it a free `#[phi_tool]` fn, which runs on the blocking pool)",
        ));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.push(syn::Error::new_spanned(
            &sig.generics,
            "a tool method cannot be generic: the model's arguments are decoded into one concrete type; use concrete types here (the impl itself may be generic)",
        ));
    }

    // The fn the method would be without its receiver: the fn front end's input.
    let mut sig = sig.clone();
    sig.generics = Default::default();
    sig.inputs = sig
        .inputs
        .into_iter()
        .filter(|input| matches!(input, FnArg::Typed(_)))
        .collect::<Punctuated<_, _>>();
    let item = syn::ItemFn {
        attrs: method.attrs.clone(),
        vis: method.vis.clone(),
        modifiers: method.modifiers.clone(),
        sig,
        block: Box::new(method.block.clone()),
    };
    let func = ToolFn::parse(item, errors);
    check_types(&func, generic_params, errors);
    ToolMethod {
        parsed: Parsed { attr, func },
        receiver,
    }
}

/// The tokens inside `#[tool(..)]`; none for `#[tool]`.
fn attr_tokens(attr: &Attribute, errors: &mut Errors) -> TokenStream {
    match &attr.meta {
        syn::Meta::Path(_) => TokenStream::new(),
        syn::Meta::List(list) => list.tokens.clone(),
        syn::Meta::NameValue(nv) => {
            errors.push(syn::Error::new_spanned(
                nv,
                "write `#[tool]`, or `#[tool(key = value, ..)]` with the keys of `#[phi_tool]`",
            ));
            TokenStream::new()
        }
    }
}

/// `&self` or `self: Arc<Self>`; anything else is reported with the reason and the fix.
fn receiver(method: &ImplItemFn, errors: &mut Errors) -> Receiver {
    let Some(receiver) = method.sig.receiver() else {
        errors.push(syn::Error::new_spanned(
            &method.sig.ident,
            "a tool method takes `&self` or `self: Arc<Self>`; a tool without state is a free fn with `#[phi_tool]`",
        ));
        return Receiver::Ref;
    };
    let shared = "tools are called concurrently and share one receiver";
    let problem = match &receiver.kind {
        ReceiverKind::Reference(_, _, Some(_)) => format!(
            "a tool method cannot take `&mut self`: {shared}; take `&self` and keep mutable state behind a `Mutex` or an atomic"
        ),
        ReceiverKind::Reference(_, _, None) => return Receiver::Ref,
        ReceiverKind::Value => format!(
            "a tool method cannot take `self` by value: {shared}; take `&self`, or `self: Arc<Self>` to keep a handle"
        ),
        ReceiverKind::Typed(_, ty) => match &**ty {
            Type::Reference(reference) if reference.mutability.is_none() => return Receiver::Ref,
            Type::Reference(_) => format!(
                "a tool method cannot take `&mut Self`: {shared}; take `&self` and keep mutable state behind a `Mutex` or an atomic"
            ),
            ty if is_arc_of_self(ty) => return Receiver::Arc,
            _ => format!(
                "a tool method takes `&self` or `self: Arc<Self>`: the tool holds its receiver in an `Arc` ({shared})"
            ),
        },
        _ => format!("a tool method takes `&self` or `self: Arc<Self>` ({shared})"),
    };
    errors.push(syn::Error::new_spanned(receiver, problem));
    Receiver::Ref
}

/// `Arc<Self>` (any path ending in `Arc`).
fn is_arc_of_self(ty: &Type) -> bool {
    let Type::Path(path) = ty else { return false };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return false;
    };
    last.ident == "Arc"
        && args.args.len() == 1
        && matches!(&args.args[0], GenericArgument::Type(Type::Path(inner)) if inner.path.is_ident("Self"))
}

/// The argument struct and the output are named outside the impl, where `Self` and the impl's
/// parameters mean nothing: say so on the type.
fn check_types(func: &ToolFn, generic_params: &[String], errors: &mut Errors) {
    for arg in func.args() {
        let ty = &arg.ty;
        let tokens = quote::quote!(#ty);
        if mentions(tokens.clone(), &|ident| ident == "Self") {
            errors.push(syn::Error::new_spanned(
                ty,
                "a tool parameter cannot name `Self`: the arguments are a struct of their own; write the type's name",
            ));
        } else if let Some(param) = generic_params
            .iter()
            .find(|param| mentions(tokens.clone(), &|ident| ident == param.as_str()))
        {
            errors.push(syn::Error::new_spanned(
                ty,
                format!(
                    "a tool parameter cannot use the impl's parameter `{param}`: the arguments (and their schema) are one concrete type for every `{param}`; use a concrete type"
                ),
            ));
        }
    }
    if let syn::ReturnType::Type(_, ty) = &func.item.sig.output
        && mentions(quote::quote!(#ty), &|ident| ident == "Self")
    {
        errors.push(syn::Error::new_spanned(
            ty,
            "a tool method's return type cannot name `Self` (in the generated tool, `Self` is the tool): write the type's name",
        ));
    }
}

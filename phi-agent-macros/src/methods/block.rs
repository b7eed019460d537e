//! A `#[phi_tools]` impl block: its keys, its self type and its `#[tool]` methods, validated into
//! the tools the fn generator emits.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{FnArg, GenericParam, Ident, ImplItem, ItemImpl, LitStr, Path};

use super::{method, shape};
use crate::errors::Errors;
use crate::keys::{self, attribute_keys};
use crate::naming;
use crate::tool::callee::{Callee, MethodCallee};
use crate::tool::generate;
use crate::tool::validate::{self, Tool};

attribute_keys! {
    /// The keys of `#[phi_tools(..)]`.
    struct BlockAttr for "#[phi_tools(..)]" {
        /// The name of the fn returning the block's tools; default `tools`. A type with two
        /// `#[phi_tools]` blocks gives the second another name.
        "tools_fn" => tools_fn: Option<LitStr>,
        /// Where phi-agent is, for every tool of the block (a `#[tool(crate = ..)]` wins).
        "crate" => krate: Option<Path>,
    }
}

/// A parsed and validated block.
pub(crate) struct Block {
    /// The impl as it is emitted: `#[tool]` and the macro's parameter attributes removed.
    item: ItemImpl,
    tools: Vec<Tool>,
    krate: Path,
    tools_fn: Ident,
    /// The self type's name, the stem of the generated names.
    type_ident: Ident,
    /// Every method meant as a tool (marked `#[tool]`, or `#[phi_tool]` by mistake), whether
    /// or not it had errors: on error each still gets a stand-in constructor, so that
    /// `tools![store.lookup]` adds no error of its own to the block's.
    meant: Vec<Ident>,
}

impl Block {
    /// Parses and validates the block, recording every problem in `errors`.
    pub(crate) fn parse(attr: TokenStream, mut item: ItemImpl, errors: &mut Errors) -> Block {
        let attr: BlockAttr = match errors.handle(darling::ast::NestedMeta::parse_meta_list(attr)) {
            Some(items) => keys::parse(items, errors),
            None => BlockAttr::default(),
        };
        let krate = attr
            .krate
            .clone()
            .unwrap_or_else(|| syn::parse_quote!(::phi_agent));
        let tools_fn = match &attr.tools_fn {
            Some(name) => match name.parse::<Ident>() {
                Ok(ident) => ident,
                Err(_) => {
                    errors.push(syn::Error::new_spanned(
                        name,
                        "`tools_fn` names a fn: write an identifier, e.g. `tools_fn = \"admin_tools\"`",
                    ));
                    Ident::new("tools", name.span())
                }
            },
            None => Ident::new("tools", proc_macro2::Span::call_site()),
        };
        if let Some((path, _)) = &item.trait_ {
            errors.push(syn::Error::new_spanned(
                path,
                "`#[phi_tools]` goes on an inherent impl (`impl Store { .. }`), not a trait impl: tools are looked up by name, not through a trait; move the `#[tool]` methods to an `impl Store` block",
            ));
        }
        if let Some(lifetime) = item.generics.lifetimes().next() {
            errors.push(syn::Error::new_spanned(
                lifetime,
                "a `#[phi_tools]` impl cannot have lifetime parameters: each tool holds its receiver for as long as it is registered (`'static`); own the data, or share it in an `Arc`",
            ));
        }
        let type_ident = self_type_ident(&item.self_ty, errors);
        let generic_params: Vec<String> = item
            .generics
            .params
            .iter()
            .filter_map(|param| match param {
                GenericParam::Type(ty) => Some(ty.ident.to_string()),
                GenericParam::Const(c) => Some(c.ident.to_string()),
                GenericParam::Lifetime(_) => None,
            })
            .collect();

        let mut tools: Vec<Tool> = Vec::new();
        let mut meant = Vec::new();
        for impl_item in &mut item.items {
            let ImplItem::Fn(method_item) = impl_item else {
                continue;
            };
            if method_item
                .attrs
                .iter()
                .any(|a| method::is_phi_tool_attr(a) || method::is_tool_attr(a))
            {
                meant.push(method_item.sig.ident.clone());
            }
            if let Some(misplaced) = method_item
                .attrs
                .iter()
                .find(|a| method::is_phi_tool_attr(a))
            {
                errors.push(syn::Error::new_spanned(
                    misplaced,
                    "inside `#[phi_tools]`, mark a tool method with `#[tool]` (it takes the same keys as `#[phi_tool]`)",
                ));
            }
            method_item.attrs.retain(|a| !method::is_phi_tool_attr(a));
            let Some(position) = method_item.attrs.iter().position(method::is_tool_attr) else {
                continue;
            };
            let tool_attr = method_item.attrs.remove(position);
            if let Some(again) = method_item.attrs.iter().position(method::is_tool_attr) {
                errors.push(syn::Error::new_spanned(
                    &method_item.attrs[again],
                    "a method takes one `#[tool(..)]`; put every key in the first",
                ));
                method_item.attrs.retain(|a| !method::is_tool_attr(a));
            }
            let mut parsed = method::parse(method_item, &tool_attr, &generic_params, errors);
            if parsed.parsed.attr.krate.is_none() {
                parsed.parsed.attr.krate = attr.krate.clone();
            }
            let mut tool = validate::validate(parsed.parsed, errors);
            let method_ident = &tool.func.item.sig.ident;
            let stem = format!(
                "{type_ident}{}",
                naming::pascal_case(&naming::unraw(method_ident))
            );
            tool.tool_type = Ident::new(&stem, method_ident.span());
            tool.args_type = Ident::new(&format!("{stem}Args"), method_ident.span());
            tool.callee = Callee::Method(Box::new(MethodCallee {
                self_ty: (*item.self_ty).clone(),
                generics: item.generics.clone(),
                receiver: parsed.receiver,
                label: format!("{type_ident}::{}", naming::unraw(method_ident)),
            }));
            // The method is emitted with its parameters as the fn parser left them (the
            // attributes the macro owns are removed) and its receiver as written.
            let receiver = method_item
                .sig
                .inputs
                .iter()
                .find(|input| matches!(input, FnArg::Receiver(_)))
                .cloned();
            method_item.sig.inputs = receiver
                .into_iter()
                .chain(tool.func.item.sig.inputs.iter().cloned())
                .collect();
            if let Some(earlier) = tools.iter().find(|earlier| earlier.name == tool.name) {
                let span = tool
                    .attr
                    .name
                    .as_ref()
                    .map(|name| name.span())
                    .unwrap_or_else(|| method_ident.span());
                errors.push(syn::Error::new(
                    span,
                    format!(
                        "two tools of this block are named `{}` (the other is the method `{}`); give one another name with `#[tool(name = \"...\")]`",
                        tool.name,
                        earlier.func.item.sig.ident
                    ),
                ));
            }
            tools.push(tool);
        }
        if tools.is_empty() && errors.is_empty() {
            errors.push(syn::Error::new_spanned(
                &item.self_ty,
                "this `#[phi_tools]` block has no `#[tool]` method: mark each method that is a tool with `#[tool]` (with a doc comment, its description)",
            ));
        }
        Block {
            item,
            tools,
            krate,
            tools_fn,
            type_ident,
            meant,
        }
    }

    /// The impl with its constructors and `tools()`, then each tool's items.
    pub(crate) fn generate(&self) -> TokenStream {
        let mut item = self.item.clone();
        let added = shape::block_items(&self.tools, &self.krate, &self.tools_fn, &item.generics);
        item.items.push(ImplItem::Verbatim(added));
        let assertion = self
            .item
            .generics
            .params
            .is_empty()
            .then(|| shape::receiver_assertion(&self.item.self_ty, &self.krate));
        let methods: Vec<&Ident> = self.tools.iter().map(|t| &t.func.item.sig.ident).collect();
        let markers = shape::method_markers(
            &self.item.self_ty,
            &self.type_ident,
            &self.tools_fn,
            &self.item.generics,
            &methods,
            &self.krate,
        );
        let tools = self.tools.iter().map(generate::tool);
        quote! {
            #assertion
            #item
            #markers
            #(#tools)*
        }
    }

    /// The impl with a `tools()` that returns nothing, and a stand-in constructor for each
    /// method meant as a tool.
    pub(crate) fn fallback(&self) -> TokenStream {
        let mut item = self.item.clone();
        if item.trait_.is_none() {
            let stand_in = shape::stand_in_tools_fn(&self.krate, &self.tools_fn);
            item.items.push(ImplItem::Verbatim(stand_in));
            let constructors = shape::stand_in_constructors(&self.krate, &self.meant);
            item.items.push(ImplItem::Verbatim(constructors));
        }
        item.into_token_stream()
    }
}

/// `Store` for `Store<B>` or `crate::db::Store`: the stem of the generated types' names.
fn self_type_ident(ty: &syn::Type, errors: &mut Errors) -> Ident {
    if let syn::Type::Path(path) = ty
        && path.qself.is_none()
        && let Some(last) = path.path.segments.last()
    {
        return Ident::new(&naming::unraw(&last.ident), last.ident.span());
    }
    errors.push(syn::Error::new_spanned(
        ty,
        "`#[phi_tools]` goes on an impl of a named struct or enum of your crate (`impl Store { .. }`)",
    ));
    Ident::new("Tools", proc_macro2::Span::call_site())
}

//! The items a method tool has and a fn tool does not: the tool type holding its receiver, the
//! constructor `tools![store.lookup]` calls, and the block's `tools()`.
//!
//! Everything else about a method tool (arguments, schema, `TypedTool` impl) comes from the fn
//! generator in `tool::generate`, which asks here only for these pieces.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Generics, Ident, Path, WhereClause};

use crate::tool::callee::{Callee, MethodCallee};
use crate::tool::validate::Tool;

/// `StoreLookup(Arc<Store>)`, its `Clone` and its `NAME`.
pub(crate) fn tool_struct(tool: &Tool, method: &MethodCallee, doc: &str) -> TokenStream {
    let vis = &tool.func.item.vis;
    let tool_type = &tool.tool_type;
    let name = &tool.name;
    let self_ty = &method.self_ty;
    let generics = &method.generics;
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    quote! {
        #[doc = #doc]
        // The impl's bounds may name the user's private traits; the field is private either way.
        #[allow(private_bounds, private_interfaces)]
        #vis struct #tool_type #generics (::std::sync::Arc<#self_ty>) #where_clause;

        #[automatically_derived]
        impl #impl_generics ::core::clone::Clone for #tool_type #type_generics #where_clause {
            fn clone(&self) -> Self {
                Self(::std::sync::Arc::clone(&self.0))
            }
        }

        #[automatically_derived]
        impl #impl_generics #tool_type #type_generics #where_clause {
            /// The tool's name, as the model sees it.
            #vis const NAME: &'static str = #name;
        }
    }
}

/// The `where` clause of a method tool's `TypedTool` impl: the impl's own, plus (for a generic
/// impl) that the receiver may be shared across calls, which the tool needs for every choice of
/// the parameters. A fn tool's is left as it is.
pub(crate) fn shared_bound(callee: &Callee, where_clause: Option<&WhereClause>) -> TokenStream {
    match callee {
        Callee::Method(method) if !method.generics.params.is_empty() => {
            let self_ty = &method.self_ty;
            let predicates = where_clause.into_iter().flat_map(|w| &w.predicates);
            quote! {
                where #(#predicates,)* #self_ty: ::core::marker::Send + ::core::marker::Sync + 'static
            }
        }
        _ => quote!(#where_clause),
    }
}

/// `__phi_tool_lookup`: what `tools![store.lookup]` calls on `store`'s `Arc`.
pub(crate) fn constructor_ident(method: &Ident) -> Ident {
    format_ident!("__phi_tool_{}", crate::naming::unraw(method))
}

/// The items added to the user's impl block: one hidden constructor per tool and `tools()`
/// (or the name given with `tools_fn`) returning them all.
pub(crate) fn block_items(
    tools: &[Tool],
    krate: &Path,
    tools_fn: &Ident,
    generics: &Generics,
) -> TokenStream {
    let bound = (!generics.params.is_empty())
        .then(|| quote!(where Self: ::core::marker::Send + ::core::marker::Sync + 'static));
    // Public whatever the method's visibility, and typed `Arc<dyn Tool>`, so that a block in
    // another module can be listed in `tools![]` without naming its (private) tool types.
    let constructors = tools.iter().map(|tool| {
        let ident = constructor_ident(&tool.func.item.sig.ident);
        let tool_type = &tool.tool_type;
        let doc = format!(" The `{}` tool, holding `self`.", tool.name);
        quote! {
            #[doc = #doc]
            #[doc(hidden)]
            pub fn #ident(self: ::std::sync::Arc<Self>) -> ::std::sync::Arc<dyn #krate::Tool> #bound {
                #krate::__private::IntoTypedTool::into_typed_tool(#tool_type(self))
            }
        }
    });
    // Through the constructors, so that each tool's `typed_tool` is compiled once.
    let all = tools.iter().map(|tool| {
        let ident = constructor_ident(&tool.func.item.sig.ident);
        quote!(Self::#ident(::std::sync::Arc::clone(&self)))
    });
    let names = tools
        .iter()
        .map(|tool| format!("`{}`", tool.name))
        .collect::<Vec<_>>()
        .join(", ");
    let doc = format!(
        " The tools of this `#[phi_tools]` block ({names}), each holding a clone of `self`; register them with `AgentBuilder::register_tools`."
    );
    quote! {
        #(#constructors)*
        #[doc = #doc]
        pub fn #tools_fn(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::std::sync::Arc<dyn #krate::Tool>> #bound {
            ::std::vec![#(#all),*]
        }
    }
}

/// A marker type per tool method, named as the method, in a hidden module of its own, and
/// `Self: ToolMethod<marker>` for each: what `tools![store.lokup]` lists when a name is wrong (see
/// `__private::ToolMethod`). Each impl is spanned on its method's name, where rustc points.
pub(crate) fn method_markers(
    self_ty: &syn::Type,
    type_ident: &Ident,
    tools_fn: &Ident,
    generics: &Generics,
    methods: &[&Ident],
    krate: &Path,
) -> TokenStream {
    // One module per block: a type's second block has another `tools_fn`.
    let module = format_ident!("__phi_tool_methods_{}_{}", type_ident, tools_fn);
    let (impl_generics, _, where_clause) = generics.split_for_impl();
    let markers = methods.iter().map(|method| quote!(pub struct #method;));
    let impls = methods.iter().map(|method| {
        quote_spanned! {method.span()=>
            #[automatically_derived]
            impl #impl_generics #krate::__private::ToolMethod<#module::#method> for #self_ty #where_clause {
                type Tool = ::std::sync::Arc<dyn #krate::Tool>;
            }
        }
    });
    quote! {
        #[doc(hidden)]
        // `unnameable_types`: the markers are reachable through the impls, never named outside.
        #[allow(non_snake_case, non_camel_case_types, dead_code, unnameable_types)]
        mod #module {
            #(#markers)*
        }
        #(#impls)*
    }
}

/// On error, a `tools()` that returns nothing, so that the program's calls of it add no errors.
pub(crate) fn stand_in_tools_fn(krate: &Path, tools_fn: &Ident) -> TokenStream {
    quote! {
        #[doc(hidden)]
        pub fn #tools_fn(self: ::std::sync::Arc<Self>) -> ::std::vec::Vec<::std::sync::Arc<dyn #krate::Tool>> {
            ::std::vec::Vec::new()
        }
    }
}

/// On error, a constructor for each method meant as a tool, so that `tools![store.lookup]`
/// adds no error to the block's own (never called: the program does not build).
pub(crate) fn stand_in_constructors(krate: &Path, methods: &[Ident]) -> TokenStream {
    let constructors = methods.iter().map(|method| {
        let ident = constructor_ident(method);
        quote! {
            #[doc(hidden)]
            pub fn #ident(self: ::std::sync::Arc<Self>) -> ::std::sync::Arc<dyn #krate::Tool> {
                ::core::unreachable!("the `#[phi_tools]` block did not compile")
            }
        }
    });
    quote!(#(#constructors)*)
}

/// For a non-generic impl, a check spanned on the self type that it can be shared by concurrent
/// calls, in our words (a generic impl states the bound on its tools instead). Emitted before
/// the tools, so that it is the first error rustc reports.
pub(crate) fn receiver_assertion(self_ty: &syn::Type, krate: &Path) -> TokenStream {
    quote_spanned! {self_ty.span()=>
        const _: ::core::option::Option<#krate::__private::Receiver<#self_ty>> = ::core::option::Option::None;
    }
}

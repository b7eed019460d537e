//! Code generation for `#[phi_tool]`, from the validated model.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, LitStr, Path};

use super::options::{Exposure, ToolOptions};
use super::signature::{DefaultValue, Param, Returns, ToolFn};
use crate::errors::Errors;
use crate::naming;

/// Everything code generation needs, derived from the options and the fn.
pub(crate) struct Model<'a> {
    options: &'a ToolOptions,
    tool: &'a ToolFn,
    krate: Path,
    name: String,
    description: String,
    tool_type: Ident,
    args_type: Ident,
}

impl<'a> Model<'a> {
    /// Derives names and the description, recording what is wrong with them.
    pub(crate) fn new(options: &'a ToolOptions, tool: &'a ToolFn, errors: &mut Errors) -> Self {
        let fn_ident = &tool.item.sig.ident;
        let name = match &options.name {
            Some(name) => {
                if let Some(problem) = naming::tool_name_problem(&name.value()) {
                    errors.push(syn::Error::new_spanned(
                        name,
                        invalid_name(&name.value(), &problem),
                    ));
                }
                name.value()
            }
            None => {
                let name = naming::unraw(fn_ident);
                if let Some(problem) = naming::tool_name_problem(&name) {
                    errors.push(syn::Error::new_spanned(
                        fn_ident,
                        invalid_name(&name, &problem),
                    ));
                }
                name
            }
        };
        let description = match (&options.description, &tool.doc) {
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
                errors.push(
                    syn::Error::new_spanned(fn_ident, format!(
                        "tool `{name}` has no description: the model reads it to decide when to call the tool; add a doc comment (`/// What the tool does`) above the fn, or `#[phi_tool(description = \"...\")]`"
                    )),
                );
                String::new()
            }
        };
        Model {
            options,
            tool,
            krate: options
                .krate
                .clone()
                .unwrap_or_else(|| syn::parse_quote!(::phi_agent)),
            name,
            description,
            tool_type: naming::tool_type_ident(fn_ident),
            args_type: naming::args_type_ident(fn_ident),
        }
    }
}

fn invalid_name(name: &str, problem: &str) -> String {
    format!(
        "invalid tool name `{name}`: {problem}; use 1 to 64 characters from `a-z A-Z 0-9 _ -` so every provider accepts it"
    )
}

/// The complete expansion: the fn, the arguments struct, the tool type and its `TypedTool` impl.
pub(crate) fn tool(model: &Model) -> TokenStream {
    let item = &model.tool.item;
    let args_struct = args_struct(model);
    let tool_struct = tool_struct(model);
    let assertions = assertions(model);
    let typed_tool = typed_tool_impl(model);
    quote! {
        #item
        #args_struct
        #tool_struct
        #[doc(hidden)]
        const _: () = {
            #assertions
            #typed_tool
        };
    }
}

/// What is emitted on error: the fn (so the IDE keeps working) and, unless the fn is a method, a
/// stand-in tool type so that `tools![..]` naming it adds no error of its own.
pub(crate) fn fallback(model: &Model) -> TokenStream {
    let item = &model.tool.item;
    if item.sig.receiver().is_some() {
        return item.to_token_stream();
    }
    let tool_struct = tool_struct(model);
    let krate = &model.krate;
    let tool_type = &model.tool_type;
    quote! {
        #item
        #tool_struct
        #[doc(hidden)]
        const _: () = {
            #[#krate::__private::async_trait]
            impl #krate::Tool for #tool_type {
                fn name(&self) -> &'static str {
                    Self::NAME
                }
                fn description(&self) -> &'static str {
                    ""
                }
                fn schema(&self) -> #krate::__private::serde_json::Value {
                    #krate::__private::serde_json::Value::Null
                }
                async fn call(
                    &self,
                    _: &#krate::__private::serde_json::Value,
                    _: &#krate::ToolContext,
                ) -> #krate::AgentResult<::std::vec::Vec<#krate::Content>> {
                    ::core::result::Result::Err(#krate::AgentError::tool("this tool did not compile"))
                }
            }
        };
    }
}

fn args_struct(model: &Model) -> TokenStream {
    let krate = &model.krate;
    let vis = &model.tool.item.sig_vis();
    let args_type = &model.args_type;
    let serde_crate = LitStr::new(
        &quote!(#krate::__private::serde).to_string(),
        Span::call_site(),
    );
    let schemars_crate = LitStr::new(
        &quote!(#krate::__private::schemars).to_string(),
        Span::call_site(),
    );
    let mut default_fns = Vec::new();
    let fields = model.tool.args().map(|arg| {
        let ident = &arg.ident;
        let ty = &arg.ty;
        let attrs = &arg.field_attrs;
        let rename = arg
            .rename
            .as_ref()
            .map(|name| quote!(#[serde(rename = #name)]));
        let default = arg.default.as_ref().map(|default| match default {
            DefaultValue::Trait => quote!(#[serde(default)]),
            DefaultValue::Expr(expr) => {
                let default_fn = format_ident!("__phi_default_{}", naming::unraw(ident));
                default_fns.push(quote_spanned! {expr.span()=>
                    #[doc(hidden)]
                    fn #default_fn() -> #ty {
                        #expr
                    }
                });
                let path = LitStr::new(&format!("{args_type}::{default_fn}"), Span::call_site());
                quote!(#[serde(default = #path)])
            }
        });
        quote! {
            #(#attrs)*
            #rename
            #default
            #vis #ident: #ty
        }
    });
    let fields: Vec<_> = fields.collect();
    let defaults = (!default_fns.is_empty()).then(|| {
        quote! {
            #[automatically_derived]
            impl #args_type {
                #(#default_fns)*
            }
        }
    });
    quote! {
        // No doc comment: it would become the schema's description.
        #[allow(missing_docs)]
        #[derive(#krate::__private::serde::Deserialize, #krate::__private::schemars::JsonSchema)]
        #[serde(crate = #serde_crate)]
        #[schemars(crate = #schemars_crate)]
        #vis struct #args_type {
            #(#fields,)*
        }
        #defaults
    }
}

fn tool_struct(model: &Model) -> TokenStream {
    let vis = model.tool.item.sig_vis();
    let tool_type = &model.tool_type;
    let name = &model.name;
    let doc = format!(
        " The `{name}` tool, generated by `#[phi_tool]` from the fn `{}`.",
        naming::unraw(&model.tool.item.sig.ident)
    );
    quote! {
        #[doc = #doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::default::Default)]
        #vis struct #tool_type;

        #[automatically_derived]
        impl #tool_type {
            /// The tool's name, as the model sees it.
            #vis const NAME: &'static str = #name;
        }
    }
}

/// Spanned trait-bound checks, so that a wrong type is reported on the user's own token.
fn assertions(model: &Model) -> TokenStream {
    let krate = &model.krate;
    let output = model.tool.returns.ok_type().map(|ty| {
        quote_spanned! {ty.span()=>
            const _: () = #krate::__private::assert_output::<#ty>();
        }
    });
    let strict = model.options.strict;
    let params = model.tool.args().map(|arg| {
        let ty = &arg.ty;
        let strict = strict.then(|| {
            quote_spanned! {ty.span()=>
                const _: () = #krate::__private::assert_strict::<#ty>();
            }
        });
        quote_spanned! {ty.span()=>
            const _: () = #krate::__private::assert_parameter::<#ty>();
            #strict
        }
    });
    quote! {
        #(#params)*
        #output
    }
}

fn typed_tool_impl(model: &Model) -> TokenStream {
    let krate = &model.krate;
    let tool_type = &model.tool_type;
    let args_type = &model.args_type;
    let description = &model.description;
    let output_type = match &model.tool.returns {
        Returns::Unit => quote!(()),
        Returns::Plain(ty) => ty.to_token_stream(),
        Returns::Result { ok: Some(ok), .. } => ok.to_token_stream(),
        Returns::Result { ty, ok: None } => {
            quote_spanned!(ty.span()=> <#ty as #krate::__private::ToolResult>::Ok)
        }
    };
    let call = call_body(model);
    let timeout = model.options.timeout_ms.map(|ms| {
        quote! {
            fn timeout_ms(&self) -> ::core::option::Option<u64> {
                ::core::option::Option::Some(#ms)
            }
        }
    });
    let metadata = metadata_fn(model);
    let exposure = match model.options.exposure {
        Exposure::Direct => None,
        Exposure::Deferred => Some(quote!(Deferred)),
        Exposure::Hidden => Some(quote!(Hidden)),
    }
    .map(|variant| {
        quote! {
            fn exposure(&self) -> #krate::ToolExposure {
                #krate::ToolExposure::#variant
            }
        }
    });
    let annotations = annotations_fn(model);
    let activation = should_activate_fn(model);
    quote! {
        #[automatically_derived]
        #[#krate::__private::async_trait]
        impl #krate::TypedTool for #tool_type {
            type Args = #args_type;
            type Output = #output_type;

            fn name(&self) -> &'static str {
                Self::NAME
            }

            fn description(&self) -> &'static str {
                #description
            }

            #call
            #timeout
            #metadata
            #exposure
            #annotations

            fn output_schema(&self) -> ::core::option::Option<#krate::__private::serde_json::Value> {
                #[allow(unused_imports)]
                use #krate::__private::{OutputSchemaFromType as _, OutputSchemaNone as _};
                (&#krate::__private::OutputSchemaProbe::<Self::Output>::new()).output_schema()
            }

            #activation
        }
    }
}

fn call_body(model: &Model) -> TokenStream {
    let krate = &model.krate;
    let args_type = &model.args_type;
    let fn_ident = &model.tool.item.sig.ident;
    let is_async = model.tool.item.sig.asyncness.is_some();
    let mut bindings = Vec::new();
    let mut call_args = Vec::new();
    for (index, param) in model.tool.params.iter().enumerate() {
        match param {
            Param::Context => call_args.push(if is_async {
                quote!(__phi_ctx)
            } else {
                quote!(&__phi_ctx)
            }),
            Param::Arg(arg) => {
                let field = &arg.ident;
                let binding = format_ident!("__phi_arg_{}", index);
                bindings.push(quote!(#field: #binding));
                call_args.push(binding.to_token_stream());
            }
        }
    }
    let result = match &model.tool.returns {
        // Spanned on the return type: an error type without `Display` is reported there.
        Returns::Result { ty, .. } => quote_spanned! {ty.span()=>
            <#ty as #krate::__private::ToolResult>::into_agent_result(__phi_output)
        },
        Returns::Unit | Returns::Plain(_) => quote!(::core::result::Result::Ok(__phi_output)),
    };
    let run = if is_async {
        quote! {
            let __phi_output = #fn_ident(#(#call_args),*).await;
            #result
        }
    } else {
        // The error is converted on the blocking thread, so it need not be `Send`
        // (`Box<dyn Error>` is common in plain fns).
        let takes_context = model
            .tool
            .params
            .iter()
            .any(|param| matches!(param, Param::Context));
        let context =
            takes_context.then(|| quote!(let __phi_ctx = ::core::clone::Clone::clone(__phi_ctx);));
        quote! {
            #context
            #krate::__private::run_blocking(move || {
                let __phi_output = #fn_ident(#(#call_args),*);
                #result
            })
            .await
        }
    };
    quote! {
        #[allow(unused_variables)]
        async fn call_typed(
            &self,
            __phi_args: #args_type,
            __phi_ctx: &#krate::ToolContext,
        ) -> #krate::AgentResult<Self::Output> {
            let #args_type { #(#bindings),* } = __phi_args;
            #run
        }
    }
}

fn metadata_fn(model: &Model) -> TokenStream {
    let krate = &model.krate;
    let origin = match &model.options.origin {
        Some(origin) => origin.to_token_stream(),
        None => quote!(::core::env!("CARGO_PKG_NAME")),
    };
    let version = match &model.options.version {
        Some(version) => version.to_token_stream(),
        None => quote!(::core::env!("CARGO_PKG_VERSION")),
    };
    let requirements = &model.options.requirements;
    // One call of a shared helper rather than the struct literal: less code per tool to expand,
    // type-check and compile.
    quote! {
        fn metadata(&self) -> #krate::ToolMetadata {
            #krate::__private::tool_metadata(
                Self::NAME,
                #krate::TypedTool::description(self),
                #origin,
                #version,
                &[#(#requirements),*],
            )
        }
    }
}

fn annotations_fn(model: &Model) -> Option<TokenStream> {
    let krate = &model.krate;
    let options = model.options;
    let hints = [
        ("read_only", options.read_only),
        ("destructive", options.destructive),
        ("idempotent", options.idempotent),
        ("open_world", options.open_world),
    ];
    if hints.iter().all(|(_, value)| value.is_none()) {
        return None;
    }
    let fields = hints.iter().filter_map(|(field, value)| {
        let field = Ident::new(field, Span::call_site());
        value.map(|value| quote!(#field: ::core::option::Option::Some(#value)))
    });
    Some(quote! {
        #[allow(clippy::needless_update)]
        fn annotations(&self) -> #krate::ToolAnnotations {
            #krate::ToolAnnotations {
                #(#fields,)*
                ..::core::default::Default::default()
            }
        }
    })
}

fn should_activate_fn(model: &Model) -> Option<TokenStream> {
    let krate = &model.krate;
    let options = model.options;
    if options.requires_tools.is_empty() && options.activate_when.is_none() {
        return None;
    }
    let required = &options.requires_tools;
    let predicate = options.activate_when.as_ref().map(|path| {
        quote! {
            && {
                #[allow(unused_imports)]
                use #krate::__private::{ActivateAsync as _, ActivateSync as _};
                #krate::__private::Activation::new(#path(__phi_ctx)).resolve().await
            }
        }
    });
    Some(quote! {
        async fn should_activate(&self, __phi_ctx: &#krate::ActivationContext) -> bool {
            true #(&& __phi_ctx.has_tool(#required))* #predicate
        }
    })
}

/// The fn's visibility, which the generated types share.
trait SigVis {
    fn sig_vis(&self) -> &syn::Visibility;
}

impl SigVis for syn::ItemFn {
    fn sig_vis(&self) -> &syn::Visibility {
        &self.vis
    }
}

//! Code generation for `#[phi_tool]`, from the validated [`Tool`]. Nothing here checks anything:
//! every rule was applied before.
//!
//! The expansion (after the user's fn or impl, which the front end emits) is the public items (the arguments struct, the tool struct
//! and its `NAME`), then one `const _: () = { .. }` block with everything else. Inside that block
//! the runtime is named through one alias, `_phi` (`use ::phi_agent as _phi;`, or the path given
//! with `crate = ..`), so that the generated impls read like hand-written ones; the public items
//! outside it spell the full path, since an alias there would be visible to the user's module.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, LitStr};

use super::callee::Callee;
use super::parse::example::Example;
use super::parse::{
    Callers, Concurrency, DefaultValue, Exposure, MaxResult, NeedsApproval, Param, RateKey,
    RateUnit, Returns, TaskMode,
};
use super::validate::Tool;
use crate::naming;

/// The tool's items: the arguments struct, the tool type and its `TypedTool` impl. The user's fn
/// or method is emitted by the front end.
pub(crate) fn tool(tool: &Tool) -> TokenStream {
    let args_struct = args_struct(tool);
    let tool_struct = tool_struct(tool);
    let defaults = default_fns(tool);
    let assertions = assertions(tool);
    let typed_tool = typed_tool_impl(tool);
    let krate = &tool.krate;
    quote! {
        #args_struct
        #tool_struct
        #[doc(hidden)]
        const _: () = {
            use #krate as _phi;
            #defaults
            #assertions
            #typed_tool
        };
    }
}

/// What is emitted for a fn on error, after the fn (so the IDE keeps working): unless the fn is a
/// method, a stand-in tool type so that `tools![..]` naming it adds no error of its own.
pub(crate) fn fallback(tool: &Tool) -> TokenStream {
    if tool.func.item.sig.receiver().is_some() {
        return TokenStream::new();
    }
    let tool_struct = tool_struct(tool);
    let krate = &tool.krate;
    let tool_type = &tool.tool_type;
    quote! {
        #tool_struct
        #[doc(hidden)]
        const _: () = {
            use #krate as _phi;
            // A `TypedTool`, as the real one is: `tools![]` hands `#[phi_tool]` fns to the
            // registry through `IntoTypedTool`.
            #[_phi::__private::async_trait]
            impl _phi::TypedTool for #tool_type {
                type Args = ();
                type Output = ();
                fn name(&self) -> &'static str {
                    Self::NAME
                }
                fn description(&self) -> &'static str {
                    ""
                }
                async fn call_typed(
                    &self,
                    _: (),
                    _: &_phi::ToolContext,
                ) -> _phi::AgentResult<()> {
                    ::core::result::Result::Err(_phi::AgentError::tool("this tool did not compile"))
                }
            }
        };
    }
}

/// The arguments struct: one field per parameter the model fills in. It is public (its schema is
/// the tool's), so it stays outside the `const _` block and names serde and schemars in full.
fn args_struct(tool: &Tool) -> TokenStream {
    let krate = &tool.krate;
    let vis = &tool.func.item.vis;
    let args_type = &tool.args_type;
    let serde_crate = LitStr::new(
        &quote!(#krate::__private::serde).to_string(),
        Span::call_site(),
    );
    let schemars_crate = LitStr::new(
        &quote!(#krate::__private::schemars).to_string(),
        Span::call_site(),
    );
    let fields = tool.func.args().map(|arg| {
        let ident = &arg.ident;
        let ty = &arg.ty;
        let attrs = &arg.field_attrs;
        let rename = arg
            .rename
            .as_ref()
            .map(|name| quote!(#[serde(rename = #name)]));
        let default = arg.default.as_ref().map(|default| match default {
            DefaultValue::Trait => quote!(#[serde(default)]),
            DefaultValue::Expr(_) => {
                let path = format!("{args_type}::{}", default_fn_ident(ident));
                let path = LitStr::new(&path, Span::call_site());
                quote!(#[serde(default = #path)])
            }
        });
        // SEP-2243: the property says which `Mcp-Param-*` header mirrors it. Only the MCP
        // dialect keeps the key; every provider dialect strips `x-mcp-*`.
        let header = arg
            .header
            .as_ref()
            .map(|name| quote!(#[schemars(extend("x-mcp-header" = #name))]));
        quote! {
            #(#attrs)*
            #rename
            #default
            #header
            #vis #ident: #ty
        }
    });
    // What the schema forbids, decoding refuses: with `deny_unknown_fields` an unknown field is
    // an error (not silently dropped, so `limt` is not read as "no limit given"), and schemars
    // writes the same rule into the schema as `additionalProperties: false`. serde cannot refuse
    // unknown fields next to a flattened one, so such a struct stays open, and its schema says so.
    let closed = (!has_flattened_field(tool)).then(|| quote!(#[serde(deny_unknown_fields)]));
    // An example written as a value of this struct is sent as JSON, so it must serialize; only
    // then, so that no other tool asks its parameter types for `Serialize`.
    let serialize = tool
        .attr
        .examples
        .0
        .iter()
        .any(|example| matches!(example, Example::Expr(_)))
        .then(|| quote!(#krate::__private::serde::Serialize,));
    quote! {
        // No doc comment: it would become the schema's description.
        #[allow(missing_docs)]
        #[derive(#serialize #krate::__private::serde::Deserialize, #krate::__private::schemars::JsonSchema)]
        #[serde(crate = #serde_crate)]
        #closed
        #[schemars(crate = #schemars_crate)]
        #vis struct #args_type {
            #(#fields,)*
        }
    }
}

/// Whether a parameter carries `#[serde(flatten)]`.
fn has_flattened_field(tool: &Tool) -> bool {
    tool.func.args().any(|arg| {
        arg.field_attrs.iter().any(|attr| {
            attr.path().is_ident("serde")
                && attr.meta.require_list().is_ok_and(|list| {
                    list.tokens
                        .clone()
                        .into_iter()
                        .any(|token| matches!(token, TokenTree::Ident(ident) if ident == "flatten"))
                })
        })
    })
}

/// `__phi_default_days` for the parameter `days`.
fn default_fn_ident(param: &Ident) -> Ident {
    format_ident!("__phi_default_{}", naming::unraw(param))
}

/// The fns that serde calls for `#[phi(default = expr)]`, each spanned on its expression so that
/// a type mismatch is reported there.
fn default_fns(tool: &Tool) -> Option<TokenStream> {
    let args_type = &tool.args_type;
    let fns: Vec<_> = tool
        .func
        .args()
        .filter_map(|arg| match &arg.default {
            Some(DefaultValue::Expr(expr)) => {
                let default_fn = default_fn_ident(&arg.ident);
                let ty = &arg.ty;
                Some(quote_spanned! {expr.span()=>
                    #[doc(hidden)]
                    fn #default_fn() -> #ty {
                        #expr
                    }
                })
            }
            _ => None,
        })
        .collect();
    (!fns.is_empty()).then(|| {
        quote! {
            #[automatically_derived]
            impl #args_type {
                #(#fns)*
            }
        }
    })
}

/// The tool type and its `NAME`: public, so outside the `const _` block.
fn tool_struct(tool: &Tool) -> TokenStream {
    let vis = &tool.func.item.vis;
    let tool_type = &tool.tool_type;
    let name = &tool.name;
    let doc = format!(
        " The `{name}` tool, generated by {}.",
        tool.callee.source(&tool.func.item.sig.ident)
    );
    if let Callee::Method(method) = &tool.callee {
        return crate::methods::shape::tool_struct(tool, method, &doc);
    }
    let krate = &tool.krate;
    quote! {
        #[doc = #doc]
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::default::Default)]
        #vis struct #tool_type;

        #[automatically_derived]
        impl #tool_type {
            /// The tool's name, as the model sees it.
            #vis const NAME: &'static str = #name;
        }

        // For the name check of `tools![]`, which reads it through a `const fn`.
        #[automatically_derived]
        impl #krate::__private::ToolFnName for #tool_type {
            const NAME: &'static str = #name;
        }
    }
}

/// Spanned trait-bound checks, so that a wrong type is reported on the user's own token: one
/// `const` item per tool with one call per type (each call spanned on its type), rather than an
/// item per type.
fn assertions(tool: &Tool) -> TokenStream {
    // A type that names the impl's generic parameters is checked by the `TypedTool` impl instead.
    let output = tool.func.returns.ok_type().filter(|ty| tool.callee.is_concrete(ty)).map(|ty| {
        quote_spanned! {ty.span()=>
            const _: ::core::option::Option<_phi::__private::Output<#ty>> = ::core::option::Option::None;
        }
    });
    let strict = tool.attr.strict;
    let params = tool.func.args().map(|arg| {
        let ty = &arg.ty;
        let strict = strict.then(|| {
            quote_spanned! {ty.span()=>
                _phi::__private::assert_strict::<#ty>();
            }
        });
        let header = arg.header.as_ref().map(|_| {
            quote_spanned! {ty.span()=>
                const _: ::core::option::Option<_phi::__private::Header<#ty>> = ::core::option::Option::None;
            }
        });
        quote_spanned! {ty.span()=>
            const _: ::core::option::Option<_phi::__private::Parameter<#ty>> = ::core::option::Option::None;
            #strict
            #header
        }
    });
    quote! {
        const _: () = {
            #(#params)*
            #output
        };
    }
}

fn typed_tool_impl(tool: &Tool) -> TokenStream {
    let tool_type = &tool.tool_type;
    let args_type = &tool.args_type;
    let description = &tool.description;
    let output_type = match &tool.func.returns {
        Returns::Unit => quote!(()),
        Returns::Plain(ty) => ty.to_token_stream(),
        Returns::Result { ok: Some(ok), .. } => ok.to_token_stream(),
        Returns::Result { ty, ok: None } => {
            quote_spanned!(ty.span()=> <#ty as _phi::__private::ToolResult>::Ok)
        }
    };
    let call = call_body(tool);
    let timeout = tool.attr.timeout.as_ref().map(|timeout| {
        let ms = timeout.0;
        quote! {
            fn timeout_ms(&self) -> ::core::option::Option<u64> {
                ::core::option::Option::Some(#ms)
            }
        }
    });
    let metadata = metadata_fn(tool);
    let exposure = match tool.exposure {
        Exposure::Direct => None,
        Exposure::Deferred => Some(quote!(Deferred)),
        Exposure::Hidden => Some(quote!(Hidden)),
    }
    .map(|variant| {
        quote! {
            fn exposure(&self) -> _phi::ToolExposure {
                _phi::ToolExposure::#variant
            }
        }
    });
    let activation = should_activate_fn(tool);
    let options = options_fn(tool);
    let generics = tool.callee.generics();
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    let where_clause = crate::methods::shape::shared_bound(&tool.callee, where_clause);
    // No `#[async_trait]`: the async methods are written out as it would expand them (see
    // `boxed_async_fn`), which spares the compiler an attribute macro re-reading every tool's impl.
    quote! {
        #[automatically_derived]
        impl #impl_generics _phi::TypedTool for #tool_type #type_generics #where_clause {
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
            #activation
            #options
        }
    }
}

/// `fn options`: every property beyond the reference page's methods as one value, built from
/// the output type's schema (probed: `None` unless it has an object schema) and one setter per
/// key the user wrote. One data value rather than a method per property keeps the expansion
/// small, whatever the number of properties.
fn options_fn(tool: &Tool) -> TokenStream {
    let attr = &tool.attr;
    let mut setters = Vec::new();
    if let Some(budget) = attr.max_result {
        let (unit, amount) = match budget {
            MaxResult::Bytes(bytes) => (quote!(Bytes), bytes),
            MaxResult::Tokens(tokens) => (quote!(Tokens), tokens),
        };
        // Unsuffixed, so that it is read as a `usize`.
        let amount = proc_macro2::Literal::u64_unsuffixed(amount);
        setters.push(quote!(.with_max_result(_phi::ResultBudget::#unit(#amount))));
    }
    let callers = match attr.callers {
        None | Some(Callers::Both) => None,
        Some(Callers::Direct) => Some(quote!(Direct)),
        Some(Callers::Code) => Some(quote!(Code)),
    };
    if let Some(variant) = callers {
        setters.push(quote!(.with_callers(_phi::ToolCallers::#variant)));
    }
    setters.extend(annotations_setter(tool));
    setters.extend(input_examples_setter(tool));
    if let Some(task) = attr.task {
        let variant = match task {
            TaskMode::Optional => quote!(Optional),
            TaskMode::Required => quote!(Required),
        };
        setters.push(quote!(.with_task_support(_phi::TaskSupport::#variant)));
    }
    if attr.ask_before_task == Some(true) {
        setters.push(quote!(.with_ask_before_task(true)));
    }
    if let Some(uri) = &attr.ui {
        setters.push(quote!(.with_ui_resource(#uri)));
    }
    setters.extend(requires_tools_setter(tool));
    setters.extend(approval_setter(tool));
    setters.extend(limits_setter(tool));
    quote! {
        fn options(&self) -> _phi::ToolOptions {
            #[allow(unused_imports)]
            use _phi::__private::{OutputSchemaFromType as _, OutputSchemaNone as _};
            _phi::__private::tool_options((&_phi::__private::Probe::<Self::Output>::new()).output_schema())
                #(#setters)*
        }
    }
}

/// `needs_approval`: every call (`ToolApproval::Always`), or the calls for which the user's
/// predicate holds over the decoded arguments (`approval_when`), spanned on its path so that a
/// fn of the wrong signature is reported there with the signature expected. A tool that never
/// asks keeps the default, and the registry answers for it without decoding the arguments.
fn approval_setter(tool: &Tool) -> Option<TokenStream> {
    match tool.attr.needs_approval.as_ref()? {
        NeedsApproval::Always(false) => None,
        NeedsApproval::Always(true) => Some(quote!(.with_approval(_phi::ToolApproval::Always))),
        NeedsApproval::When(path) => {
            let rule = quote_spanned! {path.span()=>
                _phi::__private::approval_when::<Self::Args, _, _>(#path)
            };
            Some(quote!(.with_approval(#rule)))
        }
    }
}

fn call_body(tool: &Tool) -> TokenStream {
    let args_type = &tool.args_type;
    let fn_ident = &tool.func.item.sig.ident;
    let is_async = tool.func.item.sig.asyncness.is_some();
    let mut bindings = Vec::new();
    let mut call_args = Vec::new();
    for (index, param) in tool.func.params.iter().enumerate() {
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
    let call = tool.callee.call(fn_ident, &call_args);
    let params = quote!(__phi_args: #args_type, __phi_ctx: &'__phi_ref _phi::ToolContext);
    let output = quote!(_phi::AgentResult<Self::Output>);
    let call_typed = if is_async {
        // The fn's own future, handed to a shared generic fn that boxes it and converts its
        // output: no `async move` block per tool for the compiler to check (see
        // `phi_agent::__private::boxed_call`). The conversion is spanned on the return type: an
        // error type without `Display` is reported there.
        let boxed = match &tool.func.returns {
            // The return type picks how (see `phi_agent::__private::Probe`): a fn that
            // returns `AgentResult<T>` has its future boxed as it is, with no future around it.
            // The conversion is spanned on the return type: an error type without `Display` is
            // reported there.
            Returns::Result { ty, .. } => {
                let convert = quote_spanned! {ty.span()=>
                    _phi::__private::ToolResult::into_agent_result
                };
                quote! {{
                    #[allow(unused_imports)]
                    use _phi::__private::{ReturnsAgentResult as _, ReturnsOther as _};
                    (&_phi::__private::Probe::<#ty>::new()).boxed(#call, #convert)
                }}
            }
            Returns::Unit | Returns::Plain(_) => {
                quote!(_phi::__private::boxed_call(#call, ::core::result::Result::Ok))
            }
        };
        boxed_fn(
            quote!(call_typed),
            params,
            output,
            quote! {
                let #args_type { #(#bindings),* } = __phi_args;
                #boxed
            },
        )
    } else {
        let result = match &tool.func.returns {
            // Spanned on the return type: an error type without `Display` is reported there.
            Returns::Result { ty, .. } => quote_spanned! {ty.span()=>
                <#ty as _phi::__private::ToolResult>::into_agent_result(__phi_output)
            },
            Returns::Unit | Returns::Plain(_) => quote!(::core::result::Result::Ok(__phi_output)),
        };
        // The error is converted on the blocking thread, so it need not be `Send`
        // (`Box<dyn Error>` is common in plain fns).
        let takes_context = tool
            .func
            .params
            .iter()
            .any(|param| matches!(param, Param::Context));
        let context =
            takes_context.then(|| quote!(let __phi_ctx = ::core::clone::Clone::clone(__phi_ctx);));
        boxed_async_fn(
            quote!(call_typed),
            params,
            output,
            quote! {
                let #args_type { #(#bindings),* } = __phi_args;
                #context
                _phi::__private::run_blocking(move || {
                    let __phi_output = #call;
                    #result
                })
                .await
            },
        )
    };
    quote! {
        #[allow(unused_variables)]
        #call_typed
    }
}

/// An `async fn` of an `#[async_trait]` trait, written the way `async_trait` expands it: a fn
/// returning the boxed future of an `async move` block, with the trait's lifetimes (`self` and
/// every reference parameter, here one lifetime `'__phi_ref` for all of them, outlive the
/// future). `params` follow `self` and may name `'__phi_ref`.
fn boxed_async_fn(
    name: TokenStream,
    params: TokenStream,
    output: TokenStream,
    body: TokenStream,
) -> TokenStream {
    boxed_fn(
        name,
        params,
        output,
        quote!(::std::boxed::Box::pin(async move { #body })),
    )
}

/// A method of an `#[async_trait]` trait whose `body` gives the boxed future itself; see
/// [`boxed_async_fn`].
fn boxed_fn(
    name: TokenStream,
    params: TokenStream,
    output: TokenStream,
    body: TokenStream,
) -> TokenStream {
    quote! {
        fn #name<'__phi_self, '__phi_ref, '__phi_future>(
            &'__phi_self self,
            #params
        ) -> _phi::__private::BoxFuture<'__phi_future, #output>
        where
            '__phi_self: '__phi_future,
            '__phi_ref: '__phi_future,
            Self: '__phi_future,
        {
            #body
        }
    }
}

fn metadata_fn(tool: &Tool) -> TokenStream {
    let attr = &tool.attr;
    // `env!` expands in the user's crate, so the defaults are its name and version.
    let origin = match &attr.origin {
        Some(origin) => origin.to_token_stream(),
        None => quote!(::core::env!("CARGO_PKG_NAME")),
    };
    let version = match &attr.version {
        Some(version) => version.to_token_stream(),
        None => quote!(::core::env!("CARGO_PKG_VERSION")),
    };
    let requirements = attr.requirements.iter().flat_map(|list| &list.0.items);
    // One call of a shared helper rather than the struct literal: less code per tool to expand,
    // type-check and compile.
    quote! {
        fn metadata(&self) -> _phi::ToolMetadata {
            _phi::__private::tool_metadata(
                Self::NAME,
                _phi::TypedTool::description(self),
                #origin,
                #version,
                &[#(#requirements),*],
            )
        }
    }
}

/// `sequential`, `concurrency`, `rate`: one `ToolLimits` value, through its setters (it is
/// `#[non_exhaustive]`); none written, the default. The numbers were checked non-zero when
/// parsed, and are built without an `unwrap` in the user's code.
fn limits_setter(tool: &Tool) -> Option<TokenStream> {
    let attr = &tool.attr;
    let mut setters = Vec::new();
    if attr.sequential == Some(true) {
        setters.push(quote!(.sequential()));
    }
    if let Some(Concurrency(calls)) = attr.concurrency {
        let less = proc_macro2::Literal::u64_unsuffixed(calls - 1);
        setters
            .push(quote!(.with_concurrency(::core::num::NonZeroUsize::MIN.saturating_add(#less))));
    }
    if let Some(RateKey { calls, unit }) = attr.rate {
        let per = match unit {
            RateUnit::Second => quote!(per_second),
            RateUnit::Minute => quote!(per_minute),
            RateUnit::Hour => quote!(per_hour),
        };
        let less = proc_macro2::Literal::u32_unsuffixed(calls - 1);
        setters.push(quote!(.with_rate(_phi::Rate::#per(::core::num::NonZeroU32::MIN.saturating_add(#less)))));
    }
    if setters.is_empty() {
        return None;
    }
    Some(quote! {
        .with_limits(<_phi::ToolLimits as ::core::default::Default>::default() #(#setters)*)
    })
}

fn annotations_setter(tool: &Tool) -> Option<TokenStream> {
    let attr = &tool.attr;
    let hints = [
        ("read_only", attr.read_only),
        ("destructive", attr.destructive),
        ("idempotent", attr.idempotent),
        ("open_world", attr.open_world),
    ];
    if hints.iter().all(|(_, value)| value.is_none()) {
        return None;
    }
    // Setters, not a struct literal: `ToolAnnotations` is `#[non_exhaustive]`, and this code
    // expands in the user's crate.
    let setters = hints.iter().filter_map(|(field, value)| {
        let setter = Ident::new(&format!("with_{field}"), Span::call_site());
        value.map(|value| quote!(.#setter(#value)))
    });
    Some(quote! {
        .with_annotations(<_phi::ToolAnnotations as ::core::default::Default>::default() #(#setters)*)
    })
}

/// `example = ..`: JSON as the compact text the macro wrote from it (checked here for syntax
/// and keys), an expression of the arguments struct serialized when the tool is registered
/// (spanned on the expression, so that one of another type is reported there). The registry
/// checks every example against the schema and the decoder.
fn input_examples_setter(tool: &Tool) -> Option<TokenStream> {
    let examples = &tool.attr.examples.0;
    if examples.is_empty() {
        return None;
    }
    let values = examples.iter().map(|example| match example {
        Example::Json(json) => {
            let text = json.to_text();
            quote!(_phi::__private::json_example(#text))
        }
        Example::Expr(expr) => quote_spanned! {expr.span()=>
            _phi::__private::args_example::<Self::Args>(#expr)
        },
    });
    Some(quote!(.with_input_examples(::std::vec![#(#values),*])))
}

/// `requires_tools` as data too, so that building an agent can refuse a name that is not
/// registered (the tool would never activate).
fn requires_tools_setter(tool: &Tool) -> Option<TokenStream> {
    let names: Vec<&LitStr> = tool
        .attr
        .requires_tools
        .iter()
        .flat_map(|list| &list.0.items)
        .collect();
    (!names.is_empty()).then(|| quote!(.with_requires_tools(&[#(#names),*])))
}

/// Active once every tool in `requires_tools` is and the `activate_when` predicate holds, checked
/// in that order (the predicate may be costly; the names are not).
fn should_activate_fn(tool: &Tool) -> Option<TokenStream> {
    let attr = &tool.attr;
    let required = attr
        .requires_tools
        .iter()
        .flat_map(|list| &list.0.items)
        .map(|name| quote!(__phi_ctx.has_tool(#name)));
    // The probe's traits: which one applies depends on whether the predicate is async.
    let probe_traits = attr.activate_when.as_ref().map(|_| {
        quote! {
            #[allow(unused_imports)]
            use _phi::__private::{ActivateAsync as _, ActivateSync as _};
        }
    });
    let predicate = attr
        .activate_when
        .as_ref()
        .map(|path| quote!(_phi::__private::Activation::new(#path(__phi_ctx)).resolve().await));
    let mut conditions = required.chain(predicate);
    // Always active: the trait's default (one shared ready future).
    let first = conditions.next()?;
    Some(boxed_async_fn(
        quote!(should_activate),
        quote!(__phi_ctx: &'__phi_ref _phi::ActivationContext),
        quote!(bool),
        quote! {
            #probe_traits
            #first #(&& #conditions)*
        },
    ))
}

//! `#[phi_tool]`: parse the attribute and the fn, validate them, generate the tool.

pub(crate) mod callee;
pub(crate) mod generate;
pub(crate) mod parse;
pub(crate) mod validate;

use proc_macro2::TokenStream;
use quote::quote;

use crate::errors::Errors;

/// Expands `#[phi_tool(attr)] item`.
///
/// All problems in the item are reported together. On error the user's fn is still emitted
/// (without the attributes the macro owns), together with a stand-in tool type, so that the
/// IDE keeps working and later uses of the tool do not add errors of their own.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(item) => item,
        Err(error) => {
            let error =
                syn::Error::new(error.span(), format!("`#[phi_tool]` goes on a fn: {error}"))
                    .into_compile_error();
            return quote!(#error #item);
        }
    };
    let mut errors = Errors::default();
    let parsed = parse::parse(attr, item, &mut errors);
    let tool = validate::validate(parsed, &mut errors);
    let item = &tool.func.item;
    match errors.finish() {
        Ok(()) => {
            let generated = generate::tool(&tool);
            quote!(#item #generated)
        }
        Err(errors) => {
            let fallback = generate::fallback(&tool);
            quote!(#errors #item #fallback)
        }
    }
}

#[cfg(test)]
mod snapshots;

//! `#[phi_tool]`: parse the attribute and the fn, validate them, generate the tool.

mod generate;
mod options;
mod signature;

use proc_macro2::TokenStream;
use quote::quote;

use options::ToolOptions;
use signature::ToolFn;

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
    let mut errors = crate::errors::Errors::default();
    let options = ToolOptions::parse(attr, &mut errors);
    let tool = ToolFn::parse(item, &mut errors);
    let model = generate::Model::new(&options, &tool, &mut errors);
    match errors.finish() {
        Ok(()) => generate::tool(&model),
        Err(error) => {
            let fallback = generate::fallback(&model);
            quote!(#error #fallback)
        }
    }
}

#[cfg(test)]
mod snapshots;

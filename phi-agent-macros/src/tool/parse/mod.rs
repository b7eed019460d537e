//! Parsing: the attribute's keys and the fn, as typed values.
//!
//! Parsing records what cannot even be represented (an unknown key, a timeout that is not an
//! integer, a reference parameter) and keeps going; the rules that relate one value to another
//! are `validate`'s.

mod attr;
pub(crate) mod example;
mod signature;

use proc_macro2::TokenStream;

use crate::errors::Errors;

pub(crate) use attr::{
    Callers, Concurrency, Exposure, MaxResult, NeedsApproval, RateKey, RateUnit, TaskMode, ToolAttr,
};
pub(crate) use signature::{DefaultValue, Param, Returns, ToolFn};

/// `#[phi_tool(attr)] fn ..`, parsed.
pub(crate) struct Parsed {
    /// The keys of `#[phi_tool(..)]`.
    pub(crate) attr: ToolAttr,
    /// The fn.
    pub(crate) func: ToolFn,
}

/// Parses the attribute's tokens and the fn, recording every problem in `errors`; what could be
/// understood is returned either way, so that validation and the fallback expansion can go on.
pub(crate) fn parse(attr: TokenStream, item: syn::ItemFn, errors: &mut Errors) -> Parsed {
    Parsed {
        attr: ToolAttr::parse(
            attr,
            <ToolAttr as crate::keys::AttributeKeys>::ATTRIBUTE,
            errors,
        ),
        func: ToolFn::parse(item, errors),
    }
}

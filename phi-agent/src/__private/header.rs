//! The compile-time check of a `#[phi(header = "..")]` parameter's type (SEP-2243's
//! `x-mcp-header`).
//!
//! MCP lets a header mirror only a property of type `string`, `integer` or `boolean`; a client
//! that meets any other type under `x-mcp-header` drops the whole tool (rmcp's does). Whether a
//! Rust type has such a schema cannot be read off its tokens, so the macro emits
//! `const _: Option<Header<T>> = None;` spanned on the parameter's type, and the bound below
//! names the type and the fix.

use std::marker::PhantomData;

/// A type whose value one `Mcp-Param-*` header can carry: `String`, `bool`, an integer, or an
/// `Option` of one (absent or `null` sends no header).
///
/// Floats are refused: JSON Schema's `number` is not one of the types MCP allows under
/// `x-mcp-header`, and rmcp's client drops a tool that annotates one. An `Option<T>` is served
/// to MCP clients with `T`'s plain type (not `[T, "null"]`, which clients refuse), and stays
/// optional: a call that leaves it out, or sends `null`, carries no header.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be sent as an MCP header: `#[phi(header = ..)]` takes a `String`, `bool` or integer parameter (or an `Option` of one)",
    label = "a header parameter must be `String`, `bool`, an integer or an `Option` of one",
    note = "MCP mirrors only `string`, `integer` and `boolean` properties into `Mcp-Param-*` headers (floats and structured values are refused by clients); change the type, or remove `header = ..`"
)]
pub trait HeaderParameter {}

macro_rules! header_parameters {
    // `do_not_recommend`: the error names the allowed types itself, so rustc's list of every
    // implementing type would only repeat it at length.
    ($($ty:ty),*) => {
        $(#[diagnostic::do_not_recommend] impl HeaderParameter for $ty {})*
    };
}

header_parameters!(
    String, bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);

#[diagnostic::do_not_recommend]
impl<T: HeaderParameter> HeaderParameter for Option<T> {}

/// The check as a type, `const _: Option<Header<T>> = None;`, like
/// [`Parameter`](super::Parameter).
pub struct Header<T: HeaderParameter + ?Sized>(PhantomData<T>);

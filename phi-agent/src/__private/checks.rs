//! Compile-time checks of a `#[phi_tool]` fn's parameter and output types.
//!
//! The macro emits one `const _: () = assert_*::<T>();` per type, spanned on the user's type, so
//! a failed bound is reported on that type; the traits' `#[diagnostic::on_unimplemented]` say
//! what is wrong and how to fix it.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// Implemented by every type a `#[phi_tool]` parameter may have.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: the model's JSON arguments cannot be decoded into it",
    label = "this parameter type must implement `serde::Deserialize` and `schemars::JsonSchema`",
    note = "derive both on your own types: `#[derive(serde::Deserialize, schemars::JsonSchema)]`",
    note = "borrowed types such as `&str` cannot be decoded: use an owned type such as `String`"
)]
pub trait ToolParameter {}

impl<T: DeserializeOwned + schemars::JsonSchema + Send> ToolParameter for T {}

/// Asserts at compile time that `T` can be a tool parameter; the call is spanned on the type.
pub const fn assert_parameter<T: ToolParameter>() {}

/// Implemented by every type a tool may return on success.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a tool: it does not convert to tool output",
    label = "this type must implement `serde::Serialize` (and be `Send + 'static`)",
    note = "return `String` or `&'static str` (text), `Content` or `Vec<Content>`, or any type that implements `serde::Serialize` (sent as JSON)"
)]
pub trait ToolOutput {}

impl<T: Serialize + Send + 'static> ToolOutput for T {}

/// Asserts at compile time that `T` is a valid tool output; the call is spanned on the type.
pub const fn assert_output<T: ToolOutput>() {}

/// Asserts at compile time that `T` fits OpenAI strict mode; the call is spanned on the type.
///
/// The bound is [`OpenAiStrictCompatible`](crate::schema::OpenAiStrictCompatible), the same rule
/// the OpenAI strict dialect applies at run time, so a tool that compiles with `strict` is sent in
/// strict mode.
pub const fn assert_strict<T: crate::schema::OpenAiStrictCompatible + ?Sized>() {}

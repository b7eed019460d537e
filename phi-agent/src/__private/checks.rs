//! Compile-time checks of a `#[phi_tool]` fn's parameter and output types.
//!
//! The macro emits one `const _: () = assert_*::<T>();` per type, spanned on the user's type, so
//! a failed bound is reported on that type; the traits' `#[diagnostic::on_unimplemented]` say
//! what is wrong and how to fix it.

use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

/// Implemented by every type a `#[phi_tool]` parameter may have: one trait per requirement, so
/// that a type missing both derives gets one error for each, in our words, on the type.
pub trait ToolParameter: DecodableParameter + DescribedParameter + Send {}

impl<T: DecodableParameter + DescribedParameter + Send> ToolParameter for T {}

/// A parameter type the model's JSON can be decoded into.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it does not implement `serde::Deserialize`, so the model's JSON arguments cannot be decoded into it",
    label = "this parameter type must implement `serde::Deserialize`",
    note = "derive it on your own types: `#[derive(serde::Deserialize)]`; borrowed types such as `&str` cannot be decoded: use an owned type such as `String`"
)]
pub trait DecodableParameter {}

// Not recommended: rustc then reports this trait (our words), not `Deserialize` behind it.
#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned> DecodableParameter for T {}

/// A parameter type with a JSON Schema, which is what the model is told to send.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it does not implement `schemars::JsonSchema`, so the model cannot be told its shape",
    label = "this parameter type must implement `schemars::JsonSchema`",
    note = "derive it on your own types: `#[derive(schemars::JsonSchema)]`"
)]
pub trait DescribedParameter {}

#[diagnostic::do_not_recommend]
impl<T: schemars::JsonSchema> DescribedParameter for T {}

/// Asserts at compile time that `T` can be a tool parameter; the call is spanned on the type.
/// Each unmet bound is its own error.
pub const fn assert_parameter<T: DecodableParameter + DescribedParameter + Send>() {}

/// The same check as a type, `const _: Option<Parameter<T>> = None;`: a type is checked before
/// any fn body, so these errors come before those of the serde and schemars derives.
pub struct Parameter<T: DecodableParameter + DescribedParameter + Send>(PhantomData<T>);

/// The output check as a type; see [`Parameter`].
pub struct Output<T: ToolOutput + ?Sized>(PhantomData<T>);

/// Implemented by every type a tool may return on success.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by a tool: it does not convert to tool output",
    label = "this type must implement `serde::Serialize` (and be `Send + 'static`)",
    note = "return `String` or `&'static str` (text), `Content` or `Vec<Content>`, or any type that implements `serde::Serialize` (sent as JSON)"
)]
pub trait ToolOutput {}

// Not recommended: rustc then reports this trait (our words), not `Serialize` behind it.
#[diagnostic::do_not_recommend]
impl<T: Serialize + Send + 'static> ToolOutput for T {}

/// Asserts at compile time that `T` is a valid tool output; the call is spanned on the type.
pub const fn assert_output<T: ToolOutput>() {}

/// Asserts at compile time that `T` fits OpenAI strict mode; the call is spanned on the type.
///
/// The bound is [`OpenAiStrictCompatible`](crate::schema::OpenAiStrictCompatible), the same rule
/// the OpenAI strict dialect applies at run time, so a tool that compiles with `strict` is sent in
/// strict mode.
pub const fn assert_strict<T: crate::schema::OpenAiStrictCompatible + ?Sized>() {}

//! Procedural macros for [phi-agent](https://docs.rs/phi-agent).
//!
//! Use them through `phi_agent` (`phi_agent::phi_tool`, `phi_agent::tools!`); this crate is an
//! implementation detail and its version is pinned by `phi-agent`.
//!
//! Each macro runs in stages, one module each: parse the input into typed values, validate them
//! against the macro's rules into the model code generation reads, then generate. Every stage
//! records its problems in one `errors::Errors` instead of stopping at the first, so that all
//! problems of an item are reported together, each on the token that is wrong.

mod errors;
mod keys;
mod methods;
mod naming;
mod tool;
mod tools_list;

use proc_macro::TokenStream;

/// Turns a doc-commented fn into a tool; see `phi_agent::phi_tool` for the full guide.
///
/// For `fn get_weather(..)` it generates `GetWeatherArgs` (the arguments, one field per parameter)
/// and `GetWeather` (a unit struct implementing `phi_agent::TypedTool`); the fn itself is kept
/// unchanged.
#[proc_macro_attribute]
pub fn phi_tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into()).into()
}

/// Makes one tool of each `#[tool]` method of an impl block; see `phi_agent::phi_tools`.
///
/// For `impl Store { #[tool] async fn lookup(&self, ..) }` it generates `StoreLookupArgs` and
/// `StoreLookup` (holding an `Arc<Store>`), a hidden constructor on `Store` for
/// `tools![store.lookup]`, and `Store::tools(self: Arc<Self>)` returning every tool of the block.
#[proc_macro_attribute]
pub fn phi_tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    methods::expand(attr.into(), item.into()).into()
}

/// Marks a tool method inside a `#[phi_tools]` impl block, which consumes it; anywhere else it
/// is an error that says so.
#[proc_macro_attribute]
pub fn tool(_attr: TokenStream, item: TokenStream) -> TokenStream {
    methods::stray_tool(item.into()).into()
}

/// The implementation of `phi_agent::tools!`, which passes its own crate path first
/// (`tools_with_crate!($crate; items..)`); use `phi_agent::tools!` instead.
#[doc(hidden)]
#[proc_macro]
pub fn tools(input: TokenStream) -> TokenStream {
    tools_list::expand(input.into()).into()
}

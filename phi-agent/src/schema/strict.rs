//! Checking OpenAI strict compatibility before run time.
//!
//! [`OpenAiStrictCompatible`] is the compile-time check (`#[phi_tool(strict)]` asserts it for
//! each parameter's type, so the error points at that type); [`check_openai_strict`] is the
//! run-time check for any type, user types included.

use schemars::JsonSchema;

use super::canonical::canonical_schema_for;
use super::dialect::{Dialect, to_dialect};
use super::error::DialectError;

/// A type whose schema OpenAI strict mode expresses exactly.
///
/// Implemented for the standard types that fit (integers, floats, `bool`, `String`, `PathBuf`, and
/// `Option`, `Vec`, `Box`, arrays, `Arc` of such types), and deliberately not for maps
/// (`HashMap`, `BTreeMap`: strict mode closes every object), `serde_json::Value` (strict mode
/// needs a concrete type), tuples (no positional items), `char` (no string length limits) and
/// sets (no `uniqueItems`). Implement it for your own types only after checking them with
/// [`check_openai_strict`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be expressed in OpenAI strict mode",
    label = "this parameter type has no exact OpenAI strict schema",
    note = "strict mode closes every object, requires every field and has no maps, tuples, `char` or untyped JSON values",
    note = "use a struct with named fields instead of a map or tuple, `String` instead of `char`, or drop `strict` to let this tool fall back to non-strict mode"
)]
pub trait OpenAiStrictCompatible {}

macro_rules! strict_compatible {
    ($($ty:ty),* $(,)?) => { $(impl OpenAiStrictCompatible for $ty {})* };
}

strict_compatible!(
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    f32,
    f64,
    bool,
    String,
    std::path::PathBuf,
);

impl<T: OpenAiStrictCompatible> OpenAiStrictCompatible for Option<T> {}
impl<T: OpenAiStrictCompatible> OpenAiStrictCompatible for Vec<T> {}
impl<T: OpenAiStrictCompatible + ?Sized> OpenAiStrictCompatible for Box<T> {}
impl<T: OpenAiStrictCompatible + ?Sized> OpenAiStrictCompatible for std::sync::Arc<T> {}
impl<T: OpenAiStrictCompatible, const N: usize> OpenAiStrictCompatible for [T; N] {}
impl<T: OpenAiStrictCompatible> OpenAiStrictCompatible for std::collections::VecDeque<T> {}

/// Whether `T`'s schema fits OpenAI strict mode, and if not, every field that does not and why.
///
/// ```
/// use phi_agent::schema::check_openai_strict;
/// use std::collections::HashMap;
///
/// #[derive(schemars::JsonSchema)]
/// struct Search { query: String, limit: Option<u32> }
/// assert!(check_openai_strict::<Search>().is_ok());
///
/// #[derive(schemars::JsonSchema)]
/// struct Filters { extra: HashMap<String, String> }
/// #[derive(schemars::JsonSchema)]
/// struct Find { filters: Filters }
/// let err = check_openai_strict::<Find>().unwrap_err();
/// assert_eq!(err.to_string(), "`filters.extra`: maps cannot be expressed in OpenAI strict mode");
/// ```
pub fn check_openai_strict<T: JsonSchema + ?Sized>() -> Result<(), DialectError> {
    to_dialect(&canonical_schema_for::<T>(), Dialect::OpenAiStrict).map(drop)
}

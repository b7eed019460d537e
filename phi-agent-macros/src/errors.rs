//! Collecting every problem of one macro input, so that all are reported together.

use proc_macro2::TokenStream;

/// The errors found so far, each spanned on the tokens that are wrong.
#[derive(Default)]
pub(crate) struct Errors(Vec<syn::Error>);

impl Errors {
    /// Records `error`.
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.0.push(error);
    }

    /// The value of `result`, or `None` after recording its error.
    pub(crate) fn handle<T, E: Into<syn::Error>>(&mut self, result: Result<T, E>) -> Option<T> {
        result.map_err(|error| self.push(error.into())).ok()
    }

    /// All recorded errors combined into one, if there are any.
    pub(crate) fn into_error(self) -> Option<syn::Error> {
        self.0.into_iter().reduce(|mut all, error| {
            all.combine(error);
            all
        })
    }

    /// `Ok` when nothing was recorded, else every error as `compile_error!`s.
    pub(crate) fn finish(self) -> Result<(), TokenStream> {
        if self.0.is_empty() {
            return Ok(());
        }
        Err(self.0.iter().map(syn::Error::to_compile_error).collect())
    }
}

//! Collecting every problem of one macro input, so that all are reported together.
//!
//! Every stage of every macro records into one [`Errors`] instead of returning at the first
//! problem; the entry point turns them into `compile_error!`s at the end.

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

    /// Whether nothing was recorded so far.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Ok` when nothing was recorded, else every error as `compile_error!`s.
    pub(crate) fn finish(self) -> Result<(), TokenStream> {
        if self.0.is_empty() {
            return Ok(());
        }
        Err(self.0.iter().map(syn::Error::to_compile_error).collect())
    }

    /// The messages recorded so far, in order.
    #[cfg(test)]
    pub(crate) fn messages(&self) -> Vec<String> {
        self.0.iter().map(ToString::to_string).collect()
    }
}

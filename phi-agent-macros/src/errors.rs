//! Collecting every problem of one macro input, so that all are reported together.
//!
//! Every stage of every macro records into one [`Errors`] instead of returning at the first
//! problem; the entry point turns them into `compile_error!`s at the end. A collector dropped
//! before that panics (as serde_derive's `Ctxt` does), so that a code path that forgets to report
//! is a loud bug in the macro rather than errors silently lost and a user left with a confusing
//! expansion.

use proc_macro2::TokenStream;

/// The errors found so far, each spanned on the tokens that are wrong. Must end in
/// [`finish`](Self::finish): dropping it unchecked panics.
#[derive(Default)]
pub(crate) struct Errors {
    errors: Vec<syn::Error>,
    /// Whether [`finish`](Self::finish) (or, in tests, [`messages`](Self::messages)) took the
    /// errors.
    checked: bool,
}

impl Errors {
    /// Records `error`.
    pub(crate) fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// The value of `result`, or `None` after recording its error.
    pub(crate) fn handle<T, E: Into<syn::Error>>(&mut self, result: Result<T, E>) -> Option<T> {
        result.map_err(|error| self.push(error.into())).ok()
    }

    /// Whether nothing was recorded so far.
    pub(crate) fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// `Ok` when nothing was recorded, else every error as `compile_error!`s.
    pub(crate) fn finish(mut self) -> Result<(), TokenStream> {
        self.checked = true;
        let errors = std::mem::take(&mut self.errors);
        if errors.is_empty() {
            return Ok(());
        }
        Err(errors.iter().map(syn::Error::to_compile_error).collect())
    }

    /// The messages recorded, in order; checks the collector as [`finish`](Self::finish) does.
    #[cfg(test)]
    pub(crate) fn messages(mut self) -> Vec<String> {
        self.checked = true;
        self.errors.iter().map(ToString::to_string).collect()
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        // While unwinding from another panic, a second one would abort and hide the first.
        if self.checked || std::thread::panicking() {
            return;
        }
        let first = self
            .errors
            .first()
            .map_or_else(|| "none recorded yet".to_string(), ToString::to_string);
        panic!(
            "phi-agent-macros bug: an `Errors` collector was dropped without `finish()`, losing \
             {} error(s) (first: {first}); every macro entry point must end with `errors.finish()`",
            self.errors.len()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finished_errors_become_compile_errors() {
        let mut errors = Errors::default();
        assert!(errors.is_empty());
        errors.push(syn::Error::new(proc_macro2::Span::call_site(), "wrong"));
        let tokens = errors.finish().unwrap_err().to_string();
        assert!(
            tokens.contains("compile_error") && tokens.contains("wrong"),
            "{tokens}"
        );
        assert!(Errors::default().finish().is_ok());
    }

    #[test]
    #[should_panic(expected = "dropped without `finish()`, losing 1 error(s) (first: lost)")]
    fn errors_dropped_unchecked_panic() {
        let mut errors = Errors::default();
        errors.push(syn::Error::new(proc_macro2::Span::call_site(), "lost"));
        drop(errors);
    }
}

//! The `activate_when` probe: one generated call accepts a predicate returning `bool` or a
//! future of `bool`.
//!
//! The macro cannot see the predicate's return type, so generated code wraps the value in
//! [`Activation`] and calls `.resolve()` with both traits in scope. Method resolution on the
//! concrete type picks the impl: [`ActivateSync`] is implemented on `Activation<bool>` itself and
//! found first; [`ActivateAsync`] is implemented on `&mut Activation<F>` and found by autoref when
//! the value is a future.

use std::future::{Future, Ready, ready};

/// Wraps the value of an `activate_when` predicate, so that a `bool` and a `Future<Output = bool>`
/// are both accepted (chosen by method resolution on the concrete type).
pub struct Activation<T>(Option<T>);

impl<T> Activation<T> {
    /// Wraps the predicate's return value.
    pub fn new(value: T) -> Self {
        Self(Some(value))
    }
}

/// `activate_when` returned a `bool`.
pub trait ActivateSync {
    /// The answer, as a ready future.
    fn resolve(self) -> Ready<bool>;
}

impl ActivateSync for Activation<bool> {
    fn resolve(self) -> Ready<bool> {
        ready(self.0.unwrap_or(false))
    }
}

/// `activate_when` returned a future of `bool` (an `async fn`).
pub trait ActivateAsync {
    /// The future that gives the answer.
    type Future: Future<Output = bool>;
    /// Takes the future out of the wrapper.
    fn resolve(self) -> Self::Future;
}

impl<F: Future<Output = bool>> ActivateAsync for &mut Activation<F> {
    type Future = futures_util::future::Either<F, Ready<bool>>;

    fn resolve(self) -> Self::Future {
        match self.0.take() {
            Some(future) => futures_util::future::Either::Left(future),
            None => futures_util::future::Either::Right(ready(false)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn activation_accepts_bools_and_futures() {
        assert!(Activation::new(true).resolve().await);
        assert!(!Activation::new(false).resolve().await);
        assert!(Activation::new(async { true }).resolve().await);
        assert!(!Activation::new(std::future::ready(false)).resolve().await);
    }
}

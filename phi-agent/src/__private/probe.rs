//! The probe that picks an implementation by method resolution on a concrete type.
//!
//! A trait bound cannot ask "does `T` implement `JsonSchema`?" or "is `T` phi-agent's
//! `AgentResult`?", so generated code calls a method on `&Probe<T>` with two traits in scope:
//! one implemented on `&Probe<T>` for the types it picks out, which matches the call as written,
//! and a fallback implemented on `Probe<T>` for every `T`, reached by auto-deref only when the
//! first does not apply. The tool's output schema (`output_schema`) and how its future is boxed
//! (`boxed`) are both picked this way.

use std::marker::PhantomData;

/// A probe for `T`: generated code calls a method on `&Probe<T>`, and method resolution on the
/// concrete `T` picks the impl (on `&Probe<T>` for the types it picks out, else the fallback on
/// `Probe<T>`).
pub struct Probe<T: ?Sized>(PhantomData<fn() -> T>);

impl<T: ?Sized> Probe<T> {
    /// A probe for `T`.
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<T: ?Sized> Default for Probe<T> {
    fn default() -> Self {
        Self::new()
    }
}

// Copy, so that the fallback (which takes the probe by value through auto-deref) compiles.
impl<T: ?Sized> Clone for Probe<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Probe<T> {}

//! Support for `#[phi_tools]`: the receiver checks, and taking the `Arc` that `tools![store.lookup]`
//! builds the tool from.

use std::marker::PhantomData;
use std::sync::Arc;

/// Implemented by the self types of `#[phi_tools]` impls that tools can hold.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot hold tools: its tools are called concurrently and share it",
    label = "a `#[phi_tools]` type must be `Send + Sync + 'static`",
    note = "keep mutable state behind a `Mutex`, `RwLock` or an atomic, and share handles in an `Arc`"
)]
pub trait ToolReceiver {}

// Not recommended, so that rustc reports `ToolReceiver` (our message), not the auto trait.
#[diagnostic::do_not_recommend]
impl<T: Send + Sync + 'static> ToolReceiver for T {}

/// The receiver check as a type, `const _: Option<Receiver<T>> = None;`, spanned on the impl's
/// type: a type is checked early, so this error comes before those of the tools' impls.
pub struct Receiver<T: ToolReceiver + ?Sized>(PhantomData<T>);

/// What `tools![value.method]` accepts as `value`: an `Arc` of a `#[phi_tools]` type, or a
/// reference to one. The tool gets a clone of the `Arc`.
#[diagnostic::on_unimplemented(
    message = "`tools![value.method]` needs `value` to be an `Arc` of the `#[phi_tools]` type, not `{Self}`",
    label = "the tools share this value: wrap it in an `Arc`",
    note = "write `let store = Arc::new(store);` and list `store.lookup`; or register every tool of the block with `store.tools()`"
)]
pub trait SharedReceiver {
    /// The `#[phi_tools]` type.
    type Target: ?Sized;
    /// A clone of the `Arc`.
    fn share(&self) -> Arc<Self::Target>;
}

impl<T: ?Sized> SharedReceiver for Arc<T> {
    type Target = T;
    fn share(&self) -> Arc<T> {
        Arc::clone(self)
    }
}

impl<S: SharedReceiver + ?Sized> SharedReceiver for &S {
    type Target = S::Target;
    fn share(&self) -> Arc<S::Target> {
        (**self).share()
    }
}

/// `Store: ToolMethod<lookup>`: `Store` has the `#[tool]` method `lookup`, where `lookup` is a
/// marker type `#[phi_tools]` declares for each tool method of a block, named as the method.
///
/// `tools![store.lokup]` requires `Store: ToolMethod<lokup>` of a marker it declares itself, which
/// nothing implements, so that rustc reports the misspelt name in our words and lists the
/// implementations `Store` has: the block's tool methods, as the user wrote them, which is the
/// "did you mean" (no generated name appears in it).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `#[tool]` method `{M}`",
    label = "not a `#[tool]` method of `{Self}`",
    note = "a method is a tool when it is marked `#[tool]` in a `#[phi_tools]` impl block of `{Self}` (its tool methods, if it has any, are listed below); check the spelling of `{M}`, or mark the method `#[tool]`"
)]
pub trait ToolMethod<M> {
    /// What the method's constructor returns.
    type Tool;
}

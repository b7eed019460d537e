//! `TypedTool`: a tool whose schema is derived from its argument type.

use std::sync::Arc;

use async_trait::async_trait;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::content::Content;
use crate::context::{ActivationContext, ToolContext};
use crate::error::AgentResult;
use crate::tool::{FastPath, Tool, ToolExposure, ToolMetadata, ToolOptions, TypedCall};
use crate::{decode, output, schema};

mod entry;

pub use entry::IntoTypedTool;

/// A tool with typed arguments: the JSON Schema comes from `Args` (schemars), the model's
/// arguments are decoded into `Args` before [`call_typed`](TypedTool::call_typed) runs, and the
/// output becomes content (a `String` as text, any other `Serialize` value as JSON).
///
/// Every `TypedTool` is a [`Tool`]; register it the same way.
///
/// ```
/// use phi_agent::{AgentResult, ToolContext, TypedTool};
/// use async_trait::async_trait;
/// use schemars::JsonSchema;
/// use serde::Deserialize;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct AddArgs { a: i64, b: i64 }
///
/// struct Add;
///
/// #[async_trait]
/// impl TypedTool for Add {
///     type Args = AddArgs;
///     type Output = i64;
///     fn name(&self) -> &'static str { "add" }
///     fn description(&self) -> &'static str { "Add two integers" }
///     async fn call_typed(&self, args: AddArgs, _ctx: &ToolContext) -> AgentResult<i64> {
///         Ok(args.a + args.b)
///     }
/// }
/// ```
#[async_trait]
pub trait TypedTool: Send + Sync {
    /// The arguments; their JSON Schema is what the model sees.
    type Args: DeserializeOwned + JsonSchema + Send;
    /// The result: `String` (and `&'static str`, [`Content`], `Vec<Content>`) as is, anything
    /// else serialized as JSON.
    type Output: Serialize + Send + 'static;

    /// Unique name the model uses to call the tool.
    fn name(&self) -> &'static str;

    /// What the tool does, written for the model.
    fn description(&self) -> &'static str;

    /// Runs the tool on decoded arguments.
    async fn call_typed(&self, args: Self::Args, ctx: &ToolContext) -> AgentResult<Self::Output>;

    /// See [`Tool::timeout_ms`].
    fn timeout_ms(&self) -> Option<u64> {
        None
    }

    /// See [`Tool::metadata`].
    fn metadata(&self) -> ToolMetadata {
        ToolMetadata::new(self.name(), self.description())
    }

    /// See [`Tool::exposure`].
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Direct
    }

    /// See [`Tool::should_activate`]. Default: always active.
    //
    // Written the way `#[async_trait]` expands an `async fn` (impls still write `async fn`), so
    // that the default is a ready future (its box shared by every tool) rather than an async block
    // compiled per tool.
    fn should_activate<'life0, 'life1, 'async_trait>(
        &'life0 self,
        _ctx: &'life1 ActivationContext,
    ) -> BoxFuture<'async_trait, bool>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(std::future::ready(true))
    }

    /// See [`Tool::options`]. Input examples are decoded into `Args` at registration, as a
    /// call's arguments are; an approval rule over the decoded arguments is
    /// [`ToolApproval::when_args`](crate::ToolApproval::when_args).
    ///
    /// ```
    /// use phi_agent::{AgentResult, Tool, ToolApproval, ToolContext, ToolOptions, TypedTool};
    /// use async_trait::async_trait;
    /// use schemars::JsonSchema;
    /// use serde::Deserialize;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct TransferArgs { cents: u64 }
    ///
    /// struct Transfer { limit: u64 }
    ///
    /// #[async_trait]
    /// impl TypedTool for Transfer {
    ///     type Args = TransferArgs;
    ///     type Output = String;
    ///     fn name(&self) -> &'static str { "transfer" }
    ///     fn description(&self) -> &'static str { "Transfer money" }
    ///     async fn call_typed(&self, args: TransferArgs, _ctx: &ToolContext) -> AgentResult<String> {
    ///         Ok(format!("sent {} cents", args.cents))
    ///     }
    ///     // Amounts up to the limit go through; a person approves the rest.
    ///     fn options(&self) -> ToolOptions {
    ///         let limit = self.limit;
    ///         ToolOptions::default()
    ///             .with_approval(ToolApproval::when_args(move |args: &TransferArgs, _| args.cents > limit))
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// let (approval, ctx) = (Tool::options(&Transfer { limit: 10_000 }).approval, ToolContext::default());
    /// assert!(approval.is_needed(&serde_json::json!({"cents": 50_000}), &ctx).await);
    /// assert!(!approval.is_needed(&serde_json::json!({"cents": 500}), &ctx).await);
    /// // Arguments that do not decode: no one is asked, the call fails with the argument error.
    /// assert!(!approval.is_needed(&serde_json::json!({"cents": "many"}), &ctx).await);
    /// # }
    /// ```
    fn options(&self) -> ToolOptions {
        ToolOptions::default()
    }
}

// The `dyn Tool` of every typed tool is this impl, instantiated once per tool type, so it is kept
// to what needs the type: decoding `Args` and calling `call_typed`. Its async methods are written
// as `async_trait` would expand them, so that none adds a future of its own around the one
// `TypedTool` already boxes: `call` hands the boxed `call_typed` future to `contents`, which is
// generic over the output type alone (shared by every tool with the same `Output`), and
// `should_activate` returns the typed tool's future as it is.
#[async_trait]
impl<T> Tool for T
where
    T: TypedTool,
    T::Args: 'static,
{
    fn name(&self) -> &'static str {
        TypedTool::name(self)
    }

    fn description(&self) -> &'static str {
        TypedTool::description(self)
    }

    fn schema(&self) -> Value {
        copy_of(schema::cached::<T::Args>)
    }

    fn call<'life0, 'life1, 'life2, 'async_trait>(
        &'life0 self,
        args: &'life1 Value,
        ctx: &'life2 ToolContext,
    ) -> BoxFuture<'async_trait, AgentResult<Vec<Content>>>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        'life2: 'async_trait,
        Self: 'async_trait,
    {
        self.call_within(args, ctx, usize::MAX)
    }

    fn timeout_ms(&self) -> Option<u64> {
        TypedTool::timeout_ms(self)
    }

    fn metadata(&self) -> ToolMetadata {
        TypedTool::metadata(self)
    }

    fn exposure(&self) -> ToolExposure {
        TypedTool::exposure(self)
    }

    fn should_activate<'life0, 'life1, 'async_trait>(
        &'life0 self,
        ctx: &'life1 ActivationContext,
    ) -> BoxFuture<'async_trait, bool>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        Self: 'async_trait,
    {
        TypedTool::should_activate(self, ctx)
    }

    fn options(&self) -> ToolOptions {
        TypedTool::options(self)
    }

    fn __fast_path(&self) -> FastPath<'_> {
        FastPath::Typed(self)
    }
}

impl<T> TypedCall for T
where
    T: TypedTool,
    T::Args: 'static,
{
    fn shared_schema(&self) -> Arc<Value> {
        schema::cached::<T::Args>()
    }

    fn check_arguments(&self, args: &Value) -> AgentResult<()> {
        // A match rather than `.map(drop)`: a combinator would be one more function per tool.
        match decode::arguments_within::<T::Args>(
            TypedTool::name(self),
            args,
            schema::cached::<T::Args>,
            usize::MAX,
        ) {
            Ok(_) => Ok(()),
            Err(error) => Err(error),
        }
    }

    fn should_activate<'a>(&'a self, ctx: &'a ActivationContext) -> BoxFuture<'a, bool> {
        TypedTool::should_activate(self, ctx)
    }

    fn call_within<'a>(
        &'a self,
        args: &'a Value,
        ctx: &'a ToolContext,
        max_argument_bytes: usize,
    ) -> BoxFuture<'a, AgentResult<Vec<Content>>> {
        let name = TypedTool::name(self);
        match decode::arguments_within::<T::Args>(
            name,
            args,
            schema::cached::<T::Args>,
            max_argument_bytes,
        ) {
            Ok(args) => contents(self.call_typed(args, ctx)),
            Err(error) => refused(error),
        }
    }
}

// The parts of the blanket impl that do not need the tool's type, compiled once: each per-type
// method above is then a call and little else.

/// A call refused before it ran.
fn refused<'a>(error: crate::error::AgentError) -> BoxFuture<'a, AgentResult<Vec<Content>>> {
    Box::pin(std::future::ready(Err(error)))
}

/// A copy of the shared schema `cached` returns.
fn copy_of(cached: fn() -> Arc<Value>) -> Value {
    cached().as_ref().clone()
}

/// The content of a typed tool's output, once its future is done: generic over the output type
/// only, so every tool with the same `Output` shares one copy.
fn contents<'a, O: Serialize + Send + 'static>(
    output: BoxFuture<'a, AgentResult<O>>,
) -> BoxFuture<'a, AgentResult<Vec<Content>>> {
    Box::pin(async move { output::into_contents(output.await?) })
}

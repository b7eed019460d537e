//! `TypedTool`: a tool whose schema is derived from its argument type.

use async_trait::async_trait;
use futures_util::future::BoxFuture;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::budget::ResultBudget;
use crate::content::Content;
use crate::context::{ActivationContext, ToolContext};
use crate::error::AgentResult;
use crate::tool::{TaskSupport, Tool, ToolAnnotations, ToolCallers, ToolExposure, ToolMetadata};
use crate::{decode, output, schema};

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

    /// See [`Tool::max_result`].
    fn max_result(&self) -> Option<ResultBudget> {
        None
    }

    /// See [`Tool::callers`].
    fn callers(&self) -> ToolCallers {
        ToolCallers::Both
    }

    /// See [`Tool::metadata`].
    fn metadata(&self) -> ToolMetadata {
        ToolMetadata::new(self.name(), self.description())
    }

    /// See [`Tool::exposure`].
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Direct
    }

    /// See [`Tool::annotations`].
    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::default()
    }

    /// See [`Tool::output_schema`].
    fn output_schema(&self) -> Option<Value> {
        None
    }

    /// See [`Tool::requires_tools`].
    fn requires_tools(&self) -> &'static [&'static str] {
        &[]
    }

    /// See [`Tool::input_examples`]: each is decoded into `Args` at registration, as a call's
    /// arguments are.
    fn input_examples(&self) -> Vec<Value> {
        Vec::new()
    }

    /// See [`Tool::task_support`].
    fn task_support(&self) -> TaskSupport {
        TaskSupport::Forbidden
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

    /// Whether a person must approve this call before it runs (see [`Tool::needs_approval`]).
    /// Default: no.
    ///
    /// Asked with the decoded arguments, after they decoded: arguments that do not decode get
    /// the usual argument error and no one is asked. A plain fn, so that it needs no bound on
    /// `Args`; `#[phi_tool(needs_approval = path)]` accepts an async predicate as well.
    ///
    /// ```
    /// use phi_agent::{AgentResult, ToolContext, TypedTool};
    /// use async_trait::async_trait;
    /// use schemars::JsonSchema;
    /// use serde::Deserialize;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct TransferArgs { cents: u64 }
    ///
    /// struct Transfer;
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
    ///     // Small amounts go through; a person approves the rest.
    ///     fn needs_approval(&self, args: &TransferArgs, _ctx: &ToolContext) -> bool {
    ///         args.cents > 10_000
    ///     }
    /// }
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() {
    /// use phi_agent::Tool;
    /// let ctx = ToolContext::default();
    /// assert!(Tool::needs_approval(&Transfer, &serde_json::json!({"cents": 50_000}), &ctx).await);
    /// assert!(!Tool::needs_approval(&Transfer, &serde_json::json!({"cents": 500}), &ctx).await);
    /// // Arguments that do not decode: no one is asked, the call fails with the argument error.
    /// assert!(!Tool::needs_approval(&Transfer, &serde_json::json!({"cents": "many"}), &ctx).await);
    /// # }
    /// ```
    fn needs_approval(&self, _args: &Self::Args, _ctx: &ToolContext) -> bool {
        false
    }

    /// The asynchronous form of [`needs_approval`](TypedTool::needs_approval), which is what the
    /// agent asks; its default asks `needs_approval`. `#[phi_tool]` overrides it for an async
    /// predicate. Not part of the public API: implement `needs_approval`.
    #[doc(hidden)]
    fn __needs_approval<'a>(
        &'a self,
        args: &'a Self::Args,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, bool> {
        Box::pin(std::future::ready(TypedTool::needs_approval(
            self, args, ctx,
        )))
    }

    /// Whether [`needs_approval`](TypedTool::needs_approval) is known to answer no to every
    /// call: `#[phi_tool]` says so for a tool without `needs_approval`, so that its `dyn Tool`
    /// answers without decoding, and compiles no approval future. Not part of the public API.
    #[doc(hidden)]
    const __NEVER_NEEDS_APPROVAL: bool = false;
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

    fn __canonical_schema(&self) -> Option<std::sync::Arc<Value>> {
        Some(schema::cached::<T::Args>())
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
        self.__call_within(args, ctx, usize::MAX)
    }

    fn __measures_own_arguments(&self) -> bool {
        true
    }

    fn __may_need_approval(&self) -> bool {
        !T::__NEVER_NEEDS_APPROVAL
    }

    fn __call_within<'a>(
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

    fn timeout_ms(&self) -> Option<u64> {
        TypedTool::timeout_ms(self)
    }

    fn max_result(&self) -> Option<ResultBudget> {
        TypedTool::max_result(self)
    }

    fn callers(&self) -> ToolCallers {
        TypedTool::callers(self)
    }

    fn metadata(&self) -> ToolMetadata {
        TypedTool::metadata(self)
    }

    fn exposure(&self) -> ToolExposure {
        TypedTool::exposure(self)
    }

    fn annotations(&self) -> ToolAnnotations {
        TypedTool::annotations(self)
    }

    fn output_schema(&self) -> Option<Value> {
        TypedTool::output_schema(self)
    }

    fn requires_tools(&self) -> &'static [&'static str] {
        TypedTool::requires_tools(self)
    }

    fn input_examples(&self) -> Vec<Value> {
        TypedTool::input_examples(self)
    }

    fn __check_input_example(&self, example: &Value) -> AgentResult<()> {
        decode::arguments::<T::Args>(TypedTool::name(self), example, schema::cached::<T::Args>)
            .map(drop)
    }

    fn task_support(&self) -> TaskSupport {
        TypedTool::task_support(self)
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

    /// Decodes the arguments and asks [`TypedTool::needs_approval`]. Arguments that do not
    /// decode need no approval: the call then fails with the argument error, and no person is
    /// bothered with a call that could not run anyway.
    fn needs_approval<'life0, 'life1, 'life2, 'async_trait>(
        &'life0 self,
        args: &'life1 Value,
        ctx: &'life2 ToolContext,
    ) -> BoxFuture<'async_trait, bool>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        'life2: 'async_trait,
        Self: 'async_trait,
    {
        // A constant: the branch not taken is not compiled for this tool.
        if T::__NEVER_NEEDS_APPROVAL {
            no_approval()
        } else {
            ask_approval(self, args, ctx)
        }
    }
}

/// [`Tool::needs_approval`] of a typed tool that may need it: the decoded arguments move into
/// the future, since the answer borrows them.
fn ask_approval<'a, T>(tool: &'a T, args: &Value, ctx: &'a ToolContext) -> BoxFuture<'a, bool>
where
    T: TypedTool,
    T::Args: 'static,
{
    match decode::arguments::<T::Args>(TypedTool::name(tool), args, schema::cached::<T::Args>) {
        Ok(args) => Box::pin(async move { TypedTool::__needs_approval(tool, &args, ctx).await }),
        Err(_) => no_approval(),
    }
}

// The parts of the blanket impl that do not need the tool's type, compiled once: each per-type
// method above is then a call and little else.

/// The answer of a tool that needs no approval.
fn no_approval<'a>() -> BoxFuture<'a, bool> {
    Box::pin(std::future::ready(false))
}

/// A call refused before it ran.
fn refused<'a>(error: crate::error::AgentError) -> BoxFuture<'a, AgentResult<Vec<Content>>> {
    Box::pin(std::future::ready(Err(error)))
}

/// A copy of the shared schema `cached` returns.
fn copy_of(cached: fn() -> std::sync::Arc<Value>) -> Value {
    cached().as_ref().clone()
}

/// The content of a typed tool's output, once its future is done: generic over the output type
/// only, so every tool with the same `Output` shares one copy.
fn contents<'a, O: Serialize + Send + 'static>(
    output: BoxFuture<'a, AgentResult<O>>,
) -> BoxFuture<'a, AgentResult<Vec<Content>>> {
    Box::pin(async move { output::into_contents(output.await?) })
}

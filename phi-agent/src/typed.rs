//! `TypedTool`: a tool whose schema is derived from its argument type.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::content::Content;
use crate::context::{ActivationContext, ToolContext};
use crate::error::AgentResult;
use crate::tool::{Tool, ToolAnnotations, ToolExposure, ToolMetadata};
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

    /// See [`Tool::should_activate`].
    async fn should_activate(&self, _ctx: &ActivationContext) -> bool {
        true
    }
}

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
        schema::cached::<T::Args>().as_ref().clone()
    }

    fn __canonical_schema(&self) -> Option<std::sync::Arc<Value>> {
        Some(schema::cached::<T::Args>())
    }

    async fn call(&self, args: &Value, ctx: &ToolContext) -> AgentResult<Vec<Content>> {
        let args = decode::arguments::<T::Args>(TypedTool::name(self), args, || {
            schema::cached::<T::Args>()
        })?;
        let output = self.call_typed(args, ctx).await?;
        output::into_contents(output)
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

    fn annotations(&self) -> ToolAnnotations {
        TypedTool::annotations(self)
    }

    fn output_schema(&self) -> Option<Value> {
        TypedTool::output_schema(self)
    }

    fn requires_tools(&self) -> &'static [&'static str] {
        TypedTool::requires_tools(self)
    }

    async fn should_activate(&self, ctx: &ActivationContext) -> bool {
        TypedTool::should_activate(self, ctx).await
    }
}

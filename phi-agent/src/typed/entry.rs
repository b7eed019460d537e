//! A generated tool as `tools![]` and `#[phi_tools]` hand it to the registry: its properties
//! read once, its calls behind [`TypedCall`].
//!
//! Why not the blanket `impl Tool for T: TypedTool`: the `dyn Tool` of a type instantiates every
//! method of `Tool` for that type, ten functions per tool, and a crate of a hundred
//! `#[phi_tool]` fns paid for a thousand of them in compile time. [`TypedEntry`] implements
//! `Tool` once for every tool; per tool type there remain `into_typed_tool` and the four methods of
//! `TypedCall`. A typed tool registered by value (`ToolRegistry::register`) still goes through
//! the blanket impl, and both answer alike: the registry reads a tool's properties once, at
//! registration, either way.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;

use super::TypedTool;
use crate::content::Content;
use crate::context::{ActivationContext, ToolContext};
use crate::error::AgentResult;
use crate::tool::{FastPath, Tool, ToolExposure, ToolMetadata, ToolOptions, TypedCall};

/// A typed tool's properties, as its [`TypedTool`] methods gave them, and its calls.
struct TypedEntry {
    name: &'static str,
    description: &'static str,
    timeout_ms: Option<u64>,
    metadata: ToolMetadata,
    exposure: ToolExposure,
    options: ToolOptions,
    /// A `Box`, not an `Arc`: one function less per tool type.
    calls: Box<dyn TypedCall>,
}

/// A `#[phi_tool]` fn or `#[tool]` method as the registry holds it: see the module
/// documentation; it costs less to compile per tool than the blanket `dyn Tool`. Public for the
/// macros only.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "`tools![]` expects a `#[phi_tool]` fn or a value that implements `phi_agent::Tool`",
    note = "name a `#[phi_tool]` fn by its path (`get_weather`, `weather::forecast`), or give a value whose type implements `Tool` or `TypedTool`"
)]
#[doc(hidden)]
pub trait IntoTypedTool {
    /// The tool, its properties read once.
    fn into_typed_tool(self) -> Arc<dyn Tool>;
}

/// A typed tool as the registry holds it. The one function compiled per tool type; the rest is
/// [`entry`], compiled once.
impl<T> IntoTypedTool for T
where
    T: TypedTool + 'static,
    T::Args: 'static,
{
    fn into_typed_tool(self) -> Arc<dyn Tool> {
        let properties = Properties {
            name: TypedTool::name(&self),
            description: TypedTool::description(&self),
            timeout_ms: TypedTool::timeout_ms(&self),
            metadata: TypedTool::metadata(&self),
            exposure: TypedTool::exposure(&self),
            options: TypedTool::options(&self),
        };
        entry(properties, Box::new(self))
    }
}

/// What `into_typed_tool` reads of a tool before it erases the tool's type.
struct Properties {
    name: &'static str,
    description: &'static str,
    timeout_ms: Option<u64>,
    metadata: ToolMetadata,
    exposure: ToolExposure,
    options: ToolOptions,
}

fn entry(properties: Properties, calls: Box<dyn TypedCall>) -> Arc<dyn Tool> {
    let Properties {
        name,
        description,
        timeout_ms,
        metadata,
        exposure,
        options,
    } = properties;
    Arc::new(TypedEntry {
        name,
        description,
        timeout_ms,
        metadata,
        exposure,
        options,
        calls,
    })
}

// Written as `async_trait` expands async methods, so that no future is added around the one the
// typed tool returns.
impl Tool for TypedEntry {
    fn name(&self) -> &'static str {
        self.name
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn schema(&self) -> Value {
        self.calls.shared_schema().as_ref().clone()
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
        self.calls.call_within(args, ctx, usize::MAX)
    }

    fn timeout_ms(&self) -> Option<u64> {
        self.timeout_ms
    }

    fn metadata(&self) -> ToolMetadata {
        self.metadata.clone()
    }

    fn exposure(&self) -> ToolExposure {
        self.exposure
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
        self.calls.should_activate(ctx)
    }

    fn options(&self) -> ToolOptions {
        self.options.clone()
    }

    fn __fast_path(&self) -> FastPath<'_> {
        FastPath::Typed(&*self.calls)
    }
}

//! Support for the code `#[phi_tool]` and `tools![]` generate. Hidden from the docs and not a
//! public API: anything here may change in any release, which is why `phi-agent` pins the macros
//! crate to its own exact version.
//!
//! It is public only because generated code, which lives in the user's crate, has to name it.
//! What it holds:
//! - the runtime's dependencies that generated code names (serde, schemars, serde_json,
//!   async-trait), so users depend on `phi-agent` alone;
//! - compile-time checks whose traits carry `#[diagnostic::on_unimplemented]`, so that a misuse
//!   is reported in phi-agent's words, on the user's own type;
//! - probes that pick an implementation by method resolution on the concrete type (a tool's
//!   output schema and how its future is boxed, through [`Probe`]; the kind of its
//!   `activate_when` and `needs_approval` predicates);
//! - small runtime helpers each generated tool would otherwise repeat.
//!
//! Each file below does one of these things; this module only re-exports them, so the paths
//! generated code uses (`phi_agent::__private::..`) stay flat and independent of the layout.

mod activation;
mod approval;
mod blocking;
mod boxed;
mod checks;
mod const_str;
mod examples;
mod header;
mod metadata;
mod methods;
mod options;
mod output_schema;
mod probe;
mod result;
mod tools_list;

pub use async_trait::async_trait;
pub use futures_util::future::BoxFuture;
pub use schemars;
pub use serde;
pub use serde_json;

pub use activation::{ActivateAsync, ActivateSync, Activation};
pub use approval::{
    ApprovalAnswer, ApprovalPredicate, ApprovalPredicateFn, AsyncApprovalPredicate,
    SyncApprovalPredicate, approval_when,
};
pub use blocking::run_blocking;
pub use boxed::{ReturnsAgentResult, ReturnsOther, boxed_call};
pub use checks::{
    DecodableParameter, DescribedParameter, Output, Parameter, ToolOutput, ToolParameter,
    assert_output, assert_parameter, assert_strict,
};
pub use examples::{args_example, json_example};
pub use header::{Header, HeaderParameter};
pub use metadata::tool_metadata;
pub use methods::{Receiver, SharedReceiver, ToolMethod, ToolReceiver};
pub use options::tool_options;
pub use output_schema::{OutputSchemaFromType, OutputSchemaNone};
pub use phi_agent_macros::tools as tools_with_crate;
pub use probe::Probe;
pub use result::ToolResult;
// The registry's hook into a tool (`Tool::__fast_path`), named here so that the benches can
// stand in for a typed tool.
pub use crate::tool::{FastPath, TypedCall};
pub use crate::typed::IntoTypedTool;
pub use tools_list::{
    IntoTool, ToolFnName, duplicate_name, earlier_duplicates, into_tool, tool_fn_name,
};

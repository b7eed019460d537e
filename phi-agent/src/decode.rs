//! Decoding the model's arguments into a tool's `Args`, with errors that name the JSON path.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{AgentError, AgentResult};

/// Decodes `args` into `A` for the tool `tool`.
///
/// The success path is a plain borrowed `A::deserialize(&Value)`: no copy of the value and no path
/// tracking. Only when that fails is the value decoded again with path tracking, to say where.
/// A missing arguments object (`null`) is read as `{}`, which models send for tools without
/// parameters.
pub(crate) fn arguments<A: DeserializeOwned>(tool: &str, args: &Value) -> AgentResult<A> {
    if args.is_null() {
        return arguments(tool, &Value::Object(Map::new()));
    }
    A::deserialize(args).map_err(|_| located_error::<A>(tool, args))
}

#[cold]
fn located_error<A: DeserializeOwned>(tool: &str, args: &Value) -> AgentError {
    let (path, message) = match serde_path_to_error::deserialize::<_, A>(args) {
        Err(err) => (err.path().to_string(), err.into_inner().to_string()),
        // Path tracking decoded what the plain decoder refused; report without a path.
        Ok(_) => (
            ".".to_string(),
            "the arguments could not be decoded".to_string(),
        ),
    };
    AgentError::InvalidArguments {
        tool: tool.to_string(),
        path,
        message,
    }
}

//! Decoding the model's arguments into a tool's `Args`, with errors that name the JSON path.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{AgentError, AgentResult, ROOT_PATH};

/// Decodes `args` into `A` for the tool `tool`.
///
/// The success path is a plain borrowed `A::deserialize(&Value)`: no copy of the value and no path
/// tracking. When that fails, integral floats (`3.0`) are turned into integers where `schema`
/// admits only integers (JSON Schema accepts `3.0` for an integer, so a model that follows the
/// schema must not be refused for it; see [`crate::schema::integral_floats_to_integers`]) and
/// decoding is tried once more; `schema` is read only then. Only when that fails too is the value
/// decoded again with path tracking, to say where. A missing arguments object (`null`) is read as
/// `{}`, which models send for tools without parameters.
pub(crate) fn arguments<A: DeserializeOwned>(
    tool: &str,
    args: &Value,
    schema: impl FnOnce() -> std::sync::Arc<Value>,
) -> AgentResult<A> {
    let empty;
    let args = if args.is_null() {
        empty = Value::Object(Map::new());
        &empty
    } else {
        args
    };
    if let Ok(decoded) = A::deserialize(args) {
        return Ok(decoded);
    }
    let mut repaired = args.clone();
    if crate::schema::integral_floats_to_integers(&schema(), &mut repaired)
        && let Ok(decoded) = A::deserialize(&repaired)
    {
        return Ok(decoded);
    }
    Err(located_error::<A>(tool, args))
}

#[cold]
fn located_error<A: DeserializeOwned>(tool: &str, args: &Value) -> AgentError {
    let (path, message) = match serde_path_to_error::deserialize::<_, A>(args) {
        Err(err) => {
            // serde_path_to_error writes the root as `.`; name it the way schema errors do.
            let path = match err.path().to_string() {
                path if path == "." => ROOT_PATH.to_string(),
                path => path,
            };
            (path, err.into_inner().to_string())
        }
        // Path tracking decoded what the plain decoder refused; report without a path.
        Ok(_) => (
            ROOT_PATH.to_string(),
            "the arguments could not be decoded".to_string(),
        ),
    };
    AgentError::InvalidArguments {
        tool: tool.to_string(),
        path,
        message,
    }
}

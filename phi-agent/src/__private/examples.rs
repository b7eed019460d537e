//! The input examples of a `#[phi_tool(example = ..)]`.

use serde::Serialize;
use serde_json::Value;

/// An example written as JSON, which the macro has checked and written out as compact text.
pub fn json_example(text: &str) -> Value {
    // The macro wrote this text from JSON it parsed; should it ever not read back, the value
    // fails the registration check with the text quoted rather than vanishing.
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// An example written as a value of the tool's arguments struct, as the model would send it.
pub fn args_example<A: Serialize>(args: A) -> Value {
    // Serializing fails only for a hand-written `Serialize` that refuses (or a map with keys
    // that are not strings); the registration check then reports the reason.
    serde_json::to_value(&args).unwrap_or_else(|error| {
        Value::String(format!("the example could not be serialized: {error}"))
    })
}

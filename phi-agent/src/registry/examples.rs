//! A tool's input examples
//! ([`ToolOptions::input_examples`](crate::ToolOptions::input_examples)): checked once, at
//! registration, against the schema and the decoder, then kept with the tool in the two forms
//! the adapters send: the values (Anthropic's `input_examples`) and the description with the
//! examples appended (every other provider, whose tool object has no such field).

use std::sync::Arc;

use serde_json::Value;

use crate::decode;
use crate::error::{AgentError, AgentResult};
use crate::tool::TypedCall;

/// The checked examples of one tool, shared by its registration and every spec made from it.
#[derive(Debug, PartialEq)]
pub(crate) struct InputExamples {
    values: Vec<Value>,
    /// The description followed by the examples, one compact JSON object a line: the same bytes
    /// on every turn, so that provider prompt caches hold.
    described: Box<str>,
}

impl InputExamples {
    /// `values` shown with `description`; `None` when there are none.
    pub(crate) fn new(description: &str, values: Vec<Value>) -> Option<Arc<Self>> {
        if values.is_empty() {
            return None;
        }
        let mut described = String::from(description);
        described.push_str("\n\nExamples of valid arguments:");
        for value in &values {
            described.push('\n');
            // A JSON value always serializes (string keys, finite numbers).
            described.push_str(&serde_json::to_string(value).unwrap_or_default());
        }
        Some(Arc::new(Self {
            values,
            described: described.into_boxed_str(),
        }))
    }

    /// The examples, in the tool's order.
    pub(crate) fn values(&self) -> &[Value] {
        &self.values
    }

    /// The description with the examples appended.
    pub(crate) fn described(&self) -> &str {
        &self.described
    }
}

/// A tool's examples `values`, each checked against `schema` (its canonical schema) and then by
/// a typed tool's decoder; the first that fails is the error, naming the example by its number.
pub(super) fn checked(
    typed: Option<&dyn TypedCall>,
    name: &str,
    description: &str,
    schema: &Value,
    values: Vec<Value>,
) -> AgentResult<Option<Arc<InputExamples>>> {
    for (index, example) in values.iter().enumerate() {
        let problem = match decode::check_once(schema, example) {
            Err(problem) => Some(problem),
            Ok(()) => typed
                .and_then(|typed| typed.check_arguments(example).err())
                .map(|error| match error {
                    // The decoder's words are written for the model ("call it again"); here
                    // only the place and the mistake matter.
                    AgentError::InvalidArguments { path, message, .. } => {
                        format!("at `{path}`: {message}")
                    }
                    AgentError::ArgumentMistakes { mistakes, .. } => mistakes
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("; "),
                    other => other.to_string(),
                }),
        };
        if let Some(problem) = problem {
            return Err(AgentError::InvalidInputExample {
                tool: name.to_string(),
                number: index + 1,
                problem,
            });
        }
    }
    Ok(InputExamples::new(description, values))
}

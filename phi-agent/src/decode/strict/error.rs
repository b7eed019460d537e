//! Why a value did not decode, in serde_json's words, and the path to where it stopped, written
//! only on the way out of a failure.

use serde::de::{self, Unexpected};
use serde_json::Value;

use crate::error::ROOT_PATH;

/// Why a value did not decode, and where: serde_json's message, and the path from the decoded
/// value to the one that failed.
#[derive(Debug)]
pub(crate) struct Error(Box<Failure>);

#[derive(Debug)]
struct Failure {
    message: String,
    /// Innermost first: each step is added as the error leaves it.
    path: Vec<Step>,
}

#[derive(Debug)]
enum Step {
    Field(String),
    Index(usize),
}

impl Error {
    pub(super) fn new(message: String) -> Self {
        Self(Box::new(Failure {
            message,
            path: Vec::new(),
        }))
    }

    /// A value larger or deeper than its [`Budget`](super::budget::Budget) allows. The registry tells the model which
    /// limit, from its own walk; these words are read only where no walk follows.
    #[cold]
    pub(super) fn past_limit() -> Self {
        Self::new("the arguments are larger or nested deeper than the limit allows".to_string())
    }

    #[cold]
    pub(super) fn in_field(mut self, name: &str) -> Self {
        self.0.path.push(Step::Field(name.to_string()));
        self
    }

    #[cold]
    pub(super) fn in_element(mut self, index: usize) -> Self {
        self.0.path.push(Step::Index(index));
        self
    }

    /// A field that `unknown.path` leads to and the schema closes against, in serde's words.
    #[cold]
    pub(crate) fn unknown_field(unknown: crate::decode::closed::Unknown) -> Self {
        let expected = match unknown.expected.as_slice() {
            [] => "there are no fields".to_string(),
            [one] => format!("expected `{one}`"),
            several => {
                let names: Vec<String> = several.iter().map(|name| format!("`{name}`")).collect();
                format!("expected one of {}", names.join(", "))
            }
        };
        let mut error = Self::new(format!("unknown field `{}`, {expected}", unknown.field));
        for step in unknown.path.into_iter().rev() {
            error = match step {
                crate::decode::closed::Step::Field(name) => error.in_field(&name),
                crate::decode::closed::Step::Index(index) => error.in_element(index),
            };
        }
        error
    }

    /// serde_json's words for the failure, without the path.
    pub(crate) fn message(&self) -> &str {
        &self.0.message
    }

    /// Where it failed, written as schema errors write paths: `filters.tags[1]`, or
    /// [`ROOT_PATH`] for the decoded value itself.
    pub(crate) fn path(&self) -> String {
        if self.0.path.is_empty() {
            return ROOT_PATH.to_string();
        }
        let mut path = String::new();
        for step in self.0.path.iter().rev() {
            match step {
                Step::Field(name) if path.is_empty() => path.push_str(name),
                Step::Field(name) => {
                    path.push('.');
                    path.push_str(name);
                }
                Step::Index(index) => path.push_str(&format!("[{index}]")),
            }
        }
        path
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for Error {}

impl From<serde_json::Error> for Error {
    #[cold]
    fn from(error: serde_json::Error) -> Self {
        Self::new(error.to_string())
    }
}

impl de::Error for Error {
    #[cold]
    fn custom<T: std::fmt::Display>(message: T) -> Self {
        Self::new(message.to_string())
    }

    // serde_json words these its own way (`null`, not `unit value`; floats as JSON writes them).
    #[cold]
    fn invalid_type(unexpected: Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        serde_json::Error::invalid_type(unexpected, expected).into()
    }

    #[cold]
    fn invalid_value(unexpected: Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        serde_json::Error::invalid_value(unexpected, expected).into()
    }
}

/// The value as serde names it in an "invalid type" error.
pub(super) fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => Unexpected::Unsigned(u),
            (None, Some(i), _) => Unexpected::Signed(i),
            (_, _, Some(f)) => Unexpected::Float(f),
            _ => Unexpected::Other("number"),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

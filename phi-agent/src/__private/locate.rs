//! Where a `#[phi_tool]`'s arguments failed to decode, when their schema found nothing wrong.
//!
//! The decoder of a hand-written [`TypedTool`](crate::TypedTool) is run a second time with path
//! tracking, which compiles the argument type's whole `Deserialize` a second time, against the
//! path-tracking decoder. A `#[phi_tool]` knows its parameters, so it decodes each one alone
//! instead, with the decoder every parameter type already has (the one the arguments struct
//! uses): the error names the parameter, and no second decoder is compiled per tool.

use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{AgentError, ROOT_PATH, mistakes};

/// One parameter of a `#[phi_tool]`: its name in the arguments object and a decoder of its
/// value alone, which gives the decoder's message when the value does not decode.
pub type ParameterCheck = (&'static str, fn(&Value) -> Option<String>);

/// The decoder's message for `value` as a `T`, if it does not decode.
pub fn decode_error<T: DeserializeOwned>(value: &Value) -> Option<String> {
    match T::deserialize(value) {
        Ok(_) => None,
        Err(error) => Some(error.to_string()),
    }
}

/// Picks, by method resolution on the concrete type, the check of a parameter of type `T`:
/// [`decode_error::<T>`](decode_error) when `T` decodes, and none otherwise. A parameter type
/// that does not decode is already reported once, on the type (see `assert_parameter`); asking
/// for `T: Deserialize` here would report it a second time.
pub struct ParameterProbe<T>(PhantomData<fn() -> T>);

impl<T> ParameterProbe<T> {
    /// A probe for `T`.
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<T> Default for ParameterProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

// Copy, so that the fallback (which takes the probe by value through auto-deref) compiles.
impl<T> Clone for ParameterProbe<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ParameterProbe<T> {}

/// Chosen when the parameter type decodes.
pub trait DecodeParameter {
    /// Its check.
    fn check(self) -> fn(&Value) -> Option<String>;
}

impl<T: DeserializeOwned> DecodeParameter for &ParameterProbe<T> {
    fn check(self) -> fn(&Value) -> Option<String> {
        decode_error::<T>
    }
}

/// Chosen when it does not (the tool does not compile then).
pub trait SkipParameter {
    /// No check.
    fn check(self) -> fn(&Value) -> Option<String>;
}

impl<T> SkipParameter for ParameterProbe<T> {
    fn check(self) -> fn(&Value) -> Option<String> {
        |_| None
    }
}

/// The error of arguments that did not decode although their schema found nothing wrong: at the
/// first parameter whose value does not decode alone, or else at the root with the message of
/// `whole`, the decoder of the arguments struct.
pub fn argument_error(
    tool: &str,
    args: &Value,
    parameters: &[ParameterCheck],
    whole: fn(&Value) -> Option<String>,
) -> AgentError {
    let located = parameters.iter().find_map(|(name, check)| {
        let message = check(args.get(*name)?)?;
        Some((name.to_string(), message))
    });
    let (path, message) = match located {
        Some(located) => located,
        None => match whole(args) {
            Some(message) => (ROOT_PATH.to_string(), message),
            None => (ROOT_PATH.to_string(), mistakes::arguments_not_decoded()),
        },
    };
    AgentError::InvalidArguments {
        tool: tool.to_string(),
        path,
        message: mistakes::reword_decoder_message(&message),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Args {
        trip: Trip,
        days: u8,
    }

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Trip {
        to: String,
    }

    fn error_of(args: Value) -> String {
        let parameters: &[ParameterCheck] =
            &[("trip", decode_error::<Trip>), ("days", decode_error::<u8>)];
        argument_error("plan", &args, parameters, decode_error::<Args>).to_string()
    }

    #[test]
    fn the_first_parameter_that_does_not_decode_is_named() {
        let text = error_of(json!({"trip": 5, "days": 3}));
        assert!(text.contains("at `trip`"), "{text}");
        assert!(text.contains("expected a JSON object"), "{text}");
        let text = error_of(json!({"trip": {"to": "Oslo"}, "days": 300}));
        assert!(text.contains("at `days`"), "{text}");
    }

    #[test]
    fn what_no_parameter_explains_is_reported_at_the_root() {
        let text = error_of(json!({"trip": {"to": "Oslo"}}));
        assert!(text.contains("at `(root)`: missing field `days`"), "{text}");
    }
}

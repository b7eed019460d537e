//! Decoding the model's arguments into a tool's `Args`, and, when that fails, telling the model
//! every mistake at once.
//!
//! # The success path
//!
//! A plain borrowed `A::deserialize` of a JSON object: no copy of the value, no path tracking,
//! no schema read and no validation. A call that decodes pays for nothing else. The deserializer
//! is serde_json's `&Value` with one rule more ([`strict`]): a struct is read from an object
//! only, never by position from an array, as the schema says.
//!
//! # The failure path
//!
//! 1. Integral floats (`3.0`) are read as integers where the schema admits only integers, and
//!    decoding is tried once more (JSON Schema accepts `3.0` for an integer, so a model that
//!    follows the schema must not be refused for it; see
//!    [`crate::schema::integral_floats_to_integers`]).
//! 2. The arguments are validated against the tool's canonical schema ([`validate`]), and every
//!    violation is reported, each with its JSON path and what was expected there (at most ten,
//!    then how many more): one turn of the model fixes them all.
//! 3. If the schema finds nothing wrong (a type whose `Deserialize` is stricter than its
//!    `JsonSchema`), the decoder's own first error is reported, at the path where it stopped, in
//!    words that name no Rust type. The decoder records that path as its error leaves each
//!    field and element ([`strict::Error`]), so nothing runs a second time and no second decoder
//!    is compiled per argument type.
//!
//! A missing arguments object (`null`) is read as `{}`, which models send for tools without
//! parameters.
//!
//! # Unknown fields
//!
//! The decoder decides, and the canonical schema says what the decoder does: schemars reads the
//! same serde attributes, so a type with `#[serde(deny_unknown_fields)]` (every `#[phi_tool]`
//! arguments struct has it) has `additionalProperties: false` in its canonical schema, and an
//! unknown field is refused, naming the field the model probably meant and listing the valid
//! ones.
//!
//! A hand-written [`TypedTool`](crate::TypedTool) whose `Args` accept unknown fields has an open
//! canonical schema, and an unknown field is ignored, as that schema says. MCP, Anthropic,
//! OpenAI without strict mode and Gemini show that open schema. OpenAI strict mode shows the
//! object closed, because strict mode requires every object to be; that narrowing is allowed
//! (see [`crate::schema::Dialect`]): under strict mode the provider holds the model to the
//! schema, so the field is not sent, and were it sent, ignoring it is what the tool does anyway.
//! Refusing it instead would refuse a call that the canonical schema, and so every other
//! provider, accepts. Dispatch therefore never reads a dialect schema: a call is answered the
//! same way whichever provider the model runs on.
//!
//! Wherever the canonical schema closes an object that the `Deserialize` leaves open
//! (`#[schemars(deny_unknown_fields)]` alone, a `JsonSchema` written by hand, at any depth), the
//! decoded value is checked against the schema's closed objects, and an unknown field there is
//! refused as the validator refuses it ([`closed`]). The check is skipped, at no cost per call,
//! for a type whose schema closes its root only and whose decoder refuses unknown fields there:
//! every `#[phi_tool]` whose parameter types leave unknown fields open. A nested parameter struct
//! without `deny_unknown_fields` has an open canonical schema, and an unknown field in it is
//! ignored, as that schema says; add `#[serde(deny_unknown_fields)]` to it to refuse them.
//!
//! A serde `alias` is known to the decoder only: the schema names the field by its main name.
//! A call that uses the alias decodes; if the same call has another mistake, the list reports
//! the alias as an unknown field too, and the model, sending the main name, loses nothing.

mod closed;
mod strict;
#[cfg(feature = "schema-validation")]
mod validate;

use std::any::TypeId;
use std::borrow::Cow;
use std::sync::Arc;

use serde::de::DeserializeOwned;

use serde_json::{Map, Value};

use crate::error::{AgentError, AgentResult, ROOT_PATH, mistakes};
use crate::limits;

/// Decodes `args` into `A` for the tool `tool`; `schema` (the canonical schema of `A`) is read
/// only when decoding fails. See the [module documentation](self).
///
/// Only the success path needs `A`: the decode and the closed-object check. Which values to try
/// next, the repair, the validator and its cache and the error's shape
/// ([`refused_or_repaired`]) are compiled once for all tools, not once per argument type; they
/// reach the type through one indirect call ([`Slot::decode`]).
pub(crate) fn arguments<A: DeserializeOwned + 'static>(
    tool: &str,
    args: &Value,
    schema: fn() -> Arc<Value>,
) -> AgentResult<A> {
    arguments_within(tool, args, schema, usize::MAX)
}

/// [`arguments`], for arguments the registry has not measured: longer than `max_bytes` (as
/// [`limits::measure`] counts) or nested deeper than [`limits::MAX_ARGUMENT_DEPTH`], they are
/// refused with the errors the registry's own check gives, and win over any other mistake, as
/// they do there. The decoder counts as it reads ([`strict`]), so arguments that decode are
/// walked once, not twice; the walk runs only after the decoder stops, to say why.
///
/// This function is compiled once per argument type (every tool has one), so it holds the
/// success path and nothing else: no closure, no `?` and no combinator, each of which would be
/// one more function per type. Everything after the first decode is [`after_first_decode`].
pub(crate) fn arguments_within<A: DeserializeOwned + 'static>(
    tool: &str,
    args: &Value,
    schema: fn() -> Arc<Value>,
    max_bytes: usize,
) -> AgentResult<A> {
    let args_type = TypeId::of::<A>();
    let mut slot = Slot(None);
    // The success path, without the layers the failure path needs; what stopped it is where
    // the failure path starts.
    let first = if args.is_object() {
        match strict::decode::<A>(args, max_bytes) {
            Ok(decoded) if closed::needs_no_check(args_type) => return Ok(decoded),
            Ok(decoded) => {
                slot.0 = Some(decoded);
                Ok(())
            }
            Err(error) => Err(Some(error)),
        }
    } else {
        Err(None)
    };
    match after_first_decode(tool, args, schema, max_bytes, args_type, &mut slot, first) {
        Ok(()) => match slot.0 {
            Some(decoded) => Ok(decoded),
            // `after_first_decode` answers `Ok` only once a value decoded into the slot.
            None => Err(not_decoded(tool)),
        },
        Err(error) => Err(error),
    }
}

/// What [`arguments_within`] does once the first decode is done, for any argument type: when it
/// decoded (`first` is `Ok`, the value in `slot`), the closed-object check; when it did not
/// (`first` is why, `None` when the arguments are not an object), the failure path. `slot`
/// holds the decoded value when this answers `Ok`.
fn after_first_decode(
    tool: &str,
    args: &Value,
    schema: fn() -> Arc<Value>,
    max_bytes: usize,
    args_type: TypeId,
    slot: &mut dyn Decode,
    first: Result<(), Option<strict::Error>>,
) -> AgentResult<()> {
    let failure = match first {
        Ok(()) => {
            let mut refuses = |probe: &Value| slot.refuses_probe(probe);
            match closed::unknown_field(args_type, schema, &mut refuses, args) {
                None => return Ok(()),
                // The value left in the slot is replaced if a repaired one decodes; otherwise
                // the answer is an error and the slot is dropped unread.
                Some(unknown) => Some(strict::Error::unknown_field(unknown)),
            }
        }
        Err(failure) => failure,
    };
    refused_or_repaired(tool, args, schema, max_bytes, args_type, slot, failure)
}

/// The error of a call whose arguments `args` are longer than `max_bytes` or nested deeper
/// than [`limits::MAX_ARGUMENT_DEPTH`]; `None` when they fit. The same words wherever the limits are
/// checked: the registry before a call, a typed tool's decoder after it stops.
pub(crate) fn past_limits(tool: &str, args: &Value, max_bytes: usize) -> Option<AgentError> {
    match limits::measure(args, max_bytes, limits::MAX_ARGUMENT_DEPTH) {
        limits::Measure::Fits(_) => None,
        limits::Measure::TooLarge => Some(AgentError::ArgumentsTooLarge {
            tool: tool.to_string(),
            limit: max_bytes,
        }),
        limits::Measure::TooDeep => Some(AgentError::InvalidArguments {
            tool: tool.to_string(),
            path: ROOT_PATH.into(),
            message: mistakes::arguments_too_deep(limits::MAX_ARGUMENT_DEPTH),
        }),
    }
}

/// Whether `value` fits `schema`, for a value checked once (a tool's input example at
/// registration): the validator is built for this call alone. `Err` lists every mistake, each
/// with its path. Without `schema-validation` only the root is checked (an object).
pub(crate) fn check_once(schema: &Value, value: &Value) -> Result<(), String> {
    if !value.is_object() {
        return Err(mistakes::not_an_object(value));
    }
    #[cfg(feature = "schema-validation")]
    if let Ok(validator) = jsonschema::draft202012::options().build(schema) {
        let (listed, omitted) = validate::mistakes(&validator, schema, value);
        if !listed.is_empty() {
            let mut text: Vec<String> = listed.iter().map(ToString::to_string).collect();
            if omitted > 0 {
                text.push(format!("and {omitted} more"));
            }
            return Err(text.join("; "));
        }
    }
    #[cfg(not(feature = "schema-validation"))]
    let _ = schema;
    Ok(())
}

/// Where [`arguments`] keeps what decoded.
struct Slot<A>(Option<A>);

/// One value decoded into a [`Slot`], behind a `dyn` so that [`refused_or_repaired`] is not generic.
trait Decode {
    /// Decodes `value`, refusing it past `max_bytes` or [`limits::MAX_ARGUMENT_DEPTH`].
    fn decode(&mut self, value: &Value, max_bytes: usize) -> Result<(), strict::Error>;

    /// Whether decoding `probe` (an object with the one field [`closed::PROBE_FIELD`]) fails
    /// for that field.
    fn refuses_probe(&self, probe: &Value) -> bool;
}

// Compiled once per argument type, like `arguments_within`: matches, not combinators, for the
// reason given there.
impl<A: DeserializeOwned> Decode for Slot<A> {
    fn decode(&mut self, value: &Value, max_bytes: usize) -> Result<(), strict::Error> {
        match strict::decode::<A>(value, max_bytes) {
            Ok(decoded) => {
                self.0 = Some(decoded);
                Ok(())
            }
            Err(error) => Err(error),
        }
    }

    fn refuses_probe(&self, probe: &Value) -> bool {
        match strict::decode::<A>(probe, usize::MAX) {
            Ok(_) => false,
            Err(error) => is_probe_refusal(&error),
        }
    }
}

/// Whether the decoder refused the probe's own field (see [`Decode::refuses_probe`]).
fn is_probe_refusal(error: &strict::Error) -> bool {
    error.message().starts_with("unknown field") && error.message().contains("phi_agent_probe")
}

/// `slot.decode(value)`, then unknown fields refused where the canonical schema closes an
/// object and the decoder did not ([`closed`]).
fn decode_closed(
    slot: &mut dyn Decode,
    value: &Value,
    max_bytes: usize,
    args_type: TypeId,
    schema: fn() -> Arc<Value>,
) -> Result<(), strict::Error> {
    slot.decode(value, max_bytes)?;
    let mut refuses = |probe: &Value| slot.refuses_probe(probe);
    match closed::unknown_field(args_type, schema, &mut refuses, value) {
        None => Ok(()),
        Some(unknown) => Err(strict::Error::unknown_field(unknown)),
    }
}

#[cold]
fn not_decoded(tool: &str) -> AgentError {
    AgentError::InvalidArguments {
        tool: tool.to_string(),
        path: ROOT_PATH.to_string(),
        message: "the arguments could not be decoded".to_string(),
    }
}

/// The failure path of [`arguments`] for any type, once the arguments did not decode (or are
/// not an object): `failure` is why, `slot` decodes one more value and keeps it. Past a limit,
/// that is the mistake reported; otherwise the one repaired value worth trying is tried, and
/// when that fails too, the error says every mistake.
#[cold]
fn refused_or_repaired(
    tool: &str,
    args: &Value,
    schema: fn() -> Arc<Value>,
    max_bytes: usize,
    args_type: TypeId,
    slot: &mut dyn Decode,
    mut failure: Option<strict::Error>,
) -> AgentResult<()> {
    // Past a limit, that is the mistake to report, whatever else the decoder met first.
    if args.is_object()
        && let Some(error) = past_limits(tool, args, max_bytes)
    {
        return Err(error);
    }
    let retry = Retry::new(args, schema);
    if let Some(candidate) = retry.candidate() {
        // The repair only rewrites numbers, which count the same: the limits still hold.
        match decode_closed(slot, candidate, max_bytes, args_type, schema) {
            Ok(()) => return Ok(()),
            Err(error) => failure = Some(error),
        }
    }
    Err(retry.refused(tool, args_type, failure))
}

/// The failure path of [`arguments`], the same for every argument type: the one other value
/// worth decoding (`null` read as `{}`, integral floats repaired), and the error when that fails
/// too.
struct Retry<'a> {
    args: Cow<'a, Value>,
    /// Read once decoding has failed, except for `null` (its `{}` is tried first).
    schema: Option<Arc<Value>>,
    read_schema: fn() -> Arc<Value>,
    candidate: Option<Value>,
}

impl<'a> Retry<'a> {
    #[cold]
    fn new(args: &'a Value, read_schema: fn() -> Arc<Value>) -> Self {
        if args.is_null() {
            // Nothing in `{}` to repair.
            let empty = Value::Object(Map::new());
            return Self {
                candidate: Some(empty.clone()),
                args: Cow::Owned(empty),
                schema: None,
                read_schema,
            };
        }
        let schema = read_schema();
        let mut repaired = args.clone();
        let candidate = (repaired.is_object()
            && crate::schema::integral_floats_to_integers(&schema, &mut repaired))
        .then_some(repaired);
        Self {
            args: Cow::Borrowed(args),
            schema: Some(schema),
            read_schema,
            candidate,
        }
    }

    fn candidate(&self) -> Option<&Value> {
        self.candidate.as_ref()
    }

    /// The error, given the decoder's last one (`None` when the arguments are not an object).
    #[cold]
    fn refused(self, tool: &str, args_type: TypeId, failure: Option<strict::Error>) -> AgentError {
        let schema = self.schema.unwrap_or_else(self.read_schema);
        refused(tool, &self.args, &schema, args_type, failure)
    }
}

/// Why `args` does not decode: every violation of `schema`, or else the decoder's first.
#[cold]
fn refused(
    tool: &str,
    args: &Value,
    schema: &Value,
    args_type: TypeId,
    failure: Option<strict::Error>,
) -> AgentError {
    #[cfg(feature = "schema-validation")]
    if let Some(validator) = validate::validator_for(args_type, schema)
        && let Some(error) = schema_mistakes(tool, &validator, schema, args)
    {
        return error;
    }
    // Without the validator the schema tells nothing more: the decoder's first mistake.
    #[cfg(not(feature = "schema-validation"))]
    let _ = (schema, args_type);
    let (path, message) = match failure {
        Some(error) => (
            error.path(),
            mistakes::reword_decoder_message(error.message()),
        ),
        None => (ROOT_PATH.to_string(), mistakes::not_an_object(args)),
    };
    AgentError::InvalidArguments {
        tool: tool.to_string(),
        path,
        message,
    }
}

/// Every violation of `schema` (which `validator` was built from) in `args`, as the error the
/// model reads: one mistake as [`AgentError::InvalidArguments`], several as
/// [`AgentError::ArgumentMistakes`]; `None` when `args` fits.
#[cfg(feature = "schema-validation")]
fn schema_mistakes(
    tool: &str,
    validator: &jsonschema::Validator,
    schema: &Value,
    args: &Value,
) -> Option<AgentError> {
    let (mut listed, omitted) = validate::mistakes(validator, schema, args);
    if listed.len() == 1 && omitted == 0 {
        let mistake = listed.remove(0);
        return Some(AgentError::InvalidArguments {
            tool: tool.to_string(),
            path: mistake.path,
            message: mistake.message,
        });
    }
    (!listed.is_empty()).then(|| AgentError::ArgumentMistakes {
        tool: tool.to_string(),
        mistakes: listed,
        omitted,
    })
}

/// A hand-written tool's schema, compiled once to check each call's arguments against it (see
/// [`FastPath::Plain`](crate::tool::FastPath::Plain)).
#[cfg(feature = "schema-validation")]
pub(crate) struct ArgumentCheck(jsonschema::Validator);

#[cfg(feature = "schema-validation")]
impl ArgumentCheck {
    /// The check of `schema`; `None` when the validator cannot compile it (the tool then gets
    /// its arguments unchecked, as before there was a check).
    pub(crate) fn new(schema: &Value) -> Option<Self> {
        jsonschema::draft202012::options()
            .build(schema)
            .ok()
            .map(Self)
    }

    /// Why `args` does not fit `schema` (the one this check was built from), if it does not.
    /// `null` is read as `{}`, as tools read it.
    pub(crate) fn refuse(&self, tool: &str, schema: &Value, args: &Value) -> Option<AgentError> {
        let empty;
        let args = match args {
            Value::Null => {
                empty = Value::Object(Map::new());
                &empty
            }
            args => args,
        };
        if self.0.is_valid(args) {
            return None;
        }
        // Refused even if no mistake could be put in words: what the schema forbids never runs.
        schema_mistakes(tool, &self.0, schema, args).or_else(|| {
            Some(AgentError::InvalidArguments {
                tool: tool.to_string(),
                path: ROOT_PATH.to_string(),
                message: "the arguments do not fit the tool's schema".to_string(),
            })
        })
    }
}

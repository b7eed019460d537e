//! The failure path of decoding: the arguments checked against the tool's canonical schema, so
//! that the model hears every mistake at once rather than the decoder's first.
//!
//! serde stops at the first field it cannot read; a model that fixes one mistake per turn spends
//! a turn per mistake. The JSON Schema validator reports all of them, each at its own JSON path.
//! It runs only after decoding has failed: a call that decodes never reaches this module.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use crate::error::ROOT_PATH;
use crate::error::mistakes::{self, ArgumentMistake, MAX_LISTED_MISTAKES};

/// The validator of `A`'s canonical schema `schema`, built on the first failed call of a tool
/// with that argument type and kept for the next one; `None` when the schema is not one the
/// validator can compile (the decoder's own message is used then).
pub(super) fn validator_for(args_type: TypeId, schema: &Value) -> Option<Arc<Validator>> {
    static CACHE: OnceLock<RwLock<HashMap<TypeId, Option<Arc<Validator>>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = args_type;
    if let Some(validator) = cache.read().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return validator.clone();
    }
    let validator = jsonschema::draft202012::options()
        .build(schema)
        .ok()
        .map(Arc::new);
    cache
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key)
        .or_insert(validator)
        .clone()
}

/// Every mistake in `args` against `schema` (the schema `validator` was built from): the first
/// [`MAX_LISTED_MISTAKES`] and how many more there were.
pub(super) fn mistakes(
    validator: &Validator,
    schema: &Value,
    args: &Value,
) -> (Vec<ArgumentMistake>, usize) {
    let mut found = Mistakes {
        schema,
        args,
        listed: Vec::new(),
        omitted: 0,
    };
    for error in validator.iter_errors(args) {
        found.add(&error);
    }
    (found.listed, found.omitted)
}

struct Mistakes<'a> {
    schema: &'a Value,
    args: &'a Value,
    listed: Vec<ArgumentMistake>,
    omitted: usize,
}

impl Mistakes<'_> {
    fn push(&mut self, path: String, message: impl FnOnce() -> String) {
        if self.listed.len() >= MAX_LISTED_MISTAKES {
            self.omitted += 1;
            return;
        }
        let mistake = ArgumentMistake {
            path,
            message: message(),
        };
        // Two alternatives of a union may report the same mistake.
        if !self.listed.contains(&mistake) {
            self.listed.push(mistake);
        }
    }

    fn add(&mut self, error: &ValidationError<'_>) {
        let pointer = error.instance_path().as_str();
        let path = readable_path(self.args, pointer);
        // The schema object whose keyword failed: the keyword's location less the keyword.
        let here = parent(error.schema_path().as_str()).and_then(|at| schema_at(self.schema, at));
        let schema = self.schema;
        let expected = || match here {
            Some(here) => mistakes::describe(here, schema),
            None => "a value the tool's schema allows".to_string(),
        };
        match error.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                let known: Option<Vec<&str>> = here.map(|here| {
                    here.get("properties")
                        .and_then(Value::as_object)
                        .map(|properties| properties.keys().map(String::as_str).collect())
                        .unwrap_or_default()
                });
                for name in unexpected {
                    self.push(child_path(&path, name), || match &known {
                        Some(known) => mistakes::unknown_field(name, known),
                        None => mistakes::unknown_field_unlisted(name),
                    });
                }
            }
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                let field = here
                    .and_then(|here| here.get("properties"))
                    .and_then(|properties| properties.get(name));
                let expected = field.map_or_else(
                    || "a value".to_string(),
                    |field| mistakes::describe(field, schema),
                );
                self.push(child_path(&path, name), || {
                    mistakes::missing_field(name, &expected)
                });
            }
            ValidationErrorKind::AnyOf { context }
            | ValidationErrorKind::OneOfNotValid { context } => {
                match the_fitting_alternative(context, pointer) {
                    // The value has the shape of exactly one alternative (the object of an
                    // `Option<Struct>`): its own mistakes say more than "none fits".
                    Some(errors) => errors.iter().for_each(|error| self.add(error)),
                    None => self.push(path, || {
                        mistakes::expected_found(&expected(), &mistakes::found(error.instance()))
                    }),
                }
            }
            ValidationErrorKind::OneOfMultipleValid { .. } => {
                self.push(path, || mistakes::ambiguous(&expected()))
            }
            ValidationErrorKind::FalseSchema => self.push(path, mistakes::nothing_allowed),
            ValidationErrorKind::AdditionalItems { limit } => {
                let limit = *limit;
                self.push(path, || mistakes::too_many_items(limit))
            }
            ValidationErrorKind::PropertyNames { error } => self.add(error),
            ValidationErrorKind::Type { .. }
            | ValidationErrorKind::Enum { .. }
            | ValidationErrorKind::Constant { .. }
            | ValidationErrorKind::Minimum { .. }
            | ValidationErrorKind::Maximum { .. }
            | ValidationErrorKind::ExclusiveMinimum { .. }
            | ValidationErrorKind::ExclusiveMaximum { .. }
            | ValidationErrorKind::MultipleOf { .. }
            | ValidationErrorKind::MinLength { .. }
            | ValidationErrorKind::MaxLength { .. }
            | ValidationErrorKind::MinItems { .. }
            | ValidationErrorKind::MaxItems { .. }
            | ValidationErrorKind::UniqueItems
            | ValidationErrorKind::Pattern { .. }
            | ValidationErrorKind::Format { .. } => self.push(path, || {
                mistakes::expected_found(&expected(), &mistakes::found(error.instance()))
            }),
            // The rest (`not`, `contains`, object sizes, content encodings) are rare in argument
            // schemas; the validator's own words, with any Rust name taken out.
            _ => self.push(path, || {
                mistakes::reword_decoder_message(&error.to_string())
            }),
        }
    }
}

/// The errors of the one alternative whose type fits the value at `pointer`, when exactly one
/// does; an alternative whose errors include a type mismatch at the value itself does not fit.
fn the_fitting_alternative<'c>(
    context: &'c [Vec<ValidationError<'static>>],
    pointer: &str,
) -> Option<&'c [ValidationError<'static>]> {
    let mut fitting = context.iter().filter(|errors| {
        !errors.iter().any(|error| {
            error.instance_path().as_str() == pointer
                && matches!(
                    error.kind(),
                    ValidationErrorKind::Type { .. }
                        | ValidationErrorKind::Constant { .. }
                        | ValidationErrorKind::Enum { .. }
                        | ValidationErrorKind::AnyOf { .. }
                        | ValidationErrorKind::OneOfNotValid { .. }
                )
        })
    });
    match (fitting.next(), fitting.next()) {
        (Some(only), None) if !only.is_empty() => Some(only.as_slice()),
        _ => None,
    }
}

/// The subschema at the JSON pointer `pointer` into `root`, following a `$ref` met on the way
/// (whether the pointer names the `$ref` step or goes on past it into the definition).
fn schema_at<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    let mut at = root;
    for raw in pointer.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        if segment == "$ref" {
            at = follow(root, at)?;
            continue;
        }
        at = match step(at, &segment) {
            Some(next) => next,
            None => step(follow(root, at)?, &segment)?,
        };
    }
    Some(at)
}

fn step<'a>(schema: &'a Value, segment: &str) -> Option<&'a Value> {
    match schema {
        Value::Object(map) => map.get(segment),
        Value::Array(items) => items.get(segment.parse::<usize>().ok()?),
        _ => None,
    }
}

/// The definition a schema's local `$ref` names.
fn follow<'a>(root: &'a Value, schema: &Value) -> Option<&'a Value> {
    let reference = schema.get("$ref")?.as_str()?;
    root.pointer(reference.strip_prefix('#')?)
}

/// The JSON pointer `pointer` less its last segment, `None` at the root.
fn parent(pointer: &str) -> Option<&str> {
    pointer.rfind('/').map(|at| &pointer[..at])
}

/// A JSON pointer into `args` written the way decoding errors write paths: `filters.tags[1]`,
/// [`ROOT_PATH`] for the arguments themselves. Whether a segment is an index is read off the
/// value it steps into (an object may have a field named `1`).
fn readable_path(args: &Value, pointer: &str) -> String {
    if pointer.is_empty() {
        return ROOT_PATH.to_string();
    }
    let mut path = String::new();
    let mut at = Some(args);
    for raw in pointer.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        if let Some(Value::Array(items)) = at
            && let Ok(index) = segment.parse::<usize>()
        {
            path.push_str(&format!("[{index}]"));
            at = items.get(index);
            continue;
        }
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(&segment);
        at = at.and_then(|value| value.get(segment.as_str()));
    }
    path
}

/// The path of field `name` of the object at `path`.
fn child_path(path: &str, name: &str) -> String {
    if path == ROOT_PATH {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn all(schema: Value, args: Value) -> (Vec<String>, usize) {
        let validator = jsonschema::draft202012::new(&schema).unwrap();
        let (listed, omitted) = mistakes(&validator, &schema, &args);
        (listed.iter().map(ToString::to_string).collect(), omitted)
    }

    fn search() -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": "integer", "format": "uint32", "minimum": 0, "maximum": 4294967295u64, "default": 5}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    #[test]
    fn a_missing_field_a_wrong_type_and_an_unknown_field_are_all_reported() {
        let (listed, omitted) = all(search(), json!({"limit": "ten", "limt": 1}));
        assert_eq!(omitted, 0);
        assert_eq!(listed.len(), 3, "{listed:#?}");
        assert!(
            listed.contains(
                &"at `query`: missing required field `query`; expected a string".to_string()
            ),
            "{listed:#?}"
        );
        assert!(
            listed.contains(
                &"at `limit`: expected an integer from 0 to 4294967295, found the string \"ten\""
                    .to_string()
            ),
            "{listed:#?}"
        );
        assert!(listed.contains(&"at `limt`: unknown field `limt`; did you mean `limit`? valid fields: `query`, `limit`".to_string()), "{listed:#?}");
    }

    #[test]
    fn mistakes_past_the_cap_are_counted() {
        let mut args = json!({"query": "x"});
        for i in 0..15 {
            args[format!("extra{i}")] = json!(i);
        }
        let (listed, omitted) = all(search(), args);
        assert_eq!((listed.len(), omitted), (MAX_LISTED_MISTAKES, 5));
    }

    #[test]
    fn paths_name_fields_and_indexes_as_decoding_does() {
        let schema = json!({
            "type": "object",
            "properties": {"filters": {"type": "object", "properties": {
                "tags": {"type": "array", "items": {"type": "string"}},
                "1": {"type": "boolean"},
                "a/b": {"type": "boolean"}
            }}}
        });
        let (listed, _) = all(
            schema,
            json!({"filters": {"tags": ["a", 2], "1": 0, "a/b": 0}}),
        );
        assert_eq!(
            listed,
            [
                "at `filters.tags[1]`: expected a string, found `2`",
                "at `filters.1`: expected `true` or `false`, found `0`",
                "at `filters.a/b`: expected `true` or `false`, found `0`",
            ]
        );
    }

    #[test]
    fn the_one_alternative_that_fits_reports_its_own_mistakes() {
        let schema = json!({
            "type": "object",
            "properties": {"trip": {"anyOf": [{"$ref": "#/$defs/Trip"}, {"type": "null"}]}},
            "$defs": {"Trip": {"type": "object", "properties": {"to": {"type": "string"}}, "required": ["to"], "additionalProperties": false}}
        });
        let (listed, _) = all(schema.clone(), json!({"trip": {"too": "Oslo"}}));
        assert_eq!(
            listed,
            [
                "at `trip.too`: unknown field `too`; did you mean `to`? valid fields: `to`",
                "at `trip.to`: missing required field `to`; expected a string",
            ]
        );
        let (listed, _) = all(schema, json!({"trip": 5}));
        assert_eq!(
            listed,
            ["at `trip`: expected a JSON object with the fields `to` or null, found `5`"]
        );
    }

    #[test]
    fn enums_tuples_and_bounds_say_what_fits() {
        let schema = json!({
            "type": "object",
            "properties": {
                "units": {"type": "string", "enum": ["metric", "imperial"]},
                "point": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "items": false, "minItems": 2},
                "days": {"type": "integer", "minimum": 0, "maximum": 255}
            }
        });
        let (listed, _) = all(
            schema,
            json!({"units": "kelvin", "point": [1, 2, 3], "days": 300}),
        );
        assert_eq!(
            listed,
            [
                "at `units`: expected one of \"metric\", \"imperial\", found the string \"kelvin\"",
                "at `point[2]`: no value is allowed here; remove it",
                "at `days`: expected an integer from 0 to 255, found `300`",
            ]
        );
    }

    #[test]
    fn no_message_names_a_rust_type() {
        let schema = json!({
            "type": "object",
            "title": "SearchArgs",
            "properties": {"shape": {"$ref": "#/$defs/Shape"}},
            "required": ["shape"],
            "$defs": {"Shape": {"title": "Shape", "oneOf": [
                {"type": "object", "properties": {"Circle": {"type": "number"}}, "required": ["Circle"], "additionalProperties": false},
                {"type": "string", "enum": ["Dot"]}
            ]}}
        });
        for args in [
            json!({}),
            json!({"shape": 1}),
            json!({"shape": {"Square": 1}}),
        ] {
            let (listed, _) = all(schema.clone(), args);
            assert!(!listed.is_empty());
            for text in listed {
                assert!(
                    !text.contains("Shape") && !text.contains("SearchArgs"),
                    "{text}"
                );
            }
        }
    }
}

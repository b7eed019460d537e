//! OpenAI strict mode (`strict: true`, Structured Outputs).
//!
//! Rules (`docs/src/providers.md#openai-strict`): every object has `additionalProperties: false`
//! and lists every property in `required`; optional means a union with `null`; `anyOf` is the
//! only union; `$ref` stands alone; a keyword and format allowlist; at most 10 levels of
//! nesting, 5000 properties, 1000 enum values and 120 000 characters.
//!
//! The conversion is copy-on-write: it yields a [`Rebuilt`] view that borrows every subschema
//! that needed no change, so a schema already in strict form costs a read-only walk, and a
//! request's text is written from the view without an intermediate `Value`.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::rebuilt::{Rebuilt, set};
use crate::schema::disjoint::provably_disjoint;
use crate::schema::error::SchemaProblem;
use crate::schema::path::{SchemaPath, Step};
use crate::schema::walk::{ANNOTATIONS, has_any_keyword, has_keyword, has_type, keyword};

/// Formats strict mode accepts; any other `format` is dropped (formats do not constrain
/// validation in JSON Schema 2020-12, so dropping one never changes which values pass).
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Keywords copied as they are: strict mode supports them with their JSON Schema meaning.
const KEPT: &[&str] = &[
    "type",
    "enum",
    "const",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "description",
];

const MAX_DEPTH: usize = 10;
const MAX_PROPERTIES: usize = 5000;
const MAX_ENUM_VALUES: usize = 1000;
const MAX_CHARS: usize = 120_000;

const MODE: &str = "in OpenAI strict mode";

/// The length of `schema` as compact JSON, counted without building the text.
fn compact_len(schema: &(impl Serialize + ?Sized)) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing JSON values into a writer that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, schema);
    count.0
}

/// `canonical` in strict mode, as a `Value`. Schemas already written the strict way (every
/// property required, `additionalProperties: false`, only supported keywords) come back
/// borrowed.
pub(super) fn strict(canonical: &Value) -> Result<Cow<'_, Value>, Vec<SchemaProblem>> {
    let (rebuilt, strict) = rebuild(canonical);
    strict.finish(compact_len(&rebuilt))?;
    Ok(match rebuilt {
        Rebuilt::Same(_) => Cow::Borrowed(canonical),
        changed => Cow::Owned(changed.into_value()),
    })
}

/// `canonical` in strict mode as compact JSON text, or `None` when that is `canonical` itself:
/// what a request carries, written without building the strict schema as a `Value`.
pub(super) fn strict_text(canonical: &Value) -> Result<Option<Box<RawValue>>, Vec<SchemaProblem>> {
    let (rebuilt, strict) = rebuild(canonical);
    if rebuilt.is_same() {
        strict.finish(compact_len(canonical))?;
        return Ok(None);
    }
    // Written once: the text is both what the length limit counts and what is kept.
    let text = serde_json::value::to_raw_value(&rebuilt)
        .map_err(|error| vec![SchemaProblem::unwritable(&error)])?;
    strict.finish(text.get().len())?;
    Ok(Some(text))
}

/// The strict form of `canonical`, with the walk's findings: every problem but the length
/// limit, which [`Strict::finish`] checks on the text.
fn rebuild(canonical: &Value) -> (Rebuilt<'_>, Strict<'_>) {
    let mut strict = Strict::default();
    let schema = strict.schema(canonical, &mut SchemaPath::default());
    (schema, strict)
}

#[derive(Default)]
struct Strict<'v> {
    problems: Vec<SchemaProblem>,
    properties: usize,
    too_deep: bool,
    /// Entries of the objects, maps and lists being converted, one region per level: an
    /// unchanged one is dropped with nothing allocated, a changed one moves into its own `Vec`.
    pending: Entries<'v>,
}

/// The entries of a rebuilt object schema, in output order.
type Entries<'v> = Vec<(&'v str, Rebuilt<'v>)>;

impl<'v> Strict<'v> {
    /// The walk's problems and those of the whole schema, given its length as compact JSON.
    fn finish(mut self, chars: usize) -> Result<(), Vec<SchemaProblem>> {
        let root = SchemaPath::default();
        if self.properties > MAX_PROPERTIES {
            self.report(
                &root,
                format!(
                    "{} properties exceed the limit of {MAX_PROPERTIES} {MODE}",
                    self.properties
                ),
            );
        }
        if chars > MAX_CHARS {
            self.report(
                &root,
                format!("the schema has {chars} characters, over the limit of {MAX_CHARS} {MODE}"),
            );
        }
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(self.problems)
        }
    }

    fn report(&mut self, path: &SchemaPath<'_>, reason: impl Into<String>) {
        self.problems.push(SchemaProblem {
            path: path.to_string(),
            reason: reason.into(),
        });
    }

    fn schema(&mut self, schema: &'v Value, path: &mut SchemaPath<'v>) -> Rebuilt<'v> {
        match schema {
            Value::Object(map) => match self.object_schema(map, path) {
                Some(entries) => Rebuilt::Object(entries),
                None => Rebuilt::Same(schema),
            },
            Value::Bool(true) => {
                self.any_value(path);
                Rebuilt::Same(schema)
            }
            _ => {
                self.report(
                    path,
                    format!("a schema that accepts nothing cannot be expressed {MODE}"),
                );
                Rebuilt::Same(schema)
            }
        }
    }

    fn any_value(&mut self, path: &SchemaPath<'_>) {
        self.report(
            path,
            format!(
                "any JSON value (such as `serde_json::Value`) cannot be expressed {MODE}; give the field a concrete type"
            ),
        );
    }

    /// The strict form of an object schema, or `None` when it is `map` itself.
    fn object_schema(
        &mut self,
        map: &'v Map<String, Value>,
        path: &mut SchemaPath<'v>,
    ) -> Option<Entries<'v>> {
        if let Some(reference) = keyword(map, "$ref") {
            // `$ref` must stand alone: annotations beside it go, constraints cannot.
            for key in map.keys().filter(|key| *key != "$ref") {
                if !ANNOTATIONS.contains(&key.as_str()) {
                    self.report(
                        path,
                        format!("`{key}` beside `$ref` cannot be expressed {MODE}"),
                    );
                }
            }
            return (map.len() > 1).then(|| vec![("$ref", Rebuilt::Same(reference))]);
        }
        let constrained = has_any_keyword(
            map,
            &["type", "enum", "const", "anyOf", "oneOf", "allOf", "not"],
        );
        if !constrained {
            self.any_value(path);
            return None;
        }
        let start = self.pending.len();
        // Whether the output lost or renamed a keyword of `map` (a changed subschema shows as a
        // rebuilt entry); `required` and `additionalProperties` are left out of it and judged
        // when the object is closed.
        let mut dropped = false;
        let mut map_like = false;
        for (key, value) in map {
            match key.as_str() {
                k if KEPT.contains(&k) => {
                    if k == "enum" && value.as_array().is_some_and(|v| v.len() > MAX_ENUM_VALUES) {
                        self.report(
                            path,
                            format!("more than {MAX_ENUM_VALUES} enum values {MODE}"),
                        );
                    }
                    self.pending.push((key, Rebuilt::Same(value)));
                }
                "required" => {}
                "format" => {
                    if value.as_str().is_some_and(|f| FORMATS.contains(&f)) {
                        self.pending.push((key, Rebuilt::Same(value)));
                    } else {
                        dropped = true;
                    }
                }
                "properties" => {
                    let Some(properties) = value.as_object() else {
                        dropped = true;
                        continue;
                    };
                    self.properties += properties.len();
                    let converted = self.named_schemas(value, properties, path, Step::Field);
                    self.pending.push((key, converted));
                }
                "items" => {
                    path.push(Step::Item);
                    let items = self.schema(value, path);
                    path.pop();
                    self.pending.push((key, items));
                }
                "$defs" => {
                    let Some(definitions) = value.as_object() else {
                        dropped = true;
                        continue;
                    };
                    let converted = self.named_schemas(value, definitions, path, Step::Definition);
                    self.pending.push((key, converted));
                }
                "anyOf" | "oneOf" => {
                    let Some(alternatives) = value.as_array() else {
                        dropped = true;
                        continue;
                    };
                    if key == "oneOf" {
                        // Strict mode only has `anyOf`: the keyword is renamed.
                        dropped = true;
                        if !provably_disjoint(alternatives) {
                            self.report(
                                path,
                                format!("`oneOf` with overlapping alternatives cannot be expressed {MODE} (it only has `anyOf`)"),
                            );
                        }
                    }
                    let keyword = if key == "oneOf" { "oneOf" } else { "anyOf" };
                    let items = self.pending.len();
                    for (index, alternative) in alternatives.iter().enumerate() {
                        path.push(Step::Alternative(keyword, index));
                        let converted = self.schema(alternative, path);
                        self.pending.push(("", converted));
                        path.pop();
                    }
                    let value = match self.take_changed(items, 0) {
                        Some(converted) => {
                            Rebuilt::Array(converted.into_iter().map(|(_, item)| item).collect())
                        }
                        None => Rebuilt::Same(value),
                    };
                    self.pending.push(("anyOf", value));
                }
                "additionalProperties" => {
                    if value != &Value::Bool(false) {
                        map_like = true;
                        self.report(path, format!("maps cannot be expressed {MODE}"));
                    }
                }
                "patternProperties" => {
                    dropped = true;
                    map_like = true;
                    self.report(path, format!("maps cannot be expressed {MODE}"));
                }
                "prefixItems" => {
                    dropped = true;
                    self.report(
                        path,
                        format!(
                            "tuples (arrays with a fixed type per position) cannot be expressed {MODE}"
                        ),
                    );
                }
                "minLength" | "maxLength" => {
                    dropped = true;
                    // One report for the pair a `char` carries.
                    if key == "maxLength" && has_keyword(map, "minLength") {
                        continue;
                    }
                    self.report(
                        path,
                        format!("string length limits (`minLength` / `maxLength`, as a `char` has) are not supported {MODE}"),
                    );
                }
                k if ANNOTATIONS.contains(&k) => dropped = true,
                other => {
                    dropped = true;
                    self.report(path, format!("`{other}` is not supported {MODE}"));
                }
            }
        }
        let is_object = has_type(map, "object");
        let children_unchanged = self.pending[start..]
            .iter()
            .all(|(_, value)| value.is_same());
        if !dropped && children_unchanged && already_closed(map, is_object) {
            self.pending.truncate(start);
            return None;
        }
        let mut out = self.take(start, 3);
        if is_object {
            self.close_object(&mut out, path, map_like);
            mention_defaults(map, &mut out);
        }
        Some(out)
    }

    /// Converts each schema of a `properties` or `$defs` map (`value`, as `schemas`).
    fn named_schemas(
        &mut self,
        value: &'v Value,
        schemas: &'v Map<String, Value>,
        path: &mut SchemaPath<'v>,
        step: fn(&'v str) -> Step<'v>,
    ) -> Rebuilt<'v> {
        let start = self.pending.len();
        for (name, schema) in schemas {
            path.push(step(name));
            if path.object_depth() > MAX_DEPTH && !self.too_deep {
                self.too_deep = true;
                self.report(
                    path,
                    format!("more than {MAX_DEPTH} levels of nested objects {MODE}"),
                );
            }
            let converted = self.schema(schema, path);
            self.pending.push((name, converted));
            path.pop();
        }
        match self.take_changed(start, 0) {
            Some(converted) => Rebuilt::Object(converted),
            None => Rebuilt::Same(value),
        }
    }

    /// The pending entries from `start` on, moved into a `Vec` with room for `extra` more.
    fn take(&mut self, start: usize, extra: usize) -> Entries<'v> {
        let mut entries = Vec::with_capacity(self.pending.len() - start + extra);
        entries.extend(self.pending.drain(start..));
        entries
    }

    /// [`Self::take`] when any pending entry from `start` on changed; else drops them.
    fn take_changed(&mut self, start: usize, extra: usize) -> Option<Entries<'v>> {
        if self.pending[start..]
            .iter()
            .all(|(_, value)| value.is_same())
        {
            self.pending.truncate(start);
            return None;
        }
        Some(self.take(start, extra))
    }

    fn close_object(&mut self, out: &mut Entries<'v>, path: &SchemaPath<'_>, map_like: bool) {
        let names: Vec<&str> = match out.iter().find(|(key, _)| *key == "properties") {
            Some((_, properties)) => properties.keys(),
            None if path.is_root() => {
                out.push(("properties", Rebuilt::New(Value::Object(Map::new()))));
                Vec::new()
            }
            None if map_like => Vec::new(),
            None => {
                self.report(
                    path,
                    format!("objects without declared properties cannot be expressed {MODE}"),
                );
                Vec::new()
            }
        };
        out.push(("required", Rebuilt::Names(names)));
        out.push(("additionalProperties", Rebuilt::New(Value::Bool(false))));
    }
}

/// Whether `map` already ends the way [`Strict::close_object`] would end it: an object schema
/// that requires each of its properties, in order, and allows no others; any other schema
/// without `required` or `additionalProperties` (strict mode drops them there).
fn already_closed(map: &Map<String, Value>, is_object: bool) -> bool {
    if !is_object {
        return !has_keyword(map, "required") && !has_keyword(map, "additionalProperties");
    }
    let (Some(Value::Object(properties)), Some(Value::Array(required))) =
        (keyword(map, "properties"), keyword(map, "required"))
    else {
        return false;
    };
    keyword(map, "additionalProperties") == Some(&Value::Bool(false))
        && properties.len() == required.len()
        && properties
            .keys()
            .zip(required)
            .all(|(name, listed)| listed.as_str() == Some(name.as_str()))
}

/// A field with a serde default becomes required in strict mode; its description tells the
/// model which value to send for "the default".
fn mention_defaults<'v>(original: &'v Map<String, Value>, out: &mut Entries<'v>) {
    let required = keyword(original, "required").and_then(Value::as_array);
    let is_required =
        |name: &str| required.is_some_and(|names| names.iter().any(|n| n.as_str() == Some(name)));
    let Some(Value::Object(before)) = keyword(original, "properties") else {
        return;
    };
    let defaulted = before.iter().filter_map(|(name, property)| {
        let default = keyword(property.as_object()?, "default")?;
        (!is_required(name)).then_some((name.as_str(), default))
    });
    for (name, default) in defaulted {
        let Some((_, properties)) = out.iter_mut().find(|(key, _)| *key == "properties") else {
            return;
        };
        let Some(target) = properties
            .entries_mut()
            .and_then(|fields| fields.iter_mut().find(|(field, _)| *field == name))
            .and_then(|(_, target)| target.entries_mut())
        else {
            continue;
        };
        let description = match target
            .iter()
            .find(|(key, _)| *key == "description")
            .and_then(|(_, text)| text.as_str())
        {
            Some(text) => format!("{text} (default: {default})"),
            None => format!("Default: {default}."),
        };
        set(
            target,
            "description",
            Rebuilt::New(Value::from(description)),
        );
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn already_strict() -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for"},
                "filters": {
                    "type": "object",
                    "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
                    "required": ["tags"],
                    "additionalProperties": false
                }
            },
            "required": ["query", "filters"],
            "additionalProperties": false
        })
    }

    #[test]
    fn a_schema_already_in_strict_form_is_borrowed() {
        let schema = already_strict();
        let strict = strict(&schema).unwrap();
        assert!(matches!(strict, Cow::Borrowed(_)), "no copy was made");
        assert_eq!(*strict, schema);
    }

    #[test]
    fn a_change_deep_inside_copies_the_path_to_it_and_nothing_is_lost() {
        let mut schema = already_strict();
        // A format strict mode drops, two objects down.
        schema["properties"]["filters"]["properties"]["tags"]["items"]["format"] = json!("int32");
        let strict = strict(&schema).unwrap();
        assert!(matches!(strict, Cow::Owned(_)));
        let mut expected = already_strict();
        assert_eq!(
            *strict, expected,
            "the format is gone, all else is as it was"
        );
        // The same change at the root's own level.
        schema = already_strict();
        schema["required"] = json!(["query"]);
        let strict = super::strict(&schema).unwrap();
        assert!(
            matches!(strict, Cow::Owned(_)),
            "a property became required"
        );
        expected["required"] = json!(["query", "filters"]);
        assert_eq!(*strict, expected);
    }

    #[test]
    fn keywords_strict_mode_closes_or_drops_are_never_left_borrowed() {
        for schema in [
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
            json!({"type": "object", "properties": {"a": {"type": "string", "title": "A"}}, "required": ["a"], "additionalProperties": false}),
            json!({"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}, "required": ["a"], "additionalProperties": false}),
            json!({"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "string"}}, "required": ["a", "b"], "additionalProperties": false}),
            json!({"type": "object"}),
        ] {
            let strict = strict(&schema).unwrap();
            assert!(matches!(strict, Cow::Owned(_)), "{schema} needed a change");
            assert_eq!(strict["additionalProperties"], json!(false), "{schema}");
            assert!(strict.get("title").is_none() && !strict.to_string().contains("oneOf"));
        }
    }
}

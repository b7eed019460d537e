//! OpenAI strict mode (`strict: true`, Structured Outputs).
//!
//! Rules (PROVIDERS.md): every object has `additionalProperties: false` and lists every
//! property in `required`; optional means a union with `null`; `anyOf` is the only union;
//! `$ref` stands alone; a keyword and format allowlist; at most 10 levels of nesting, 5000
//! properties, 1000 enum values and 120 000 characters.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::schema::disjoint::provably_disjoint;
use crate::schema::error::SchemaProblem;
use crate::schema::path::{SchemaPath, Step};
use crate::schema::walk::{ANNOTATIONS, types};

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
fn compact_len(schema: &Value) -> usize {
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
    // Writing a `Value` into a writer that never fails cannot fail.
    let _ = serde_json::to_writer(&mut count, schema);
    count.0
}

/// `canonical` in strict mode. Schemas already written the strict way (every property required,
/// `additionalProperties: false`, only supported keywords) come back borrowed: deriving the
/// dialect of such a schema is a read-only walk, with nothing allocated or copied.
pub(super) fn strict(canonical: &Value) -> Result<Cow<'_, Value>, Vec<SchemaProblem>> {
    let mut strict = Strict::default();
    let mut path = SchemaPath::default();
    let schema = strict.schema(canonical, &mut path);
    if strict.properties > MAX_PROPERTIES {
        strict.report(
            &path,
            format!(
                "{} properties exceed the limit of {MAX_PROPERTIES} {MODE}",
                strict.properties
            ),
        );
    }
    let chars = compact_len(&schema);
    if chars > MAX_CHARS {
        strict.report(
            &path,
            format!("the schema has {chars} characters, over the limit of {MAX_CHARS} {MODE}"),
        );
    }
    if strict.problems.is_empty() {
        Ok(schema)
    } else {
        Err(strict.problems)
    }
}

#[derive(Default)]
struct Strict {
    problems: Vec<SchemaProblem>,
    properties: usize,
    too_deep: bool,
}

/// One keyword of a converted object schema, in output order.
type Entry<'v> = (&'v str, Cow<'v, Value>);

impl Strict {
    fn report(&mut self, path: &SchemaPath, reason: impl Into<String>) {
        self.problems.push(SchemaProblem {
            path: path.to_string(),
            reason: reason.into(),
        });
    }

    fn schema<'v>(&mut self, schema: &'v Value, path: &mut SchemaPath) -> Cow<'v, Value> {
        match schema {
            Value::Object(map) => match self.object_schema(map, path) {
                Some(converted) => Cow::Owned(Value::Object(converted)),
                None => Cow::Borrowed(schema),
            },
            Value::Bool(true) => {
                self.any_value(path);
                Cow::Borrowed(schema)
            }
            _ => {
                self.report(
                    path,
                    format!("a schema that accepts nothing cannot be expressed {MODE}"),
                );
                Cow::Borrowed(schema)
            }
        }
    }

    fn any_value(&mut self, path: &SchemaPath) {
        self.report(
            path,
            format!(
                "any JSON value (such as `serde_json::Value`) cannot be expressed {MODE}; give the field a concrete type"
            ),
        );
    }

    /// The strict form of an object schema, or `None` when it is `map` itself.
    fn object_schema<'v>(
        &mut self,
        map: &'v Map<String, Value>,
        path: &mut SchemaPath,
    ) -> Option<Map<String, Value>> {
        if let Some(reference) = map.get("$ref") {
            // `$ref` must stand alone: annotations beside it go, constraints cannot.
            for key in map.keys().filter(|key| *key != "$ref") {
                if !ANNOTATIONS.contains(&key.as_str()) {
                    self.report(
                        path,
                        format!("`{key}` beside `$ref` cannot be expressed {MODE}"),
                    );
                }
            }
            return (map.len() > 1).then(|| Map::from_iter([("$ref".into(), reference.clone())]));
        }
        let constrained = ["type", "enum", "const", "anyOf", "oneOf", "allOf", "not"]
            .iter()
            .any(|keyword| map.contains_key(*keyword));
        if !constrained {
            self.any_value(path);
            return None;
        }
        let mut out: Vec<Entry<'v>> = Vec::with_capacity(map.len());
        // Whether `out` lost or renamed a keyword of `map` (a changed subschema shows as an owned
        // entry); `required` and
        // `additionalProperties` are left out of `out` and judged when the object is closed.
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
                    out.push((key, Cow::Borrowed(value)));
                }
                "required" => {}
                "format" => {
                    if value.as_str().is_some_and(|f| FORMATS.contains(&f)) {
                        out.push((key, Cow::Borrowed(value)));
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
                    let converted =
                        self.named_schemas(properties, path, |name| Step::Field(name.to_string()));
                    out.push((key, changed_or_borrowed(converted, value)));
                }
                "items" => {
                    path.push(Step::Item);
                    let items = self.schema(value, path);
                    path.pop();
                    out.push((key, items));
                }
                "$defs" => {
                    let Some(definitions) = value.as_object() else {
                        dropped = true;
                        continue;
                    };
                    let converted = self.named_schemas(definitions, path, |name| {
                        Step::Definition(name.to_string())
                    });
                    out.push((key, changed_or_borrowed(converted, value)));
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
                    let converted: Vec<Cow<'v, Value>> = alternatives
                        .iter()
                        .enumerate()
                        .map(|(index, alternative)| {
                            path.push(Step::Alternative(keyword, index));
                            let converted = self.schema(alternative, path);
                            path.pop();
                            converted
                        })
                        .collect();
                    let value = if converted.iter().all(|c| matches!(c, Cow::Borrowed(_))) {
                        Cow::Borrowed(value)
                    } else {
                        Cow::Owned(Value::Array(
                            converted.into_iter().map(Cow::into_owned).collect(),
                        ))
                    };
                    out.push(("anyOf", value));
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
                    if key == "maxLength" && map.contains_key("minLength") {
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
        let is_object = types(map).is_some_and(|names| names.contains(&"object"));
        let children_unchanged = out
            .iter()
            .all(|(_, value)| matches!(value, Cow::Borrowed(_)));
        if !dropped && children_unchanged && already_closed(map, is_object) {
            return None;
        }
        let mut converted: Map<String, Value> = out
            .into_iter()
            .map(|(key, value)| (key.to_string(), value.into_owned()))
            .collect();
        if is_object {
            self.close_object(&mut converted, path, map_like);
            mention_defaults(map, &mut converted);
        }
        Some(converted)
    }

    /// Converts each schema of a `properties` or `$defs` map; `None` when none changed.
    fn named_schemas(
        &mut self,
        schemas: &Map<String, Value>,
        path: &mut SchemaPath,
        step: impl Fn(&str) -> Step,
    ) -> Option<Map<String, Value>> {
        let mut converted: Vec<Cow<'_, Value>> = Vec::with_capacity(schemas.len());
        for (name, schema) in schemas {
            path.push(step(name));
            if path.object_depth() > MAX_DEPTH && !self.too_deep {
                self.too_deep = true;
                self.report(
                    path,
                    format!("more than {MAX_DEPTH} levels of nested objects {MODE}"),
                );
            }
            converted.push(self.schema(schema, path));
            path.pop();
        }
        if converted.iter().all(|c| matches!(c, Cow::Borrowed(_))) {
            return None;
        }
        Some(
            schemas
                .keys()
                .zip(converted)
                .map(|(name, schema)| (name.clone(), schema.into_owned()))
                .collect(),
        )
    }

    fn close_object(&mut self, out: &mut Map<String, Value>, path: &SchemaPath, map_like: bool) {
        let names: Vec<Value> = match out.get("properties").and_then(Value::as_object) {
            Some(properties) => properties.keys().cloned().map(Value::from).collect(),
            None if path.is_root() => {
                out.insert("properties".into(), Value::Object(Map::new()));
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
        out.insert("required".into(), Value::Array(names));
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
}

fn changed_or_borrowed(changed: Option<Map<String, Value>>, original: &Value) -> Cow<'_, Value> {
    match changed {
        Some(map) => Cow::Owned(Value::Object(map)),
        None => Cow::Borrowed(original),
    }
}

/// Whether `map` already ends the way [`Strict::close_object`] would end it: an object schema
/// that requires each of its properties, in order, and allows no others; any other schema
/// without `required` or `additionalProperties` (strict mode drops them there).
fn already_closed(map: &Map<String, Value>, is_object: bool) -> bool {
    if !is_object {
        return !map.contains_key("required") && !map.contains_key("additionalProperties");
    }
    let (Some(Value::Object(properties)), Some(Value::Array(required))) =
        (map.get("properties"), map.get("required"))
    else {
        return false;
    };
    map.get("additionalProperties") == Some(&Value::Bool(false))
        && properties.len() == required.len()
        && properties
            .keys()
            .zip(required)
            .all(|(name, listed)| listed.as_str() == Some(name.as_str()))
}

/// A field with a serde default becomes required in strict mode; its description tells the
/// model which value to send for "the default".
fn mention_defaults(original: &Map<String, Value>, out: &mut Map<String, Value>) {
    let required: Vec<&str> = original
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let (Some(Value::Object(before)), Some(Value::Object(after))) =
        (original.get("properties"), out.get_mut("properties"))
    else {
        return;
    };
    for (name, property) in before {
        let default = property.get("default");
        let (Some(default), Some(Value::Object(target))) = (default, after.get_mut(name)) else {
            continue;
        };
        if required.contains(&name.as_str()) {
            continue;
        }
        let description = match target.get("description").and_then(Value::as_str) {
            Some(text) => format!("{text} (default: {default})"),
            None => format!("Default: {default}."),
        };
        target.insert("description".into(), Value::from(description));
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

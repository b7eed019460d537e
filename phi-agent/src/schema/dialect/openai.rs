//! OpenAI strict mode (`strict: true`, Structured Outputs).
//!
//! Rules (PROVIDERS.md): every object has `additionalProperties: false` and lists every
//! property in `required`; optional means a union with `null`; `anyOf` is the only union;
//! `$ref` stands alone; a keyword and format allowlist; at most 10 levels of nesting, 5000
//! properties, 1000 enum values and 120 000 characters.

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

pub(super) fn strict(canonical: &Value) -> Result<Value, Vec<SchemaProblem>> {
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

impl Strict {
    fn report(&mut self, path: &SchemaPath, reason: impl Into<String>) {
        self.problems.push(SchemaProblem {
            path: path.to_string(),
            reason: reason.into(),
        });
    }

    fn schema(&mut self, schema: &Value, path: &mut SchemaPath) -> Value {
        match schema {
            Value::Object(map) => Value::Object(self.object_schema(map, path)),
            Value::Bool(true) => {
                self.any_value(path);
                schema.clone()
            }
            _ => {
                self.report(
                    path,
                    format!("a schema that accepts nothing cannot be expressed {MODE}"),
                );
                schema.clone()
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

    fn object_schema(
        &mut self,
        map: &Map<String, Value>,
        path: &mut SchemaPath,
    ) -> Map<String, Value> {
        let mut out = Map::new();
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
            out.insert("$ref".into(), reference.clone());
            return out;
        }
        let constrained = ["type", "enum", "const", "anyOf", "oneOf", "allOf", "not"]
            .iter()
            .any(|keyword| map.contains_key(*keyword));
        if !constrained {
            self.any_value(path);
            return map.clone();
        }
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
                    out.insert(key.clone(), value.clone());
                }
                "required" => {}
                "format" => {
                    if value.as_str().is_some_and(|f| FORMATS.contains(&f)) {
                        out.insert(key.clone(), value.clone());
                    }
                }
                "properties" => {
                    let Some(properties) = value.as_object() else {
                        continue;
                    };
                    self.properties += properties.len();
                    let mut converted = Map::new();
                    for (name, property) in properties {
                        path.push(Step::Field(name.clone()));
                        if path.object_depth() > MAX_DEPTH && !self.too_deep {
                            self.too_deep = true;
                            self.report(
                                path,
                                format!("more than {MAX_DEPTH} levels of nested objects {MODE}"),
                            );
                        }
                        converted.insert(name.clone(), self.schema(property, path));
                        path.pop();
                    }
                    out.insert(key.clone(), Value::Object(converted));
                }
                "items" => {
                    path.push(Step::Item);
                    let items = self.schema(value, path);
                    path.pop();
                    out.insert(key.clone(), items);
                }
                "$defs" => {
                    let Some(definitions) = value.as_object() else {
                        continue;
                    };
                    let mut converted = Map::new();
                    for (name, definition) in definitions {
                        path.push(Step::Definition(name.clone()));
                        converted.insert(name.clone(), self.schema(definition, path));
                        path.pop();
                    }
                    out.insert(key.clone(), Value::Object(converted));
                }
                "anyOf" | "oneOf" => {
                    let Some(alternatives) = value.as_array() else {
                        continue;
                    };
                    if key == "oneOf" && !provably_disjoint(alternatives) {
                        self.report(
                            path,
                            format!("`oneOf` with overlapping alternatives cannot be expressed {MODE} (it only has `anyOf`)"),
                        );
                    }
                    let keyword = if key == "oneOf" { "oneOf" } else { "anyOf" };
                    let converted = alternatives
                        .iter()
                        .enumerate()
                        .map(|(index, alternative)| {
                            path.push(Step::Alternative(keyword, index));
                            let converted = self.schema(alternative, path);
                            path.pop();
                            converted
                        })
                        .collect();
                    out.insert("anyOf".into(), Value::Array(converted));
                }
                "additionalProperties" => {
                    if value != &Value::Bool(false) {
                        map_like = true;
                        self.report(path, format!("maps cannot be expressed {MODE}"));
                    }
                }
                "patternProperties" => {
                    map_like = true;
                    self.report(path, format!("maps cannot be expressed {MODE}"));
                }
                "prefixItems" => self.report(
                    path,
                    format!(
                        "tuples (arrays with a fixed type per position) cannot be expressed {MODE}"
                    ),
                ),
                "minLength" | "maxLength" => {
                    // One report for the pair a `char` carries.
                    if key == "maxLength" && map.contains_key("minLength") {
                        continue;
                    }
                    self.report(
                        path,
                        format!("string length limits (`minLength` / `maxLength`, as a `char` has) are not supported {MODE}"),
                    );
                }
                k if ANNOTATIONS.contains(&k) => {}
                other => self.report(path, format!("`{other}` is not supported {MODE}")),
            }
        }
        let is_object = types(map).is_some_and(|names| names.contains(&"object"));
        if is_object {
            self.close_object(&mut out, path, map_like);
            mention_defaults(map, &mut out);
        }
        out
    }

    /// Every property required, unknown fields refused.
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

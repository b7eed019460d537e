//! Gemini `parameters`: the OpenAPI 3.0 subset of Gemini's `Schema` object.
//!
//! Rules (`docs/src/providers.md#gemini`): no `$ref` / `$defs`, one `type` per schema with
//! `nullable` for null, `enum` of strings only and no `const`, `anyOf` the only union, no
//! `additionalProperties` (a closed object is sent open, and dispatch refuses unknown fields),
//! no `title`, `$schema`, `exclusiveMinimum`, `multipleOf` or `propertyNames`, a small format
//! allowlist, and no object without properties.

use serde_json::{Map, Value};

use crate::schema::disjoint::provably_disjoint;
use crate::schema::error::SchemaProblem;
use crate::schema::path::{SchemaPath, Step};
use crate::schema::walk::ANNOTATIONS;

const FORMATS: &[&str] = &["float", "double", "int32", "int64", "enum", "date-time"];

const KEPT: &[&str] = &[
    "description",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
    "required",
];

const FOR: &str = "for Gemini";

pub(super) fn parameters(canonical: &Value) -> Result<Value, Vec<SchemaProblem>> {
    let mut gemini = Gemini::default();
    let schema = gemini.schema(canonical, &mut SchemaPath::default());
    if gemini.problems.is_empty() {
        Ok(schema)
    } else {
        Err(gemini.problems)
    }
}

#[derive(Default)]
struct Gemini {
    problems: Vec<SchemaProblem>,
}

impl Gemini {
    fn report(&mut self, path: &SchemaPath<'_>, reason: impl Into<String>) {
        self.problems.push(SchemaProblem {
            path: path.to_string(),
            reason: reason.into(),
        });
    }

    fn any_value(&mut self, path: &SchemaPath<'_>) {
        self.report(
            path,
            format!("any JSON value (such as `serde_json::Value`) cannot be expressed {FOR}, where every schema needs a type"),
        );
    }

    fn schema<'v>(&mut self, schema: &'v Value, path: &mut SchemaPath<'v>) -> Value {
        match schema {
            Value::Object(map) => Value::Object(self.object_schema(map, path)),
            Value::Bool(true) => {
                self.any_value(path);
                schema.clone()
            }
            _ => {
                self.report(
                    path,
                    format!("a schema that accepts nothing cannot be expressed {FOR}"),
                );
                schema.clone()
            }
        }
    }

    fn object_schema<'v>(
        &mut self,
        map: &'v Map<String, Value>,
        path: &mut SchemaPath<'v>,
    ) -> Map<String, Value> {
        let mut out = Map::new();
        if map.contains_key("$ref") {
            self.report(
                path,
                format!("recursive types (and definitions too large to inline, kept as `$ref`) cannot be expressed {FOR}, which has no `$ref`"),
            );
            return map.clone();
        }
        let constrained = ["type", "enum", "const", "anyOf", "oneOf", "allOf", "not"]
            .iter()
            .any(|keyword| map.contains_key(*keyword));
        if !constrained {
            self.any_value(path);
            return map.clone();
        }
        let mut nullable = false;
        let mut map_like = false;
        let mut extra_docs: Vec<String> = Vec::new();
        for (key, value) in map {
            match key.as_str() {
                k if KEPT.contains(&k) => {
                    out.insert(key.clone(), value.clone());
                }
                "type" => match value {
                    Value::String(_) => {
                        out.insert(key.clone(), value.clone());
                    }
                    Value::Array(names) => {
                        let rest: Vec<&Value> = names.iter().filter(|n| *n != "null").collect();
                        nullable |= rest.len() < names.len();
                        match rest.as_slice() {
                            [single] => {
                                out.insert(key.clone(), (*single).clone());
                            }
                            _ => self.report(
                                path,
                                format!("a value of several JSON types cannot be expressed {FOR} without `anyOf`"),
                            ),
                        }
                    }
                    _ => self.report(
                        path,
                        format!("a malformed `type` cannot be expressed {FOR}"),
                    ),
                },
                "enum" | "const" => {
                    let values = match value {
                        Value::Array(values) if key == "enum" => values.clone(),
                        other => vec![other.clone()],
                    };
                    nullable |= values.iter().any(Value::is_null);
                    let strings: Vec<Value> = values.into_iter().filter(|v| !v.is_null()).collect();
                    if strings.iter().all(Value::is_string) {
                        out.insert("enum".into(), Value::Array(strings));
                        if !map.contains_key("type") {
                            out.insert("type".into(), Value::from("string"));
                        }
                    } else {
                        self.report(path, format!("`{key}` with non-string values cannot be expressed {FOR} (enums are strings only)"));
                    }
                }
                "format" => {
                    if value.as_str().is_some_and(|f| FORMATS.contains(&f)) {
                        out.insert(key.clone(), value.clone());
                    }
                }
                "properties" => {
                    let Some(properties) = value.as_object() else {
                        continue;
                    };
                    let mut converted = Map::new();
                    for (name, property) in properties {
                        path.push(Step::Field(name));
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
                "anyOf" | "oneOf" => {
                    let Some(alternatives) = value.as_array() else {
                        continue;
                    };
                    if key == "oneOf" && !provably_disjoint(alternatives) {
                        self.report(
                            path,
                            format!("`oneOf` with overlapping alternatives cannot be expressed {FOR} (it only has `anyOf`)"),
                        );
                    }
                    let keyword = if key == "oneOf" { "oneOf" } else { "anyOf" };
                    let mut converted = Vec::new();
                    for (index, alternative) in alternatives.iter().enumerate() {
                        if alternative.get("type") == Some(&Value::from("null"))
                            && alternative.as_object().is_some_and(|a| a.len() == 1)
                        {
                            nullable = true;
                            continue;
                        }
                        path.push(Step::Alternative(keyword, index));
                        converted.push(self.schema(alternative, path));
                        path.pop();
                    }
                    if let Some((values, docs)) = string_choices(&converted) {
                        // A unit enum with documented variants: Gemini's own form is a string
                        // enum, with the variants' docs moved into the description.
                        out.insert("type".into(), Value::from("string"));
                        out.insert("enum".into(), Value::Array(values));
                        extra_docs.extend(docs);
                    } else if let [single] = converted.as_slice() {
                        // `Option<Struct>`: the struct itself, made nullable below.
                        if let Value::Object(single) = single {
                            for (k, v) in single {
                                if k == "description" {
                                    // The type's own docs follow the field's.
                                    extra_docs.extend(v.as_str().map(str::to_string));
                                } else {
                                    out.entry(k.clone()).or_insert_with(|| v.clone());
                                }
                            }
                        }
                    } else {
                        out.insert("anyOf".into(), Value::Array(converted));
                    }
                }
                "additionalProperties" => match value {
                    // `false` is dropped too, a documented and harmless loss
                    // (`docs/src/providers.md#gemini-no-additional-properties`): Gemini cannot say
                    // that an object is closed, but dispatch still refuses an unknown field,
                    // with the field the model probably meant, and the model tries again.
                    Value::Bool(_) => {}
                    _ => {
                        map_like = true;
                        self.report(path, format!("maps cannot be expressed {FOR}"));
                    }
                },
                "patternProperties" => {
                    map_like = true;
                    self.report(path, format!("maps cannot be expressed {FOR}"));
                }
                "prefixItems" => self.report(
                    path,
                    format!(
                        "tuples (arrays with a fixed type per position) cannot be expressed {FOR}"
                    ),
                ),
                "$defs" | "definitions" => {}
                k if ANNOTATIONS.contains(&k) => {}
                other => self.report(path, format!("`{other}` is not supported {FOR}")),
            }
        }
        if nullable {
            out.insert("nullable".into(), Value::Bool(true));
        }
        if !extra_docs.is_empty() {
            let mut description = out
                .get("description")
                .and_then(Value::as_str)
                .map(|text| format!("{text}\n"))
                .unwrap_or_default();
            description.push_str(&extra_docs.join("\n"));
            out.insert("description".into(), Value::from(description));
        }
        let is_object = out.get("type") == Some(&Value::from("object"));
        let has_properties = out
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| !p.is_empty());
        if is_object && !has_properties && !map_like && !path.is_root() {
            self.report(
                path,
                format!("objects without properties cannot be expressed {FOR}"),
            );
        }
        out
    }
}

/// When every alternative is a string choice (`{type: string, enum: [..]}`, perhaps with a
/// description), the values of all of them and a `- value: doc` line per documented one.
fn string_choices(alternatives: &[Value]) -> Option<(Vec<Value>, Vec<String>)> {
    if alternatives.len() < 2 {
        return None;
    }
    let mut values = Vec::new();
    let mut docs = Vec::new();
    for alternative in alternatives {
        let map = alternative.as_object()?;
        let only_choice = map.get("type") == Some(&Value::from("string"))
            && map
                .keys()
                .all(|key| matches!(key.as_str(), "type" | "enum" | "description"));
        if !only_choice {
            return None;
        }
        let choices = map.get("enum")?.as_array()?;
        if let (Some(description), [Value::String(value)]) = (
            map.get("description").and_then(Value::as_str),
            choices.as_slice(),
        ) {
            docs.push(format!("- {value}: {description}"));
        }
        values.extend(choices.iter().cloned());
    }
    Some((values, docs))
}

//! Values drawn from a schema rather than from the Rust type: the other direction of the
//! no-silent-mismatch proof (whatever a schema lets a model write, the tool must decode).
//!
//! Covers the keywords the dialect schemas use; a schema using another constraint keyword is
//! a test failure, so that nothing is silently left unsampled.

use proptest::prelude::RngExt as _;
use proptest::test_runner::{RngAlgorithm, TestRng};
use serde_json::{Map, Value, json};

/// Values drawn per schema.
pub const SAMPLES_PER_SCHEMA: usize = 64;

pub fn samples(schema: &Value) -> Vec<Value> {
    let mut rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    (0..SAMPLES_PER_SCHEMA)
        .map(|_| {
            Sampler {
                root: schema,
                rng: &mut rng,
            }
            .draw(schema, 0)
        })
        .collect()
}

struct Sampler<'a> {
    root: &'a Value,
    rng: &'a mut TestRng,
}

const HANDLED: &[&str] = &[
    "type",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "properties",
    "required",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "additionalProperties",
    "$ref",
    "$defs",
    "description",
    "format",
    "default",
    "title",
    "nullable",
];

impl Sampler<'_> {
    fn draw(&mut self, schema: &Value, depth: usize) -> Value {
        let Some(map) = schema.as_object() else {
            return self.any(depth);
        };
        for key in map.keys() {
            assert!(
                HANDLED.contains(&key.as_str()),
                "the sampler does not know `{key}` in {schema}"
            );
        }
        if map.get("nullable") == Some(&Value::Bool(true)) && self.rng.random_bool(0.2) {
            return Value::Null;
        }
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            let target = match reference.strip_prefix("#/$defs/") {
                Some(name) => &self.root["$defs"][name],
                None => self.root,
            };
            return self.draw(target, depth + 1);
        }
        if let Some(value) = map.get("const") {
            return value.clone();
        }
        if let Some(values) = map.get("enum").and_then(Value::as_array) {
            return values[self.rng.random_range(0..values.len())].clone();
        }
        if let Some(alternatives) = map
            .get("anyOf")
            .or_else(|| map.get("oneOf"))
            .and_then(Value::as_array)
        {
            let index = self.rng.random_range(0..alternatives.len());
            let chosen = merge_alternative(map, &alternatives[index]);
            return self.draw(&chosen, depth + 1);
        }
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => return self.any(depth),
        };
        let kind = types[self.rng.random_range(0..types.len())];
        let number = |key: &str| map.get(key).and_then(Value::as_f64);
        match kind {
            "null" => Value::Null,
            "boolean" => Value::Bool(self.rng.random_bool(0.5)),
            "integer" => {
                let low = number("minimum").unwrap_or(-1e12).max(-1e15) as i64;
                let high = number("maximum").unwrap_or(1e12).min(1e15) as i64;
                let edge = self.rng.random_range(0..4);
                match edge {
                    0 => json!(low),
                    1 => json!(high),
                    _ => json!(self.rng.random_range(low..=high)),
                }
            }
            "number" => {
                let low = number("minimum").unwrap_or(-1e300);
                let high = number("maximum").unwrap_or(1e300);
                json!(low + (high - low) * self.rng.random::<f64>())
            }
            "string" => {
                let min = number("minLength").unwrap_or(0.0) as usize;
                let max = number("maxLength").map_or(min + 6, |m| m as usize);
                let len = self.rng.random_range(min..=max);
                let alphabet = ['a', 'Z', '0', ' ', 'é', '😀', '"', '\n'];
                Value::String(
                    (0..len)
                        .map(|_| alphabet[self.rng.random_range(0..alphabet.len())])
                        .collect(),
                )
            }
            "array" => {
                let min = number("minItems").unwrap_or(0.0) as usize;
                let max = number("maxItems")
                    .map_or(if depth > 4 { min } else { min + 3 }, |m| m as usize);
                if let Some(positions) = map.get("prefixItems").and_then(Value::as_array) {
                    return Value::Array(
                        positions.iter().map(|p| self.draw(p, depth + 1)).collect(),
                    );
                }
                let len = self.rng.random_range(min..=max);
                let items = map.get("items").cloned().unwrap_or(Value::Bool(true));
                Value::Array((0..len).map(|_| self.draw(&items, depth + 1)).collect())
            }
            "object" => self.object(map, depth),
            other => panic!("unknown type `{other}`"),
        }
    }

    fn object(&mut self, map: &Map<String, Value>, depth: usize) -> Value {
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut out = Map::new();
        for (name, property) in map
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if required.contains(&name.as_str()) || self.rng.random_bool(0.5) {
                out.insert(name.clone(), self.draw(property, depth + 1));
            }
        }
        if let Some(extra @ Value::Object(_)) = map.get("additionalProperties") {
            for index in 0..self.rng.random_range(0..3) {
                out.insert(format!("extra{index}"), self.draw(extra, depth + 1));
            }
        }
        Value::Object(out)
    }

    fn any(&mut self, depth: usize) -> Value {
        match self.rng.random_range(0..if depth > 3 { 4 } else { 6 }) {
            0 => Value::Null,
            1 => json!(self.rng.random_bool(0.5)),
            2 => json!(self.rng.random_range(-5..5)),
            3 => json!("text"),
            4 => json!([self.any(depth + 1)]),
            _ => json!({"k": self.any(depth + 1)}),
        }
    }
}

/// The schema a value must meet when it takes `alternative` of `schema`: the alternative's
/// keywords together with the ones written beside the `anyOf` / `oneOf` (properties and
/// `required` are united, as for a flattened enum).
fn merge_alternative(schema: &Map<String, Value>, alternative: &Value) -> Value {
    let mut merged = schema.clone();
    merged.remove("anyOf");
    merged.remove("oneOf");
    let Some(alternative) = alternative.as_object() else {
        return alternative.clone();
    };
    for (key, value) in alternative {
        match (key.as_str(), merged.get_mut(key)) {
            ("properties", Some(Value::Object(properties))) => {
                for (name, property) in value.as_object().into_iter().flatten() {
                    properties.insert(name.clone(), property.clone());
                }
            }
            ("required", Some(Value::Array(required))) => {
                required.extend(value.as_array().into_iter().flatten().cloned());
            }
            ("description", Some(_)) => {}
            _ => {
                merged.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(merged)
}

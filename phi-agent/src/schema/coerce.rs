//! The one disagreement no schema can remove: JSON Schema counts `2.0` as an integer (it
//! compares numbers by value), serde does not (an integer field refuses a JSON float). A model
//! that writes `"days": 3.0` follows the schema, yet decoding fails.
//!
//! [`integral_floats_to_integers`] closes the gap from the other side: wherever the schema
//! admits only integers, an integral float becomes that integer. It is meant for the retry after a
//! failed decode, so the success path pays nothing. Rule: `docs/src/providers.md#integral-floats`.

use serde_json::{Map, Value};

use super::inline::definition_name;
use super::walk::types;

/// Rewrites each integral float (`3.0`) in `args` to the integer it equals (`3`) where `schema`
/// (a canonical schema) admits integers and no other numbers. Returns whether anything changed.
/// Inside `anyOf` / `oneOf`, only an alternative that the value alone singles out (by JSON
/// type, tag or field set) is followed; ambiguous positions are left alone, so a value never
/// changes which alternative it decodes as.
///
pub(crate) fn integral_floats_to_integers(schema: &Value, args: &mut Value) -> bool {
    Coercion { root: schema }.visit(schema, args, 0)
}

/// How deep a recursive schema is followed; arguments nested deeper are left as they are.
const MAX_DEPTH: usize = 64;

struct Coercion<'a> {
    root: &'a Value,
}

impl<'a> Coercion<'a> {
    fn resolve(&self, schema: &'a Value) -> &'a Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some("#") => self.root,
            Some(reference) => definition_name(reference)
                .and_then(|name| self.root.get("$defs")?.get(name))
                .unwrap_or(schema),
            None => schema,
        }
    }

    fn visit(&self, schema: &'a Value, value: &mut Value, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let schema = self.resolve(schema);
        let Some(map) = schema.as_object() else {
            return false;
        };
        let mut changed = false;
        if let Some(alternatives) = map.get("anyOf").or_else(|| map.get("oneOf")) {
            let candidates: Vec<&Value> = alternatives
                .as_array()
                .into_iter()
                .flatten()
                .map(|alternative| self.resolve(alternative))
                .filter(|alternative| may_match(alternative, value))
                .collect();
            // Only an unambiguous alternative is followed, so that no value changes variant.
            if let [only] = candidates.as_slice() {
                changed |= self.visit(only, value, depth + 1);
            }
        }
        changed
            | match value {
                Value::Number(number) if integers_only(map) => {
                    match number
                        .as_f64()
                        .filter(|_| number.is_f64())
                        .and_then(integer)
                    {
                        Some(integer) => {
                            *value = integer;
                            true
                        }
                        None => false,
                    }
                }
                Value::Object(fields) => self.fields(map, fields, depth),
                Value::Array(items) => {
                    let mut changed = false;
                    let positions = map.get("prefixItems").and_then(Value::as_array);
                    for (index, item) in items.iter_mut().enumerate() {
                        let item_schema = positions
                            .and_then(|p| p.get(index))
                            .or_else(|| map.get("items"));
                        if let Some(item_schema) = item_schema {
                            changed |= self.visit(item_schema, item, depth + 1);
                        }
                    }
                    changed
                }
                _ => false,
            }
    }

    fn fields(
        &self,
        map: &'a Map<String, Value>,
        fields: &mut Map<String, Value>,
        depth: usize,
    ) -> bool {
        let properties = map.get("properties").and_then(Value::as_object);
        let extra = map.get("additionalProperties").filter(|s| s.is_object());
        let mut changed = false;
        for (name, field) in fields.iter_mut() {
            let field_schema = properties.and_then(|p| p.get(name)).or(extra);
            if let Some(field_schema) = field_schema {
                changed |= self.visit(field_schema, field, depth + 1);
            }
        }
        changed
    }
}

/// Whether `value` could match `schema`, judged from its JSON type, and for an object from the
/// tags (`const` / `enum` properties), required fields and closed field set the schema names.
/// Errs towards "could": a wrong "could" only makes a union ambiguous, which stops the repair.
fn may_match(schema: &Value, value: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return true;
    };
    if let Some(constant) = map.get("const") {
        return constant == value;
    }
    if let Some(values) = map.get("enum").and_then(Value::as_array) {
        return values.contains(value);
    }
    if let Some(names) = types(map) {
        let admitted = match value {
            Value::Null => names.contains(&"null"),
            Value::Bool(_) => names.contains(&"boolean"),
            Value::Number(_) => names.contains(&"integer") || names.contains(&"number"),
            Value::String(_) => names.contains(&"string"),
            Value::Array(_) => names.contains(&"array"),
            Value::Object(_) => names.contains(&"object"),
        };
        if !admitted {
            return false;
        }
    }
    let Value::Object(fields) = value else {
        return true;
    };
    let properties = map.get("properties").and_then(Value::as_object);
    let required = map
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    if required
        .filter_map(Value::as_str)
        .any(|name| !fields.contains_key(name))
    {
        return false;
    }
    let closed = map.get("additionalProperties") == Some(&Value::Bool(false));
    fields
        .iter()
        .all(|(name, field)| match properties.and_then(|p| p.get(name)) {
            Some(property) => {
                let tag = property.get("const").or_else(|| property.get("enum"));
                tag.is_none() || may_match(property, field)
            }
            None => !closed,
        })
}

/// The schema admits numbers only as integers: its `type` names `integer` and not `number`.
fn integers_only(map: &Map<String, Value>) -> bool {
    types(map).is_some_and(|names| names.contains(&"integer") && !names.contains(&"number"))
        && !map.contains_key("anyOf")
        && !map.contains_key("oneOf")
}

/// The integer an integral float equals, when a 64-bit integer holds it exactly: every integral
/// float from -2^63 up to (not including) 2^64. JSON Schema counts each as an integer, and bounds
/// up to `u64::MAX` compare it by value, so the whole range is repaired: a narrower one made
/// `-9.223372036854776e18` (the float serde_json reads `-9223372036854775809` as, equal to
/// `i64::MIN`) valid for an `i64` schema and refused by the decoder.
fn integer(float: f64) -> Option<Value> {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    const TWO_64: f64 = 18_446_744_073_709_551_616.0;
    if float.fract() != 0.0 {
        return None;
    }
    if (-TWO_63..0.0).contains(&float) {
        Some(Value::from(float as i64))
    } else if (0.0..TWO_64).contains(&float) {
        Some(Value::from(float as u64))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::integral_floats_to_integers;

    #[test]
    fn integral_floats_become_integers_only_where_the_schema_wants_integers() {
        let schema = json!({"type": "object", "properties": {
            "days": {"type": "integer"}, "ratio": {"type": "number"}
        }});
        let mut args = json!({"days": 3.0, "ratio": 2.0});
        assert!(integral_floats_to_integers(&schema, &mut args));
        assert_eq!(args, json!({"days": 3, "ratio": 2.0}));
        assert!(
            !integral_floats_to_integers(&schema, &mut args),
            "nothing left to change"
        );
    }

    #[test]
    fn every_integral_float_a_64_bit_integer_holds_is_repaired() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        let repaired = |float: f64| {
            let mut args = json!({ "n": float });
            integral_floats_to_integers(&schema, &mut args).then(|| args["n"].clone())
        };
        assert_eq!(
            repaired(-9_223_372_036_854_775_808.0),
            Some(json!(i64::MIN))
        );
        assert_eq!(
            repaired(9_223_372_036_854_775_808.0),
            Some(json!(1_u64 << 63))
        );
        assert_eq!(repaired(1e17), Some(json!(100_000_000_000_000_000_u64)));
        assert_eq!(
            repaired(18_446_744_073_709_551_616.0),
            None,
            "2^64: no 64-bit integer"
        );
        assert_eq!(
            repaired(-9_223_372_036_854_777_856.0),
            None,
            "below i64::MIN"
        );
        assert_eq!(repaired(0.5), None);
        assert_eq!(repaired(-0.0), Some(json!(0)));
    }
}

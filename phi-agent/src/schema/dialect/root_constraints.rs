//! Constraints at the root of an arguments schema: `allOf`, `anyOf`, `oneOf`, `not`,
//! `if`/`then`/`else`, `dependentRequired` and `dependentSchemas` beside the root's `properties`,
//! naming only fields the root declares ("a phone or an email", "a phone when the contact
//! method is phone"). JSON Schema 2020-12 and MCP (SEP-2106) allow them; no provider does
//! (Anthropic and OpenAI refuse composition at the root). So the MCP dialect keeps them, and
//! every provider dialect is derived without them: the model sees every field, and the call is
//! held to the whole schema when it arrives (a hand-written tool's arguments are checked against
//! it, with the default `schema-validation` feature; a typed tool's by its own decoding).
//!
//! Composition that declares fields of its own (a flattened enum's variants) is not a
//! constraint: it describes fields the model must see, and the root rule still refuses it.

use serde_json::{Map, Value};

/// The root keywords that can only narrow which objects are valid.
const KEYWORDS: &[&str] = &[
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
];

/// Whether the root keyword `keyword` of `root` is a constraint: every field its subschemas
/// name (in `properties` or `required`, through nested composition) is one the root declares.
pub(super) fn is_constraint(root: &Map<String, Value>, keyword: &str) -> bool {
    let Some(Value::Object(declared)) = root.get("properties") else {
        return false;
    };
    let Some(value) = root.get(keyword) else {
        return false;
    };
    let known = |name: &str| declared.contains_key(name);
    match keyword {
        "dependentRequired" => value.as_object().is_some_and(|map| {
            map.iter().all(|(name, names)| {
                known(name)
                    && names
                        .as_array()
                        .is_some_and(|names| names.iter().all(|n| n.as_str().is_some_and(known)))
            })
        }),
        "dependentSchemas" => value.as_object().is_some_and(|map| {
            map.iter()
                .all(|(name, schema)| known(name) && names_only_known(schema, &known))
        }),
        _ => names_only_known(value, &known),
    }
}

/// Whether `value` (a subschema, or an array of them) names only fields `known` accepts.
fn names_only_known(value: &Value, known: &dyn Fn(&str) -> bool) -> bool {
    match value {
        Value::Array(items) => items.iter().all(|item| names_only_known(item, known)),
        Value::Bool(_) => true,
        Value::Object(schema) => schema.iter().all(|(key, inner)| match key.as_str() {
            // What a field may hold is the field's business: only its name must be known.
            "properties" => inner
                .as_object()
                .is_some_and(|fields| fields.keys().all(|name| known(name))),
            "required" => inner
                .as_array()
                .is_some_and(|names| names.iter().all(|n| n.as_str().is_some_and(known))),
            "allOf" | "anyOf" | "oneOf" | "not" | "if" | "then" | "else" => {
                names_only_known(inner, known)
            }
            // Anything else that could declare or admit fields makes it more than a constraint.
            "patternProperties"
            | "additionalProperties"
            | "unevaluatedProperties"
            | "propertyNames"
            | "$ref"
            | "dependentSchemas"
            | "dependentRequired" => false,
            _ => true,
        }),
        _ => false,
    }
}

/// Whether the root of `schema` has a constraint keyword (see the [module](self)).
pub(super) fn has_root_constraints(schema: &Value) -> bool {
    schema.as_object().is_some_and(|root| {
        KEYWORDS
            .iter()
            .any(|keyword| root.contains_key(*keyword) && is_constraint(root, keyword))
    })
}

/// `schema` without its root constraints; other root keywords stay, for the root rule to judge.
pub(super) fn without_root_constraints(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(root) = schema.as_object_mut() {
        let constraints: Vec<&str> = KEYWORDS
            .iter()
            .copied()
            .filter(|keyword| root.contains_key(*keyword) && is_constraint(root, keyword))
            .collect();
        for keyword in constraints {
            root.remove(keyword);
        }
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn contact() -> Value {
        json!({
            "type": "object",
            "properties": {
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "dependentRequired": {"phone": ["contactMethod"]}
        })
    }

    #[test]
    fn constraints_on_declared_fields_are_stripped_and_the_fields_kept() {
        let schema = contact();
        assert!(has_root_constraints(&schema));
        let stripped = without_root_constraints(&schema);
        assert!(!has_root_constraints(&stripped));
        for keyword in KEYWORDS {
            assert!(stripped.get(*keyword).is_none(), "{keyword} kept");
        }
        assert_eq!(stripped["properties"], schema["properties"]);
    }

    #[test]
    fn composition_that_declares_its_own_fields_is_not_a_constraint() {
        // What schemars writes for a flattened enum: the variants' fields live in `oneOf`.
        let flattened = json!({
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "oneOf": [
                {"properties": {"by_id": {"type": "integer"}}, "required": ["by_id"]},
                {"properties": {"by_email": {"type": "string"}}, "required": ["by_email"]}
            ]
        });
        assert!(!has_root_constraints(&flattened));
        assert_eq!(without_root_constraints(&flattened), flattened);
        // No root `properties`: alternatives describe the whole shape.
        let untagged = json!({"type": "object", "anyOf": [{"required": ["a"]}]});
        assert!(!has_root_constraints(&untagged));
    }
}

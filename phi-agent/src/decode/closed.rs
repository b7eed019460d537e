//! Unknown fields refused wherever the canonical schema closes an object, at any depth.
//!
//! serde refuses an unknown field only where the type says `#[serde(deny_unknown_fields)]`;
//! schemars writes `additionalProperties: false` for that attribute, so there the two agree. They
//! part where the schema closes an object that serde leaves open: `#[schemars(deny_unknown_fields)]`
//! without serde's, a `JsonSchema` written by hand, a schema closed by a schemars transform. The
//! validator then refuses what the decoder takes, and a model shown the schema is told one thing
//! while the tool does another. The rule here is the schema's: after a value decodes, each object
//! in it that its schema closes must hold no field the schema does not name.
//!
//! The check costs nothing where serde already enforces everything the schema closes, which is
//! every `#[phi_tool]` whose parameter types leave unknown fields open: its arguments are closed
//! at the root only, by serde. Once per argument type and thread, [`unknown_field`] reads the
//! schema and probes the decoder with an unknown field: a type whose only closed object is its
//! root, and whose decoder refuses that probe, is never checked again. Any other type with a
//! closed object is checked after each successful decode, by one walk over the value and its
//! schema together.

use std::any::TypeId;
use std::cell::{Cell, RefCell};
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

/// The field the probe sends: no schema names it.
pub(super) const PROBE_FIELD: &str = "\u{0}phi_agent_probe";

/// How to check a type's decoded values: its canonical schema, which closes some object.
struct Plan {
    schema: Arc<Value>,
}

thread_local! {
    /// Per argument type: its plan, or `None` when nothing needs checking. Per thread, so that
    /// a call reads it without a lock or a shared counter.
    static PLANS: RefCell<FxHashMap<TypeId, Option<Plan>>> = RefCell::new(FxHashMap::default());

    /// The argument type last found to need no check: a tool called again and again (the
    /// common case) is answered without a map lookup.
    static LAST_UNCHECKED: Cell<Option<TypeId>> = const { Cell::new(None) };
}

/// Whether `args_type` was the type last found to need no check (then [`unknown_field`] would
/// find nothing): the one question a call of a typed tool usually asks, answered inline.
#[inline]
pub(super) fn needs_no_check(args_type: TypeId) -> bool {
    LAST_UNCHECKED.get() == Some(args_type)
}

/// The first field of `value`, a decoded value of `args_type`, that the type's canonical
/// schema (`schema`) does not allow where it closes the object holding it. `refuses_probe`
/// decodes an object with an unknown field and says whether the decoder refused it for that
/// field; it and `schema` are called once per type and thread.
pub(super) fn unknown_field(
    args_type: TypeId,
    schema: fn() -> Arc<Value>,
    refuses_probe: &mut dyn FnMut(&Value) -> bool,
    value: &Value,
) -> Option<Unknown> {
    let known = PLANS.with(|plans| {
        plans.borrow().get(&args_type).map(|plan| match plan {
            Some(plan) => plan.unknown_field(value),
            None => {
                LAST_UNCHECKED.set(Some(args_type));
                None
            }
        })
    });
    if let Some(found) = known {
        return found;
    }
    let plan = Plan::compute(schema(), refuses_probe);
    let found = plan.as_ref().and_then(|plan| plan.unknown_field(value));
    if plan.is_none() {
        LAST_UNCHECKED.set(Some(args_type));
    }
    PLANS.with(|plans| plans.borrow_mut().insert(args_type, plan));
    found
}

impl Plan {
    #[cold]
    fn compute(schema: Arc<Value>, refuses_probe: &mut dyn FnMut(&Value) -> bool) -> Option<Plan> {
        let mut closed_root = false;
        let mut closed_below = false;
        find_closed(&schema, true, &mut closed_root, &mut closed_below);
        if !closed_root && !closed_below {
            return None;
        }
        if !closed_below {
            let probe = Value::Object(Map::from_iter([(PROBE_FIELD.to_string(), Value::Null)]));
            if refuses_probe(&probe) {
                return None;
            }
        }
        Some(Plan { schema })
    }

    /// See [`unknown_field`].
    fn unknown_field(&self, value: &Value) -> Option<Unknown> {
        let root = &*self.schema;
        unknown_in(root, root, value, 0)
    }
}

/// A field the schema does not allow: where, which, and what was allowed there.
pub(super) struct Unknown {
    /// Outermost first.
    pub(super) path: Vec<Step>,
    pub(super) field: String,
    pub(super) expected: Vec<String>,
}

/// One step of an [`Unknown`]'s path.
pub(super) enum Step {
    Field(String),
    Index(usize),
}

impl Unknown {
    fn within(mut self, step: Step) -> Self {
        self.path.insert(0, step);
        self
    }
}

/// Whether `schema` closes an object at its root and below it (every subschema visited once;
/// `$ref`s point into `$defs`, which are visited as subschemas of the root).
fn find_closed(schema: &Value, root: bool, closed_root: &mut bool, closed_below: &mut bool) {
    let Value::Object(map) = schema else { return };
    if map.get("additionalProperties") == Some(&Value::Bool(false)) {
        if root {
            *closed_root = true;
        } else {
            *closed_below = true;
        }
    }
    for (key, sub) in map {
        match key.as_str() {
            "properties" | "$defs" | "definitions" | "patternProperties" => {
                if let Value::Object(subs) = sub {
                    subs.values()
                        .for_each(|sub| find_closed(sub, false, closed_root, closed_below));
                }
            }
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => {
                if let Value::Array(subs) = sub {
                    // An alternative at the root is the root object itself.
                    subs.iter()
                        .for_each(|sub| find_closed(sub, root, closed_root, closed_below));
                }
            }
            "items" | "additionalProperties" | "not" | "if" | "then" | "else" => {
                find_closed(sub, false, closed_root, closed_below)
            }
            _ => {}
        }
    }
}

/// Deeper than this, the walk stops: the decoder has read the value, so it is no deeper than
/// the arguments' own limit, and a schema cannot refer to itself forever at one value.
const MAX_DEPTH: usize = 256;

fn unknown_in(root: &Value, schema: &Value, value: &Value, depth: usize) -> Option<Unknown> {
    let Value::Object(map) = schema else {
        return None;
    };
    if depth > MAX_DEPTH {
        return None;
    }
    if let Some(Value::String(reference)) = map.get("$ref")
        && let Some(target) = resolve(root, reference)
        && let Some(found) = unknown_in(root, target, value, depth + 1)
    {
        return Some(found);
    }
    if let Some(Value::Array(all)) = map.get("allOf") {
        for sub in all {
            if let Some(found) = unknown_in(root, sub, value, depth + 1) {
                return Some(found);
            }
        }
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alternatives)) = map.get(keyword) {
            // Refused only when every alternative that fits the value otherwise refuses it.
            let mut first = None;
            let mut fitting = false;
            for alternative in alternatives.iter().filter(|alt| fits(root, alt, value)) {
                fitting = true;
                match unknown_in(root, alternative, value, depth + 1) {
                    None => {
                        first = None;
                        break;
                    }
                    Some(found) => {
                        first.get_or_insert(found);
                    }
                }
            }
            if fitting && let Some(found) = first {
                return Some(found);
            }
        }
    }
    match value {
        Value::Object(fields) => {
            let properties = map.get("properties").and_then(Value::as_object);
            let additional = map.get("additionalProperties");
            if additional == Some(&Value::Bool(false))
                && !map.contains_key("patternProperties")
                && let Some(field) = fields
                    .keys()
                    .find(|key| !properties.is_some_and(|known| known.contains_key(*key)))
            {
                return Some(Unknown {
                    path: Vec::new(),
                    field: field.clone(),
                    expected: properties
                        .map(|known| known.keys().cloned().collect())
                        .unwrap_or_default(),
                });
            }
            for (name, field) in fields {
                let sub = properties.and_then(|known| known.get(name)).or(additional);
                if let Some(sub) = sub
                    && let Some(found) = unknown_in(root, sub, field, depth + 1)
                {
                    return Some(found.within(Step::Field(name.clone())));
                }
            }
            None
        }
        Value::Array(items) => {
            let prefix = map.get("prefixItems").and_then(Value::as_array);
            let rest = map.get("items");
            for (index, item) in items.iter().enumerate() {
                let sub = prefix.and_then(|prefix| prefix.get(index)).or(rest);
                if let Some(sub) = sub
                    && let Some(found) = unknown_in(root, sub, item, depth + 1)
                {
                    return Some(found.within(Step::Index(index)));
                }
            }
            None
        }
        _ => None,
    }
}

/// `#/$defs/Name` (or `#/definitions/Name`) in `root`.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

/// Whether the alternative `schema` could be the one `value` follows, judged by what tells
/// alternatives apart: the JSON type, and the `const` (a tag) or `enum` of each property the
/// value has, and the properties it requires.
fn fits(root: &Value, schema: &Value, value: &Value) -> bool {
    let Value::Object(map) = schema else {
        return true;
    };
    if let Some(Value::String(reference)) = map.get("$ref")
        && let Some(target) = resolve(root, reference)
        && !fits(root, target, value)
    {
        return false;
    }
    if let Some(types) = map.get("type") {
        let name = json_type(value);
        let admits = match types {
            Value::String(t) => t == name || (t == "number" && name == "integer"),
            Value::Array(ts) => ts
                .iter()
                .any(|t| t == name || (t == "number" && name == "integer")),
            _ => true,
        };
        if !admits {
            return false;
        }
    }
    if let Some(constant) = map.get("const") {
        return constant == value;
    }
    if let Some(Value::Array(allowed)) = map.get("enum") {
        return allowed.contains(value);
    }
    if let Value::Object(fields) = value {
        if let Some(Value::Array(required)) = map.get("required")
            && required
                .iter()
                .filter_map(Value::as_str)
                .any(|name| !fields.contains_key(name))
        {
            return false;
        }
        if let Some(Value::Object(properties)) = map.get("properties") {
            for (name, field) in fields {
                if let Some(sub) = properties.get(name)
                    && (sub.get("const").is_some() || sub.get("enum").is_some())
                    && !fits(root, sub, field)
                {
                    return false;
                }
            }
        }
    }
    true
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn plan(schema: Value) -> Plan {
        Plan {
            schema: Arc::new(schema),
        }
    }

    fn unknown(schema: &Plan, value: Value) -> Option<(String, String)> {
        schema.unknown_field(&value).map(|unknown| {
            let path = unknown
                .path
                .iter()
                .map(|step| match step {
                    Step::Field(name) => format!(".{name}"),
                    Step::Index(index) => format!("[{index}]"),
                })
                .collect();
            (path, unknown.field)
        })
    }

    #[test]
    fn a_closed_object_refuses_an_unknown_field_at_any_depth() {
        let line = json!({
            "type": "object",
            "properties": {"sku": {"type": "string"}},
            "additionalProperties": false
        });
        let schema = plan(json!({
            "type": "object",
            "properties": {"lines": {"type": "array", "items": {"$ref": "#/$defs/Line"}}},
            "$defs": {"Line": line}
        }));
        assert_eq!(unknown(&schema, json!({"lines": [{"sku": "a"}]})), None);
        assert_eq!(
            unknown(
                &schema,
                json!({"lines": [{"sku": "a"}, {"sku": "b", "gift_wrap": true}]})
            ),
            Some((
                "lines[1]".replace("lines", ".lines"),
                "gift_wrap".to_string()
            ))
        );
        assert_eq!(
            unknown(&schema, json!({"other": 1})),
            None,
            "the root is open"
        );
    }

    #[test]
    fn alternatives_refuse_only_when_every_fitting_one_does() {
        let schema = plan(json!({
            "type": "object",
            "properties": {"value": {"oneOf": [
                {"type": "object", "properties": {"kind": {"const": "a"}, "x": {}}, "required": ["kind"], "additionalProperties": false},
                {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]},
                {"type": "integer"}
            ]}}
        }));
        assert_eq!(
            unknown(&schema, json!({"value": {"kind": "b", "y": 1}})),
            None
        );
        assert_eq!(
            unknown(&schema, json!({"value": {"kind": "a", "y": 1}})),
            Some((".value".to_string(), "y".to_string()))
        );
        assert_eq!(unknown(&schema, json!({"value": 3})), None);
    }

    #[test]
    fn closed_objects_are_found_where_they_are() {
        let find = |schema: Value| {
            let (mut root, mut below) = (false, false);
            find_closed(&schema, true, &mut root, &mut below);
            (root, below)
        };
        assert_eq!(find(json!({"type": "object"})), (false, false));
        assert_eq!(
            find(json!({"type": "object", "additionalProperties": false})),
            (true, false)
        );
        assert_eq!(
            find(json!({"properties": {"a": {"additionalProperties": false}}})),
            (false, true)
        );
        assert_eq!(
            find(json!({"$defs": {"A": {"additionalProperties": false}}})),
            (false, true)
        );
    }
}

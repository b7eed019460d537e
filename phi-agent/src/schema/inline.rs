//! Replacing local `$ref`s by the definitions they point at, within a budget.
//!
//! Inlining copies a definition to every `$ref` to it. Definitions that use each other more
//! than once grow exponentially that way (`A` uses `B` twice, `B` uses `C` twice, ... is 2^n
//! copies), and a chain of definitions nests as deep as it is long: a schema from an untrusted
//! MCP server could exhaust memory or the stack. So inlining is all or nothing: when the inlined
//! schema would pass [`MAX_INLINED_SCHEMAS`] schema objects, nest deeper than
//! [`MAX_INLINED_HEIGHT`] levels or through more than [`MAX_INLINED_DEPTH`] references, or there
//! are more than [`MAX_DEFINITIONS`] definitions, every definition stays under `$defs` and every
//! `$ref` stays as written (still valid JSON Schema 2020-12). Rules:
//! `docs/src/providers.md#canonical-inline-refs`, `#canonical-inline-budget`.

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Value};

use super::walk::{ANNOTATIONS, for_each_schema_mut, for_each_subschema_mut};

/// Schema objects an inlined schema may hold (hand-written and derived schemas have tens).
const MAX_INLINED_SCHEMAS: u64 = 10_000;
/// `$ref`s that may lead through one another (derived types nest a handful deep).
pub(super) const MAX_INLINED_DEPTH: usize = 32;
/// JSON nesting of the inlined schema: no deeper than serde_json parses (the walks over a
/// schema recurse, so this keeps them far from the stack's end).
const MAX_INLINED_HEIGHT: usize = 128;
/// Definitions examined for inlining; finding the recursive ones costs their number squared.
pub(super) const MAX_DEFINITIONS: usize = 256;

/// Takes the root's definitions, inlines the non-recursive ones and puts back under `$defs`
/// those that stay (recursive ones, or all of them when inlining would be too large). A root
/// that is a `$ref` alone becomes its definition, which need not be an object.
pub(super) fn inline_definitions(mut root: Map<String, Value>) -> Value {
    let mut definitions = take_definitions(&mut root);
    let mut inlinable: HashMap<String, Value> = HashMap::new();
    if definitions.len() <= MAX_DEFINITIONS {
        let recursive = recursive_definitions(&definitions);
        inlinable = definitions
            .iter()
            .filter(|(name, _)| !recursive.contains(*name))
            .map(|(name, schema)| (name.clone(), schema.clone()))
            .collect();
    }
    let mut root = Value::Object(root);
    if !inlinable.is_empty() && !within_budget(&root, &definitions, &inlinable) {
        inlinable.clear();
    }
    if !inlinable.is_empty() {
        inline_refs(&mut root, &inlinable);
        definitions.retain(|name, _| !inlinable.contains_key(name));
        for schema in definitions.values_mut() {
            inline_refs(schema, &inlinable);
        }
    }
    match root {
        Value::Object(mut root) => {
            if !definitions.is_empty() {
                root.insert("$defs".into(), Value::Object(definitions));
            }
            Value::Object(root)
        }
        // Only an inlined definition replaces the root, and only recursive definitions stay.
        other => other,
    }
}

/// What inlining makes of one schema: how many schema objects, how many `$ref`s lead through
/// one another, and how many levels it nests.
#[derive(Debug, Clone, Copy)]
struct Expansion {
    schemas: u64,
    depth: usize,
    height: usize,
}

/// Whether the root and the kept definitions stay within the limits once inlined.
fn within_budget(
    root: &Value,
    definitions: &Map<String, Value>,
    inlinable: &HashMap<String, Value>,
) -> bool {
    let mut memo = HashMap::new();
    let kept = definitions
        .iter()
        .filter(|(name, _)| !inlinable.contains_key(*name))
        .map(|(_, schema)| schema);
    let mut total = 0u64;
    for schema in std::iter::once(root).chain(kept) {
        match expansion(schema, inlinable, &mut memo, 0) {
            Some(found) => total = total.saturating_add(found.schemas),
            None => return false,
        }
        if total > MAX_INLINED_SCHEMAS {
            return false;
        }
    }
    true
}

/// The expansion of `schema` reached through `depth` references, or `None` past a limit.
/// Recursion follows references only (at most [`MAX_INLINED_DEPTH`] deep); the schema's own
/// nesting is walked with a stack.
fn expansion(
    schema: &Value,
    inlinable: &HashMap<String, Value>,
    memo: &mut HashMap<String, Expansion>,
    depth: usize,
) -> Option<Expansion> {
    if depth > MAX_INLINED_DEPTH {
        return None;
    }
    let mut found = Expansion {
        schemas: 0,
        depth: 0,
        height: 0,
    };
    let mut pending = vec![(schema, 0usize)];
    while let Some((value, level)) = pending.pop() {
        found.height = found.height.max(level);
        match value {
            Value::Object(map) => {
                found.schemas += 1;
                let target = map
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(definition_name)
                    .and_then(|name| Some((inlinable.get(&name)?, name)));
                if let Some((definition, name)) = target {
                    let inner = match memo.get(&name) {
                        Some(known) => *known,
                        None => {
                            let computed = expansion(definition, inlinable, memo, depth + 1)?;
                            memo.insert(name, computed);
                            computed
                        }
                    };
                    if depth + 1 + inner.depth > MAX_INLINED_DEPTH {
                        return None;
                    }
                    found.schemas = found.schemas.saturating_add(inner.schemas);
                    found.depth = found.depth.max(1 + inner.depth);
                    found.height = found.height.max(level + inner.height);
                }
                pending.extend(map.values().map(|item| (item, level + 1)));
            }
            Value::Array(items) => pending.extend(items.iter().map(|item| (item, level + 1))),
            _ => {}
        }
        if found.schemas > MAX_INLINED_SCHEMAS || found.height > MAX_INLINED_HEIGHT {
            return None;
        }
    }
    Some(found)
}

/// Removes `$defs` (and the draft-7 `definitions`) from the root, merged into one map.
fn take_definitions(root: &mut Map<String, Value>) -> Map<String, Value> {
    let mut definitions = Map::new();
    for keyword in ["$defs", "definitions"] {
        if let Some(Value::Object(map)) = root.remove(keyword) {
            definitions.extend(map);
        }
    }
    definitions
}

/// The definition a local `$ref` points at: `#/$defs/Name` or `#/definitions/Name`.
pub(crate) fn definition_name(reference: &str) -> Option<String> {
    let encoded = reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))?;
    if encoded.contains('/') {
        return None;
    }
    Some(decode_pointer_token(encoded))
}

/// Undoes JSON Pointer (`~0`, `~1`) and URI fragment (`%XX`) escaping.
fn decode_pointer_token(token: &str) -> String {
    let bytes = token.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = bytes[i] == b'%'
            && i + 2 < bytes.len()
            && bytes[i + 1].is_ascii_hexdigit()
            && bytes[i + 2].is_ascii_hexdigit();
        if escaped {
            let hex = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
            out.push(hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]));
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out)
        .replace("~1", "/")
        .replace("~0", "~")
}

/// The local definitions each schema refers to.
fn references(schema: &Value) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut schema = schema.clone();
    for_each_schema_mut(&mut schema, &mut |map| {
        if let Some(name) = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(definition_name)
        {
            found.insert(name);
        }
    });
    found
}

/// Definitions that can reach themselves through `$ref`s: these must stay references.
fn recursive_definitions(definitions: &Map<String, Value>) -> BTreeSet<String> {
    let edges: HashMap<&str, BTreeSet<String>> = definitions
        .iter()
        .map(|(name, schema)| (name.as_str(), references(schema)))
        .collect();
    let mut recursive = BTreeSet::new();
    for start in definitions.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&str> = edges[start.as_str()].iter().map(String::as_str).collect();
        while let Some(name) = stack.pop() {
            if name == start {
                recursive.insert(start.clone());
                break;
            }
            if seen.insert(name)
                && let Some(next) = edges.get(name)
            {
                stack.extend(next.iter().map(String::as_str));
            }
        }
    }
    recursive
}

/// Replaces every `$ref` to one of `inlinable` by the definition itself.
///
/// The definitions form no cycle (recursive ones are excluded), so this terminates, and the
/// budget was checked, so the result is bounded.
fn inline_refs(schema: &mut Value, inlinable: &HashMap<String, Value>) {
    let Value::Object(map) = schema else { return };
    let target = map
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(definition_name)
        .and_then(|name| inlinable.get(&name));
    if let Some(definition) = target {
        let mut siblings = map.clone();
        siblings.remove("$ref");
        let mut replacement = merge(definition.clone(), siblings);
        inline_refs(&mut replacement, inlinable);
        *schema = replacement;
        return;
    }
    for_each_subschema_mut(map, &mut |sub| inline_refs(sub, inlinable));
}

/// A definition together with the keywords written beside the `$ref` to it. The siblings'
/// annotations (a field's own description) win over the definition's; a constraint written on
/// both sides keeps both by nesting the definition in `allOf`.
fn merge(definition: Value, siblings: Map<String, Value>) -> Value {
    let mut definition = match definition {
        Value::Object(mut map) => {
            // Definitions nested in a definition are reachable only by a pointer through it
            // (`#/$defs/A/$defs/B`), which is never inlined and dangles once `A` is; carried
            // along, they would turn into the root's own `$defs` where a root `$ref` is inlined.
            map.remove("$defs");
            map.remove("definitions");
            map
        }
        Value::Bool(true) => Map::new(),
        other if siblings.is_empty() => return other,
        other => {
            let mut wrapper = siblings;
            wrapper.insert("allOf".into(), Value::Array(vec![other]));
            return Value::Object(wrapper);
        }
    };
    let clash = siblings
        .keys()
        .any(|key| definition.contains_key(key) && !ANNOTATIONS.contains(&key.as_str()));
    if clash {
        let mut wrapper = siblings;
        wrapper.insert(
            "allOf".into(),
            Value::Array(vec![Value::Object(definition)]),
        );
        return Value::Object(wrapper);
    }
    for (key, value) in siblings {
        definition.insert(key, value);
    }
    Value::Object(definition)
}

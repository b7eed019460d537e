//! A schema rebuilt from another, borrowing every part that did not change.
//!
//! A dialect that rewrites a few keywords of a large schema would otherwise copy the whole
//! schema into a new `Value` (a map, a key string and a value per keyword) only to serialize it
//! once. A `Rebuilt` holds just the changed path: it serializes straight to JSON text and turns
//! into a `Value` only when someone asks for one.

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::{Map, Value};

/// One subschema of a rebuilt schema.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Rebuilt<'v> {
    /// Unchanged: the original subschema.
    Same(&'v Value),
    /// An object with its entries in output order.
    Object(Vec<(&'v str, Rebuilt<'v>)>),
    /// An array whose items were rebuilt.
    Array(Vec<Rebuilt<'v>>),
    /// A list of names taken from the original (an object's `required`).
    Names(Vec<&'v str>),
    /// A value the original does not have.
    New(Value),
}

impl<'v> Rebuilt<'v> {
    /// Whether nothing changed.
    pub(crate) fn is_same(&self) -> bool {
        matches!(self, Rebuilt::Same(_))
    }

    /// The entries of an object, unfolding an unchanged one so that an entry can be changed.
    pub(crate) fn entries_mut(&mut self) -> Option<&mut Vec<(&'v str, Rebuilt<'v>)>> {
        if let Rebuilt::Same(Value::Object(map)) = *self {
            *self = Rebuilt::Object(
                map.iter()
                    .map(|(key, value)| (key.as_str(), Rebuilt::Same(value)))
                    .collect(),
            );
        }
        match self {
            Rebuilt::Object(entries) => Some(entries),
            _ => None,
        }
    }

    /// The keys of an object, in order.
    pub(crate) fn keys(&self) -> Vec<&'v str> {
        match self {
            Rebuilt::Object(entries) => entries.iter().map(|(key, _)| *key).collect(),
            Rebuilt::Same(value) => value
                .as_object()
                .map(|map| map.keys().map(String::as_str).collect())
                .unwrap_or_default(),
            Rebuilt::Array(_) | Rebuilt::Names(_) | Rebuilt::New(_) => Vec::new(),
        }
    }

    /// The text, when this is a JSON string.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Rebuilt::Same(value) => value.as_str(),
            Rebuilt::New(value) => value.as_str(),
            Rebuilt::Object(_) | Rebuilt::Array(_) | Rebuilt::Names(_) => None,
        }
    }

    /// The rebuilt schema as an owned `Value`.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Rebuilt::Same(value) => value.clone(),
            Rebuilt::Object(entries) => Value::Object(
                entries
                    .into_iter()
                    .map(|(key, value)| (key.to_string(), value.into_value()))
                    .collect::<Map<String, Value>>(),
            ),
            Rebuilt::Array(items) => {
                Value::Array(items.into_iter().map(Rebuilt::into_value).collect())
            }
            Rebuilt::Names(names) => Value::Array(names.into_iter().map(Value::from).collect()),
            Rebuilt::New(value) => value,
        }
    }
}

/// Sets `key` in an object's entries, in place if it is there, else at the end.
pub(crate) fn set<'v>(entries: &mut Vec<(&'v str, Rebuilt<'v>)>, key: &'v str, value: Rebuilt<'v>) {
    match entries.iter_mut().find(|(name, _)| *name == key) {
        Some((_, slot)) => *slot = value,
        None => entries.push((key, value)),
    }
}

impl Serialize for Rebuilt<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Rebuilt::Same(value) => value.serialize(serializer),
            Rebuilt::New(value) => value.serialize(serializer),
            Rebuilt::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (key, value) in entries {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
            Rebuilt::Array(items) => serializer.collect_seq(items),
            Rebuilt::Names(names) => serializer.collect_seq(names),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_changed_entry_serializes_and_converts_the_same_way() {
        let original = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let mut rebuilt = Rebuilt::Same(&original);
        assert!(rebuilt.is_same());
        let entries = rebuilt.entries_mut().unwrap();
        set(entries, "additionalProperties", Rebuilt::New(json!(false)));
        set(entries, "type", Rebuilt::New(json!("object")));
        set(entries, "required", Rebuilt::Names(vec!["a"]));
        let kind = entries.iter().find(|(key, _)| *key == "type").unwrap();
        assert_eq!(kind.1.as_str(), Some("object"), "replaced where it was");
        assert!(!rebuilt.is_same());
        assert_eq!(
            rebuilt.keys(),
            ["type", "properties", "additionalProperties", "required"]
        );
        let text = serde_json::to_string(&rebuilt).unwrap();
        assert_eq!(
            text,
            r#"{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false,"required":["a"]}"#
        );
        assert_eq!(rebuilt.into_value().to_string(), text);
    }
}

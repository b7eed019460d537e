//! Tool definitions in a provider's dialect, converted once per distinct tool list.

use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::value::RawValue;

use super::ToolSpec;

/// JSON text shared between the cache and the requests made from it. The text stays in the
/// allocation serde_json wrote it into: `Arc<RawValue>` would copy it (hundreds of kilobytes for
/// a thousand tools, in pages never touched before) on a list's first request.
type Json = Arc<Box<RawValue>>;

/// A tool list and its JSON text.
type Converted = (Arc<[ToolSpec]>, Json);

/// The last tool list an adapter converted, and its JSON, keyed on the list's pointer: the reuse
/// rule stated in `registry/shared_list.rs`.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolJsonCache {
    last: Arc<Mutex<Option<Converted>>>,
}

impl ToolJsonCache {
    /// The JSON array of `tools`, each converted by `convert`, serialized; rebuilt only for a new
    /// list. Held as text so that a turn with an unchanged list copies bytes into the request body
    /// instead of serializing every tool again.
    pub(crate) fn get<'t, D: Serialize>(
        &self,
        tools: &'t Arc<[ToolSpec]>,
        convert: fn(&'t ToolSpec) -> D,
    ) -> SharedJson {
        let mut last = self
            .last
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((list, json)) = last.as_ref()
            && Arc::ptr_eq(list, tools)
        {
            return SharedJson(json.clone());
        }
        // Written straight to text, each definition borrowing its schema: no intermediate copy.
        // Serializing JSON values cannot fail: their keys are strings and their numbers finite.
        let json: Json = Arc::new(
            serde_json::value::to_raw_value(&Definitions { tools, convert }).unwrap_or_default(),
        );
        *last = Some((tools.clone(), json.clone()));
        SharedJson(json)
    }
}

/// A tool list serialized as the array of its definitions.
struct Definitions<'t, D> {
    tools: &'t [ToolSpec],
    convert: fn(&'t ToolSpec) -> D,
}

impl<'t, D: Serialize> Serialize for Definitions<'t, D> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.tools.iter().map(self.convert))
    }
}

/// A shown list, a deferred list, and the JSON text of the `tools` array made of them.
#[cfg(any(feature = "openai", feature = "anthropic"))]
type WithDeferred = (Arc<[ToolSpec]>, Arc<[ToolSpec]>, Json);

/// The last `tools` array an adapter with a native tool search built: the shown tools, the
/// provider's server tools (its search, its code execution), then the deferred ones marked
/// `defer_loading: true`. Kept, like
/// [`ToolJsonCache`], for the last pair of lists (both stay the same `Arc`s from turn to turn
/// while nothing changes).
#[cfg(any(feature = "openai", feature = "anthropic"))]
#[derive(Debug, Clone, Default)]
pub(crate) struct DeferredJsonCache {
    last: Arc<Mutex<Option<WithDeferred>>>,
}

#[cfg(any(feature = "openai", feature = "anthropic"))]
impl DeferredJsonCache {
    /// The `tools` array: `shown` converted by `convert`, then `extra` (the server tools), then each of `deferred`
    /// not shown, converted, with `defer_loading: true`. The search tool is never deferred, so
    /// no request has only deferred tools (which the providers refuse); a deferred tool that is
    /// also shown is sent once, shown. With `namespaces` (the Responses API), the deferred tools
    /// of one [group](ToolSpec::group) go in one `namespace` entry with the group's description,
    /// at the place of the group's first tool.
    pub(crate) fn get<'t, D: Serialize, E: Serialize>(
        &self,
        shown: &'t Arc<[ToolSpec]>,
        deferred: &'t Arc<[ToolSpec]>,
        convert: fn(&'t ToolSpec) -> D,
        extra: &[E],
        namespaces: bool,
    ) -> SharedJson {
        let mut last = self
            .last
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some((s, d, json)) = last.as_ref()
            && Arc::ptr_eq(s, shown)
            && Arc::ptr_eq(d, deferred)
        {
            return SharedJson(json.clone());
        }
        // Borrowed entries (a few pointers each), written straight to text.
        let mut entries: Vec<Entry<'_, D, E>> = shown
            .iter()
            .map(|spec| Entry::Tool(convert(spec)))
            .chain(extra.iter().map(Entry::Search))
            .collect();
        for spec in deferred
            .iter()
            .filter(|spec| !shown.iter().any(|s| s.name == spec.name))
        {
            let tool = Entry::Deferred {
                tool: convert(spec),
                defer_loading: true,
            };
            let Some(group) = spec.group().filter(|_| namespaces) else {
                entries.push(tool);
                continue;
            };
            let name = namespace_name(&group.name);
            let known = entries.iter_mut().find_map(|entry| match entry {
                Entry::Namespace { name: n, tools, .. } if *n == name => Some(tools),
                _ => None,
            });
            match known {
                Some(tools) => tools.push(tool),
                None => entries.push(Entry::Namespace {
                    kind: "namespace",
                    description: match group.description.trim() {
                        "" => group.name.as_str(),
                        said => said,
                    },
                    name,
                    tools: vec![tool],
                }),
            }
        }
        // Serializing JSON values cannot fail: their keys are strings and their numbers finite.
        let json: Json = Arc::new(serde_json::value::to_raw_value(&entries).unwrap_or_default());
        *last = Some((shown.clone(), deferred.clone(), json.clone()));
        SharedJson(json)
    }
}

/// One entry of a `tools` array with deferred tools.
#[cfg(any(feature = "openai", feature = "anthropic"))]
#[derive(Serialize)]
#[serde(untagged)]
enum Entry<'a, D, E> {
    Tool(D),
    Search(&'a E),
    Deferred {
        #[serde(flatten)]
        tool: D,
        defer_loading: bool,
    },
    /// The Responses API's group of tools: its functions are found and called by their own
    /// names.
    Namespace {
        #[serde(rename = "type")]
        kind: &'static str,
        name: String,
        description: &'a str,
        tools: Vec<Entry<'a, D, E>>,
    },
}

/// A group's name as a namespace's: letters, digits, `_` and `-`, at most 64 (a function name's
/// rule), anything else `_`.
#[cfg(any(feature = "openai", feature = "anthropic"))]
fn namespace_name(group: &str) -> String {
    let name: String = group
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' => c,
            _ => '_',
        })
        .take(64)
        .collect();
    if name.is_empty() {
        "tools".into()
    } else {
        name
    }
}

/// An empty tool list that stays the same `Arc`, so that the tools cache keeps holding for a
/// request whose server tools come without deferred ones.
#[cfg(any(feature = "openai", feature = "anthropic"))]
pub(crate) fn no_tools() -> &'static Arc<[ToolSpec]> {
    static NONE: std::sync::OnceLock<Arc<[ToolSpec]>> = std::sync::OnceLock::new();
    NONE.get_or_init(|| Arc::from(Vec::new()))
}

/// Shared JSON text that serializes as the value it holds (serde's `rc` feature is not enabled).
#[derive(Debug, Clone)]
pub(crate) struct SharedJson(pub(crate) Json);

impl Serialize for SharedJson {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    fn spec(name: &'static str) -> ToolSpec {
        ToolSpec::new(name, "", serde_json::json!({"type": "object"}))
    }

    #[test]
    fn an_unchanged_list_is_converted_once() {
        let cache = ToolJsonCache::default();
        let tools: Arc<[ToolSpec]> = Arc::from(vec![spec("a")]);
        let first = cache.get(&tools, |s| Value::from(s.name));
        let again = cache.get(&tools.clone(), |_| -> Value { unreachable!("cached") });
        assert!(Arc::ptr_eq(&first.0, &again.0));
        let other: Arc<[ToolSpec]> = Arc::from(vec![spec("a"), spec("b")]);
        assert_eq!(
            cache.get(&other, |s| Value::from(s.name)).0.get(),
            r#"["a","b"]"#
        );
    }
}

//! How two requests differ, field by field, with JSON paths (`$.messages[1].content`), and the
//! matching rule that may ignore some of them.

use serde_json::Value;

/// How a replayed request must match a recorded one: its method, path and query (never the host:
/// a cassette recorded against one server replays against any base URL) and its body.
///
/// ```
/// use phi_agent_eval::cassette::Matching;
/// // Byte for byte, but for a field that changes on every run.
/// let matching = Matching::exact().ignoring("$.metadata.run_id").ignoring("$.messages[*].id");
/// # let _ = matching;
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Matching {
    ignored: Vec<Vec<Step>>,
}

impl Matching {
    /// The body byte for byte: the same JSON, keys in the same order.
    pub fn exact() -> Self {
        Self::default()
    }

    /// Ignores the body field at `path`: `$` then `.name` or `[index]` steps, `[*]` for any
    /// index and `.*` for any name. With any field ignored, bodies are compared as JSON values
    /// (the order of keys no longer counts).
    pub fn ignoring(mut self, path: &str) -> Self {
        self.ignored.push(parse_path(path));
        self
    }

    /// Whether `path` is ignored.
    fn ignores(&self, path: &[Step]) -> bool {
        self.ignored.iter().any(|pattern| {
            pattern.len() == path.len()
                && pattern
                    .iter()
                    .zip(path)
                    .all(|(want, step)| match (want, step) {
                        (Step::AnyKey, Step::Key(_)) | (Step::AnyIndex, Step::Index(_)) => true,
                        (want, step) => want == step,
                    })
        })
    }

    /// Whether any field is ignored (bodies are then compared as values).
    pub(crate) fn is_exact(&self) -> bool {
        self.ignored.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
    AnyKey,
    AnyIndex,
}

fn parse_path(path: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let rest = path.strip_prefix('$').unwrap_or(path);
    for part in rest.split('.').filter(|part| !part.is_empty()) {
        let (name, indices) = match part.find('[') {
            Some(at) => part.split_at(at),
            None => (part, ""),
        };
        if !name.is_empty() {
            steps.push(if name == "*" {
                Step::AnyKey
            } else {
                Step::Key(name.to_string())
            });
        }
        for index in indices.split('[').filter(|index| !index.is_empty()) {
            let index = index.trim_end_matches(']');
            steps.push(match index.parse() {
                Ok(index) => Step::Index(index),
                // `*`, or anything that is no number, matches any index.
                Err(_) => Step::AnyIndex,
            });
        }
    }
    steps
}

fn render_path(path: &[Step]) -> String {
    let mut text = String::from("$");
    for step in path {
        match step {
            Step::Key(name) => {
                text.push('.');
                text.push_str(name);
            }
            Step::Index(index) => text.push_str(&format!("[{index}]")),
            Step::AnyKey => text.push_str(".*"),
            Step::AnyIndex => text.push_str("[*]"),
        }
    }
    text
}

/// One field where a request differs from the recorded one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The field's JSON path, `$` for the whole body.
    pub path: String,
    /// What the cassette holds there (`None`: no such field).
    pub recorded: Option<String>,
    /// What the request holds there (`None`: no such field).
    pub sent: Option<String>,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |value: &Option<String>| match value {
            Some(value) => value.clone(),
            None => "nothing".to_string(),
        };
        write!(
            f,
            "{}: the cassette has {}, the request has {}",
            self.path,
            show(&self.recorded),
            show(&self.sent)
        )
    }
}

/// At most this many differences are listed: the first ones say what changed.
const MOST: usize = 8;

/// The differences between `recorded` and `sent`, ignoring what `matching` ignores.
pub(crate) fn differences(recorded: &Value, sent: &Value, matching: &Matching) -> Vec<Difference> {
    let mut out = Vec::new();
    walk(recorded, sent, &mut Vec::new(), matching, &mut out);
    out
}

fn walk(
    recorded: &Value,
    sent: &Value,
    path: &mut Vec<Step>,
    matching: &Matching,
    out: &mut Vec<Difference>,
) {
    if out.len() >= MOST || matching.ignores(path) {
        return;
    }
    match (recorded, sent) {
        (Value::Object(left), Value::Object(right)) => {
            for (name, value) in left {
                path.push(Step::Key(name.clone()));
                match right.get(name) {
                    Some(other) => walk(value, other, path, matching, out),
                    None if !matching.ignores(path) => out.push(Difference {
                        path: render_path(path),
                        recorded: Some(shown(value)),
                        sent: None,
                    }),
                    None => {}
                }
                path.pop();
            }
            for (name, value) in right.iter().filter(|(name, _)| !left.contains_key(*name)) {
                path.push(Step::Key(name.clone()));
                if !matching.ignores(path) && out.len() < MOST {
                    out.push(Difference {
                        path: render_path(path),
                        recorded: None,
                        sent: Some(shown(value)),
                    });
                }
                path.pop();
            }
        }
        (Value::Array(left), Value::Array(right)) => {
            for index in 0..left.len().max(right.len()) {
                path.push(Step::Index(index));
                match (left.get(index), right.get(index)) {
                    (Some(left), Some(right)) => walk(left, right, path, matching, out),
                    (left, right) if !matching.ignores(path) && out.len() < MOST => {
                        out.push(Difference {
                            path: render_path(path),
                            recorded: left.map(shown),
                            sent: right.map(shown),
                        })
                    }
                    _ => {}
                }
                path.pop();
            }
        }
        (left, right) if left != right => out.push(Difference {
            path: render_path(path),
            recorded: Some(shown(left)),
            sent: Some(shown(right)),
        }),
        _ => {}
    }
}

/// A value for a message: its JSON, cut to a readable length.
fn shown(value: &Value) -> String {
    const LONGEST: usize = 120;
    let text = value.to_string();
    if text.chars().count() <= LONGEST {
        return text;
    }
    let cut: String = text.chars().take(LONGEST).collect();
    format!("{cut}... ({} bytes)", text.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn differences_name_the_field() {
        let recorded = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
        let sent =
            json!({"model": "m", "messages": [{"role": "user", "content": "hello"}], "n": 2});
        let found = differences(&recorded, &sent, &Matching::exact());
        let shown: Vec<String> = found.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                r#"$.messages[0].content: the cassette has "hi", the request has "hello""#,
                "$.n: the cassette has nothing, the request has 2",
            ]
        );
    }

    #[test]
    fn ignored_fields_are_skipped_with_wildcards() {
        let recorded = json!({"id": 1, "items": [{"id": "a", "x": 1}, {"id": "b", "x": 2}]});
        let sent = json!({"id": 2, "items": [{"id": "c", "x": 1}, {"id": "d", "x": 3}]});
        let matching = Matching::exact().ignoring("$.id").ignoring("$.items[*].id");
        let found = differences(&recorded, &sent, &matching);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].path, "$.items[1].x");
        assert!(!matching.is_exact());
    }

    #[test]
    fn paths_parse_and_render() {
        for path in ["$", "$.a", "$.a[0].b", "$.a[*].b", "$.*.c"] {
            assert_eq!(render_path(&parse_path(path)), path);
        }
    }
}

//! Result budgets: what a tool's output may take of the model's context, per call and per turn.
//!
//! Output over its budget is cut so that what is left still reads as what it was: text keeps its
//! head and its tail, with a marker between them saying how many bytes were left out, cut only on
//! character boundaries; a JSON value stays valid JSON, made smaller by dropping elements from the
//! end of its largest arrays and bytes from the end of its longest strings (objects lose their
//! last entries only when nothing else is left to cut), and the note after it names each place
//! that was cut. Either way a last note gives the full size and the limit and asks the model for
//! less. One budget rule for every tool, MCP-imported ones included: it is applied by the
//! registry after the call, and by the loop to a turn's results together.

use serde_json::{Map, Value};

/// How much of the model's context a tool's output may take: in bytes, or in estimated tokens.
///
/// Budgets are applied in bytes; a budget in tokens is read as
/// [`BYTES_PER_TOKEN`](Self::BYTES_PER_TOKEN) bytes per token, the usual estimate for English
/// text and JSON with the tokenizers of OpenAI, Anthropic and Gemini (code and non-Latin text
/// take more tokens per byte: give those a smaller budget). `#[non_exhaustive]`: another unit
/// may come.
///
/// The budget bounds the tool's output that is kept; what the model reads of a cut result is
/// longer by the cut's marker and notes, which say where it was cut, the full size and the
/// limit (about 130 bytes for a text cut once).
///
/// ```
/// use phi_agent::ResultBudget;
/// assert_eq!(ResultBudget::Tokens(2_000).bytes(), 8_000);
/// assert_eq!(ResultBudget::Bytes(8_192).bytes(), 8_192);
/// assert_eq!(ResultBudget::Bytes(8_192).tokens(), 2_048);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ResultBudget {
    /// Bytes of the tool's output as the model reads it (UTF-8 text, compact JSON), the cut's
    /// marker and notes not counted.
    Bytes(usize),
    /// Estimated tokens: [`BYTES_PER_TOKEN`](Self::BYTES_PER_TOKEN) bytes each.
    Tokens(usize),
}

impl ResultBudget {
    /// Bytes per estimated token.
    pub const BYTES_PER_TOKEN: usize = 4;

    /// The budget in bytes, the unit it is applied in (saturating, for a budget in tokens that
    /// would overflow).
    pub fn bytes(self) -> usize {
        match self {
            ResultBudget::Bytes(bytes) => bytes,
            ResultBudget::Tokens(tokens) => tokens.saturating_mul(Self::BYTES_PER_TOKEN),
        }
    }

    /// The budget in estimated tokens (rounded down, for a budget in bytes).
    pub fn tokens(self) -> usize {
        match self {
            ResultBudget::Bytes(bytes) => bytes / Self::BYTES_PER_TOKEN,
            ResultBudget::Tokens(tokens) => tokens,
        }
    }
}

use crate::content::Content;
use crate::limits::floor_char_boundary;

/// Cuts `contents` to about `limit` bytes as the model sees them (the markers and notes come on
/// top), and returns them unchanged when they fit. Pieces that fit whole are kept whole; the
/// first one that does not is cut to what is left; the pieces after it are left out.
pub(crate) fn fit(contents: Vec<Content>, limit: usize) -> Vec<Content> {
    let total: usize = contents.iter().map(Content::model_len).sum();
    if total <= limit {
        return contents;
    }
    let mut budget = limit;
    let mut kept = Vec::with_capacity(contents.len() + 1);
    let mut cuts = Vec::new();
    for content in contents {
        let len = content.model_len();
        if len <= budget {
            budget -= len;
            kept.push(content);
            continue;
        }
        if budget > 0 && !content.is_media() {
            match content {
                Content::Json { value } => {
                    if let Some(value) = shrink_json(value, budget, &mut cuts) {
                        kept.push(Content::json(value));
                    }
                }
                other => kept.push(Content::text(cut_text(&other.to_model_text(), budget))),
            }
        }
        budget = 0;
    }
    let cut = if cuts.is_empty() {
        String::new()
    } else {
        let places: Vec<String> = cuts.iter().map(Cut::describe).collect();
        format!("; the JSON is still valid, cut at {}", places.join(", "))
    };
    kept.push(Content::text(format!(
        "\n[output truncated: {total} bytes, limit {limit}{cut}; ask for less, e.g. a narrower query or a page of results]"
    )));
    kept
}

/// Fits a turn's results into `limit` bytes together: each result keeps what it has up to one
/// common share, the largest share for which the total fits (small results are never cut to make
/// room for a large one), and those above it are [`fit`] to it.
pub(crate) fn share_turn(results: &mut [&mut Vec<Content>], limit: usize) {
    let mut sizes: Vec<usize> = results
        .iter()
        .map(|content| content.iter().map(Content::model_len).sum())
        .collect();
    if sizes.iter().sum::<usize>() <= limit {
        return;
    }
    let share = {
        sizes.sort_unstable();
        let mut left = limit;
        let mut share = 0;
        for (at, &size) in sizes.iter().enumerate() {
            let others = sizes.len() - at;
            if size * others <= left {
                left -= size;
            } else {
                share = left / others;
                break;
            }
        }
        share
    };
    for content in results.iter_mut() {
        let taken = std::mem::take(&mut **content);
        **content = fit(taken, share);
    }
}

/// `text` cut to about `budget` bytes: its head and its tail, half the budget each, around a
/// marker that says how much was left out.
fn cut_text(text: &str, budget: usize) -> String {
    if text.len() <= budget {
        return text.to_string();
    }
    let head = floor_char_boundary(text, budget / 2);
    let tail = ceil_char_boundary(text, text.len() - (budget - head));
    format!(
        "{}\n[... {} bytes left out ...]\n{}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}

fn ceil_char_boundary(text: &str, index: usize) -> usize {
    (index..text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len())
}

/// One place a JSON value was cut.
struct Cut {
    path: String,
    kept: usize,
    of: usize,
    unit: &'static str,
}

impl Cut {
    fn describe(&self) -> String {
        // `$` alone is JSONPath for the whole value; a model reads the words better.
        let place = if self.path == "$" {
            "the top level".to_string()
        } else {
            format!("`{}`", self.path)
        };
        format!("{place} (kept {} of {} {})", self.kept, self.of, self.unit)
    }
}

/// Most cuts one value gets; each cut covers the whole excess where it can, so a few suffice.
const MAX_CUTS: usize = 64;

/// `value` made to serialize in at most `budget` bytes by cutting its largest parts, each cut
/// noted in `cuts`; `None` when even that cannot make it fit.
fn shrink_json(mut value: Value, budget: usize, cuts: &mut Vec<Cut>) -> Option<Value> {
    for _ in 0..MAX_CUTS {
        let mut largest = None;
        let size = scan(&value, &mut Vec::new(), &mut largest);
        if size <= budget {
            return Some(value);
        }
        let (_, path) = largest?;
        let excess = size - budget;
        let node = locate(&mut value, &path)?;
        let (kept, of, unit) = match node {
            Value::Array(items) => {
                let of = items.len();
                let mut removed = 0;
                while items.len() > 1 && removed < excess {
                    removed += items.pop().map_or(0, |item| json_len(&item) + 1);
                }
                (items.len(), of, "elements")
            }
            Value::String(text) => {
                let of = text.len();
                let keep = floor_char_boundary(text, of.saturating_sub(excess + '…'.len_utf8()));
                text.truncate(keep);
                text.push('…');
                (keep, of, "bytes")
            }
            Value::Object(map) => {
                let of = map.len();
                let mut removed = 0;
                while map.len() > 1 && removed < excess {
                    removed += pop_last(map);
                }
                (map.len(), of, "entries")
            }
            _ => return None,
        };
        let path = render_path(&path);
        match cuts.iter_mut().find(|cut| cut.path == path) {
            Some(cut) => cut.kept = kept,
            None => cuts.push(Cut {
                path,
                kept,
                of,
                unit,
            }),
        }
    }
    (json_len(&value) <= budget).then_some(value)
}

/// One step of a path into a JSON value.
#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

/// The candidate to cut: its size and path. Arrays of two or more elements and strings longer
/// than [`MIN_CUT_STRING`] are preferred; an object only when there is no such candidate.
type Largest = Option<((bool, usize), Vec<Step>)>;

/// Strings this short are left whole: cutting them saves little and loses their meaning.
const MIN_CUT_STRING: usize = 16;

/// The exact length of `value` as compact JSON, noting the largest part that can be cut.
fn scan(value: &Value, path: &mut Vec<Step>, largest: &mut Largest) -> usize {
    let (size, cuttable) = match value {
        Value::Array(items) => {
            let mut size = 2 + items.len().saturating_sub(1);
            for (index, item) in items.iter().enumerate() {
                path.push(Step::Index(index));
                size += scan(item, path, largest);
                path.pop();
            }
            (size, (items.len() > 1).then_some(true))
        }
        Value::Object(map) => {
            let mut size = 2 + map.len().saturating_sub(1);
            for (key, item) in map {
                path.push(Step::Key(key.clone()));
                size += string_len(key) + 1 + scan(item, path, largest);
                path.pop();
            }
            (size, (map.len() > 1).then_some(false))
        }
        Value::String(text) => (
            string_len(text),
            (text.len() > MIN_CUT_STRING).then_some(true),
        ),
        scalar => (scalar_len(scalar), None),
    };
    if let Some(preferred) = cuttable {
        let rank = (preferred, size);
        if largest.as_ref().is_none_or(|(best, _)| rank > *best) {
            *largest = Some((rank, path.clone()));
        }
    }
    size
}

fn json_len(value: &Value) -> usize {
    scan(value, &mut Vec::new(), &mut None)
}

fn scalar_len(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(number) => number.to_string().len(),
        other => json_len(other),
    }
}

/// The length of `text` as a JSON string, quotes and escapes included (as serde_json writes it).
fn string_len(text: &str) -> usize {
    2 + text
        .bytes()
        .map(|byte| match byte {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            0..=0x1f => 6,
            _ => 1,
        })
        .sum::<usize>()
}

fn locate<'v>(value: &'v mut Value, path: &[Step]) -> Option<&'v mut Value> {
    path.iter().try_fold(value, |value, step| match step {
        Step::Key(key) => value.get_mut(key.as_str()),
        Step::Index(index) => value.get_mut(*index),
    })
}

/// Removes the last entry of `map`, returning how many bytes it took.
fn pop_last(map: &mut Map<String, Value>) -> usize {
    let Some(key) = map.keys().next_back().cloned() else {
        return 0;
    };
    map.remove(&key)
        .map_or(0, |item| string_len(&key) + 2 + json_len(&item))
}

fn render_path(path: &[Step]) -> String {
    let mut out = String::from("$");
    for step in path {
        match step {
            Step::Key(key)
                if !key.is_empty()
                    && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') =>
            {
                out.push('.');
                out.push_str(key);
            }
            Step::Key(key) => out.push_str(&format!("[{}]", Value::String(key.clone()))),
            Step::Index(index) => out.push_str(&format!("[{index}]")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn exact_length_matches_serde_json() {
        let value = json!({"a": [1, -2.5, null, true, false], "b\"\n": "x\u{1}é", "c": {}});
        assert_eq!(json_len(&value), value.to_string().len());
    }

    #[test]
    fn multi_byte_text_is_cut_on_char_boundaries_and_says_so() {
        let out = fit(vec![Content::text("é".repeat(100))], 51);
        let text = out[0].as_text().unwrap();
        let (head, rest) = text.split_once('\n').unwrap();
        let tail = rest.rsplit_once('\n').unwrap().1;
        assert_eq!(head, "é".repeat(12));
        assert_eq!(tail, "é".repeat(13));
        assert!(text.contains("[... 150 bytes left out ...]"), "{text}");
        let note = out[1].as_text().unwrap();
        assert!(
            note.contains("output truncated: 200 bytes, limit 51"),
            "{note}"
        );
        let small = vec![Content::text("ok")];
        assert_eq!(fit(small.clone(), 10), small);
    }

    #[test]
    fn a_cut_of_the_whole_value_names_the_top_level_not_its_json_path() {
        let rows: Vec<Value> = (0..200).map(|n| json!({"row": n})).collect();
        let out = fit(vec![Content::json(Value::Array(rows))], 300);
        let note = out.last().unwrap().as_text().unwrap();
        assert!(note.contains("cut at the top level (kept "), "{note}");
        assert!(!note.contains("`$`"), "{note}");
        let nested = json!({"rows": (0..200).collect::<Vec<_>>()});
        let out = fit(vec![Content::json(nested)], 300);
        let note = out.last().unwrap().as_text().unwrap();
        assert!(note.contains("cut at `$.rows` (kept "), "{note}");
    }

    #[test]
    fn text_keeps_head_and_tail() {
        let text = format!("{}{}", "a".repeat(1000), "z".repeat(1000));
        let cut = cut_text(&text, 100);
        assert!(cut.starts_with(&"a".repeat(50)), "{cut}");
        assert!(cut.ends_with(&"z".repeat(50)), "{cut}");
        assert!(cut.contains("[... 1900 bytes left out ...]"), "{cut}");
    }

    #[test]
    fn a_turn_shares_its_budget_without_cutting_small_results() {
        let mut small = vec![Content::text("ok")];
        let mut large = vec![Content::text("x".repeat(10_000))];
        let mut larger = vec![Content::text("y".repeat(50_000))];
        share_turn(&mut [&mut small, &mut large, &mut larger], 4_002);
        assert_eq!(small, vec![Content::text("ok")]);
        let kept = |content: &Vec<Content>| content[0].as_text().unwrap().len();
        assert!(kept(&large) < 2_100 && kept(&larger) < 2_100);
        assert!(large[1].as_text().unwrap().contains("limit 2000"));
    }
}

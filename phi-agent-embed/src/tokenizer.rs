//! A byte-pair-encoding tokenizer read from a Hugging Face `tokenizer.json`: the subset static
//! embedding models ship (SentencePiece-style BPE with byte fallback, a `Prepend`/`Replace`
//! normalizer, no pre-tokenizer), giving the token ids the `tokenizers` library gives for the
//! same file (`tests/tokenizer.rs` compares them). Any other tokenizer is refused at load
//! rather than tokenized differently.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;
use serde_json::Value;

/// One step of the normalizer, applied to each piece of text between added tokens.
#[derive(Debug, Clone)]
enum Normalize {
    /// Puts this before a non-empty piece.
    Prepend(String),
    /// Replaces every occurrence of the first string by the second.
    Replace(String, String),
}

/// Tokenizer of one model.
#[derive(Debug)]
pub(crate) struct Bpe {
    vocab: FxHashMap<String, u32>,
    /// Per pair of adjacent ids: the merge's rank (lower merges first) and the merged id.
    merges: FxHashMap<(u32, u32), (u32, u32)>,
    /// The `<0xXX>` token of every byte, when the model falls back to bytes.
    bytes: Option<Box<[u32; 256]>>,
    unk: Option<u32>,
    fuse_unk: bool,
    normalizers: Vec<Normalize>,
    /// Literal texts that are one token each, longest first.
    added: Vec<(String, u32)>,
}

impl Bpe {
    /// Reads a `tokenizer.json`; the message says what is missing or not supported.
    pub(crate) fn from_json(json: &Value) -> Result<Self, String> {
        let model = json.get("model").ok_or("no `model`")?;
        let kind = model.get("type").and_then(Value::as_str).unwrap_or("BPE");
        if kind != "BPE" {
            return Err(format!("a {kind} model (only BPE is supported)"));
        }
        for unsupported in ["continuing_subword_prefix", "end_of_word_suffix", "dropout"] {
            if model.get(unsupported).is_some_and(|v| !v.is_null()) {
                return Err(format!("BPE with `{unsupported}` (not supported)"));
            }
        }
        if json.get("pre_tokenizer").is_some_and(|v| !v.is_null()) {
            return Err("a pre-tokenizer (not supported)".into());
        }
        let vocab: FxHashMap<String, u32> = model
            .get("vocab")
            .and_then(Value::as_object)
            .ok_or("no `model.vocab`")?
            .iter()
            .map(|(token, id)| {
                let id = id.as_u64().and_then(|id| u32::try_from(id).ok());
                id.map(|id| (token.clone(), id))
                    .ok_or_else(|| format!("vocab entry {token:?} has no id"))
            })
            .collect::<Result<_, _>>()?;
        let mut merges = FxHashMap::default();
        let list = model
            .get("merges")
            .and_then(Value::as_array)
            .ok_or("no `model.merges`")?;
        for (rank, merge) in list.iter().enumerate() {
            // Two spellings: "a b" (older files) and ["a", "b"].
            let (left, right) = match merge {
                Value::String(pair) => pair.split_once(' ').ok_or("a merge without a space")?,
                Value::Array(pair) => match pair.as_slice() {
                    [Value::String(a), Value::String(b)] => (a.as_str(), b.as_str()),
                    _ => return Err("a merge that is not two strings".into()),
                },
                _ => return Err("a merge that is not two strings".into()),
            };
            let id = |token: &str| {
                vocab
                    .get(token)
                    .copied()
                    .ok_or_else(|| format!("merge token {token:?} is not in the vocab"))
            };
            let merged = id(&format!("{left}{right}"))?;
            merges.insert((id(left)?, id(right)?), (rank as u32, merged));
        }
        let bytes = if model.get("byte_fallback").and_then(Value::as_bool) == Some(true) {
            let mut table = Box::new([0u32; 256]);
            for (byte, slot) in table.iter_mut().enumerate() {
                let token = format!("<0x{byte:02X}>");
                *slot = *vocab
                    .get(&token)
                    .ok_or_else(|| format!("byte fallback without {token}"))?;
            }
            Some(table)
        } else {
            None
        };
        let unk = match model.get("unk_token").and_then(Value::as_str) {
            Some(token) => Some(
                *vocab
                    .get(token)
                    .ok_or_else(|| format!("unk token {token:?} is not in the vocab"))?,
            ),
            None => None,
        };
        let fuse_unk = model.get("fuse_unk").and_then(Value::as_bool) == Some(true);
        let mut normalizers = Vec::new();
        if let Some(normalizer) = json.get("normalizer").filter(|v| !v.is_null()) {
            read_normalizer(normalizer, &mut normalizers)?;
        }
        let mut added: Vec<(String, u32)> = Vec::new();
        for token in json
            .get("added_tokens")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
        {
            let content = token.get("content").and_then(Value::as_str);
            let id = token.get("id").and_then(Value::as_u64);
            let (Some(content), Some(id)) = (content, id) else {
                return Err("an added token without content or id".into());
            };
            if token.get("normalized").and_then(Value::as_bool) == Some(true)
                || token.get("single_word").and_then(Value::as_bool) == Some(true)
                || token.get("lstrip").and_then(Value::as_bool) == Some(true)
                || token.get("rstrip").and_then(Value::as_bool) == Some(true)
            {
                return Err(format!(
                    "added token {content:?} is normalized, single-word or stripped (not supported)"
                ));
            }
            if !content.is_empty() {
                added.push((content.to_string(), id as u32));
            }
        }
        added.sort_by_key(|(content, _)| std::cmp::Reverse(content.len()));
        Ok(Self {
            vocab,
            merges,
            bytes,
            unk,
            fuse_unk,
            normalizers,
            added,
        })
    }

    /// The ids of `text`, without special tokens around it.
    pub(crate) fn encode(&self, text: &str, ids: &mut Vec<u32>) {
        let mut rest = text;
        // Added tokens are cut out first, leftmost (and longest) first; the pieces between them
        // are normalized and encoded on their own, as `tokenizers` does.
        while !rest.is_empty() {
            let found = self
                .added
                .iter()
                .filter_map(|(content, id)| rest.find(content.as_str()).map(|at| (at, content, id)))
                .min_by_key(|(at, _, _)| *at);
            match found {
                Some((at, content, id)) => {
                    self.encode_piece(&rest[..at], ids);
                    ids.push(*id);
                    rest = &rest[at + content.len()..];
                }
                None => {
                    self.encode_piece(rest, ids);
                    break;
                }
            }
        }
    }

    fn encode_piece(&self, piece: &str, ids: &mut Vec<u32>) {
        if piece.is_empty() {
            return;
        }
        let mut text = piece.to_string();
        for step in &self.normalizers {
            match step {
                Normalize::Prepend(prefix) => {
                    if !text.is_empty() {
                        text.insert_str(0, prefix);
                    }
                }
                Normalize::Replace(from, to) => {
                    if !from.is_empty() && text.contains(from.as_str()) {
                        text = text.replace(from.as_str(), to);
                    }
                }
            }
        }
        self.merge_word(&text, ids);
    }

    /// One word: a symbol per character (or per byte, for characters the vocab lacks), then
    /// the lowest-ranked adjacent pair merged, leftmost first, until no pair has a merge.
    fn merge_word(&self, word: &str, ids: &mut Vec<u32>) {
        let mut symbols: Vec<Symbol> = Vec::with_capacity(word.len());
        let mut unknown: usize = 0;
        let push = |symbols: &mut Vec<Symbol>, id: u32| {
            let at = symbols.len();
            symbols.push(Symbol {
                id,
                prev: at.checked_sub(1),
                next: Some(at + 1),
                live: true,
            });
        };
        let mut buffer = [0u8; 4];
        for character in word.chars() {
            let text: &str = character.encode_utf8(&mut buffer);
            if let Some(&id) = self.vocab.get(text) {
                if unknown > 0
                    && let Some(unk) = self.unk
                {
                    for _ in 0..unknown {
                        push(&mut symbols, unk);
                    }
                }
                unknown = 0;
                push(&mut symbols, id);
            } else if let Some(bytes) = &self.bytes {
                for byte in text.bytes() {
                    push(&mut symbols, bytes[byte as usize]);
                }
            } else if self.unk.is_some() {
                // Fused, a run of unknown characters is one unknown token.
                unknown = if self.fuse_unk { 1 } else { unknown + 1 };
            }
        }
        if let Some(unk) = self.unk {
            for _ in 0..unknown {
                push(&mut symbols, unk);
            }
        }
        if let Some(last) = symbols.last_mut() {
            last.next = None;
        }

        let mut queue = BinaryHeap::new();
        for pos in 0..symbols.len().saturating_sub(1) {
            if let Some(&(rank, merged)) = self.merges.get(&(symbols[pos].id, symbols[pos + 1].id))
            {
                queue.push(Merge { rank, pos, merged });
            }
        }
        while let Some(top) = queue.pop() {
            let current = symbols[top.pos];
            let Some(next) = current.next.filter(|_| current.live) else {
                continue;
            };
            let right = symbols[next];
            // A queued merge is stale once either side has merged into something else.
            if self.merges.get(&(current.id, right.id)).map(|m| m.1) != Some(top.merged) {
                continue;
            }
            symbols[top.pos].id = top.merged;
            symbols[top.pos].next = right.next;
            symbols[next].live = false;
            if let Some(after) = right.next {
                symbols[after].prev = Some(top.pos);
            }
            if let Some(prev) = current.prev
                && let Some(&(rank, merged)) = self.merges.get(&(symbols[prev].id, top.merged))
            {
                queue.push(Merge {
                    rank,
                    pos: prev,
                    merged,
                });
            }
            if let Some(after) = right.next
                && let Some(&(rank, merged)) = self.merges.get(&(top.merged, symbols[after].id))
            {
                queue.push(Merge {
                    rank,
                    pos: top.pos,
                    merged,
                });
            }
        }
        ids.extend(symbols.iter().filter(|s| s.live).map(|s| s.id));
    }
}

fn read_normalizer(normalizer: &Value, steps: &mut Vec<Normalize>) -> Result<(), String> {
    let kind = normalizer.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "Sequence" => {
            for step in normalizer
                .get("normalizers")
                .and_then(Value::as_array)
                .ok_or("a normalizer sequence without `normalizers`")?
            {
                read_normalizer(step, steps)?;
            }
        }
        "Prepend" => steps.push(Normalize::Prepend(
            normalizer
                .get("prepend")
                .and_then(Value::as_str)
                .ok_or("`Prepend` without `prepend`")?
                .to_string(),
        )),
        "Replace" => {
            let from = normalizer
                .get("pattern")
                .and_then(|p| p.get("String"))
                .and_then(Value::as_str)
                .ok_or("`Replace` with a pattern that is not a plain string (not supported)")?;
            let to = normalizer
                .get("content")
                .and_then(Value::as_str)
                .ok_or("`Replace` without `content`")?;
            steps.push(Normalize::Replace(from.to_string(), to.to_string()));
        }
        other => return Err(format!("a `{other}` normalizer (not supported)")),
    }
    Ok(())
}

#[derive(Debug, Clone, Copy)]
struct Symbol {
    id: u32,
    prev: Option<usize>,
    next: Option<usize>,
    live: bool,
}

/// A pair waiting to merge; the heap pops the lowest rank, then the leftmost position.
#[derive(Debug, PartialEq, Eq)]
struct Merge {
    rank: u32,
    pos: usize,
    merged: u32,
}

impl Ord for Merge {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .rank
            .cmp(&self.rank)
            .then_with(|| other.pos.cmp(&self.pos))
    }
}

impl PartialOrd for Merge {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A vocab of a, b, ab, abc, c and the bytes, merges a+b before ab+c.
    fn toy() -> Bpe {
        let mut vocab = serde_json::Map::new();
        for (i, token) in ["<unk>", "▁", "a", "b", "c", "ab", "abc", "▁ab"]
            .iter()
            .enumerate()
        {
            vocab.insert(token.to_string(), json!(i));
        }
        Bpe::from_json(&json!({
            "added_tokens": [{"id": 0, "content": "<unk>", "special": true}],
            "normalizer": {"type": "Sequence", "normalizers": [
                {"type": "Prepend", "prepend": "▁"},
                {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}
            ]},
            "pre_tokenizer": null,
            "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "vocab": vocab,
                      "merges": ["a b", ["ab", "c"], ["▁", "ab"]]}
        }))
        .unwrap()
    }

    fn encode(bpe: &Bpe, text: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        bpe.encode(text, &mut ids);
        ids
    }

    #[test]
    fn merges_by_rank_and_fuses_unknowns() {
        let bpe = toy();
        // ▁ a b c → ▁ ab c → ▁ abc (rank 1 before rank 2), then nothing merges ▁ + abc.
        assert_eq!(encode(&bpe, "abc"), [1, 6]);
        // ▁ a b ▁ a b: both a+b first, then ▁+ab twice.
        assert_eq!(encode(&bpe, "ab ab"), [7, 7]);
        // x and y are unknown and fused into one <unk>.
        assert_eq!(encode(&bpe, "xya"), [1, 0, 2]);
        // An added token is cut out before normalizing; each side gets its own ▁.
        assert_eq!(encode(&bpe, "a<unk>b"), [1, 2, 0, 1, 3]);
        assert_eq!(encode(&bpe, ""), Vec::<u32>::new());
    }

    #[test]
    fn refuses_what_it_cannot_tokenize_alike() {
        let refused = |json: Value| Bpe::from_json(&json).unwrap_err();
        assert!(refused(json!({"model": {"type": "WordPiece"}})).contains("WordPiece"));
        assert!(
            refused(json!({"pre_tokenizer": {"type": "ByteLevel"}, "model": {"vocab": {}, "merges": []}}))
                .contains("pre-tokenizer")
        );
        assert!(
            refused(json!({"normalizer": {"type": "NFKC"}, "model": {"vocab": {}, "merges": []}}))
                .contains("NFKC")
        );
        assert!(
            refused(json!({"model": {"vocab": {"a": 0}, "merges": ["a b"]}}))
                .contains("not in the vocab")
        );
    }
}

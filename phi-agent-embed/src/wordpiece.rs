//! BERT's tokenizer: the "basic" pass (clean the text, space out CJK ideographs, strip accents,
//! lowercase, split on whitespace and punctuation) and then WordPiece (greedy longest match from
//! the start of each word, continuations prefixed `##`). It gives the ids the `tokenizers`
//! library gives for a `BertNormalizer` + `BertPreTokenizer` + `WordPiece` `tokenizer.json`
//! (`tests/sentence.rs` compares them on a fixture that library wrote).

use rustc_hash::FxHashMap;
use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;

/// A word longer than this (in characters) is one `[UNK]`, as in the reference.
const MAX_WORD_CHARS: usize = 100;

/// Tokenizer of one BERT model, read from its `vocab.txt` (one token a line, id = line number).
#[derive(Debug)]
pub(crate) struct WordPiece {
    vocab: FxHashMap<String, u32>,
    /// Lines in `vocab.txt`: one past the highest id.
    size: usize,
    unk: u32,
    cls: u32,
    sep: u32,
    lowercase: bool,
    /// Special tokens matched literally in the input before normalizing (`[CLS]`, `[MASK]`...),
    /// longest first, as the reference matches its added tokens.
    special: Vec<(String, u32)>,
}

impl WordPiece {
    /// Reads a `vocab.txt`. `lowercase` is the model's `do_lower_case` (accents are stripped
    /// with it, as BERT's uncased models do).
    pub(crate) fn from_vocab(text: &str, lowercase: bool) -> Result<Self, String> {
        let mut vocab = FxHashMap::default();
        for (id, token) in text.lines().enumerate() {
            let id = u32::try_from(id).map_err(|_| "more than 2^32 tokens")?;
            // A repeated line keeps its first id, as the reference's vocabulary reader does.
            vocab.entry(token.to_string()).or_insert(id);
        }
        let id = |token: &str| {
            vocab
                .get(token)
                .copied()
                .ok_or_else(|| format!("no `{token}` in the vocabulary"))
        };
        let (unk, cls, sep) = (id("[UNK]")?, id("[CLS]")?, id("[SEP]")?);
        let mut special: Vec<(String, u32)> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
            .iter()
            .filter_map(|token| vocab.get(*token).map(|&id| (token.to_string(), id)))
            .collect();
        special.sort_by_key(|(token, _)| std::cmp::Reverse(token.len()));
        Ok(Self {
            size: text.lines().count(),
            vocab,
            unk,
            cls,
            sep,
            lowercase,
            special,
        })
    }

    /// One past the highest id the vocabulary gives.
    pub(crate) fn len(&self) -> usize {
        self.size
    }

    /// The ids of `text` with `[CLS]` before and `[SEP]` after, at most `max_tokens` in all (the
    /// text's tokens past that are dropped; `max_tokens` below 2 counts as 2).
    pub(crate) fn encode(&self, text: &str, max_tokens: usize) -> Vec<u32> {
        let room = max_tokens.max(2) - 2;
        let mut ids = vec![self.cls];
        let mut rest = text;
        'pieces: while !rest.is_empty() && ids.len() - 1 < room {
            // The next special token's position, and everything before it is plain text.
            let next = self
                .special
                .iter()
                .filter_map(|(token, id)| rest.find(token.as_str()).map(|at| (at, token, *id)))
                .min_by_key(|(at, token, _)| (*at, std::cmp::Reverse(token.len())));
            let (plain, special) = match next {
                Some((at, token, id)) => (&rest[..at], Some((token.len(), at, id))),
                None => (rest, None),
            };
            for word in self.words(plain) {
                self.word_pieces(&word, &mut ids);
                if ids.len() > room {
                    break 'pieces;
                }
            }
            match special {
                Some((len, at, id)) => {
                    ids.push(id);
                    rest = &rest[at + len..];
                }
                None => break,
            }
        }
        ids.truncate(room + 1);
        ids.push(self.sep);
        ids
    }

    /// The basic pass: normalized words and single punctuation marks, in order.
    fn words(&self, text: &str) -> Vec<String> {
        let mut normalized = String::with_capacity(text.len());
        for c in text.chars() {
            if c == '\0' || c == '\u{fffd}' || is_control(c) {
                continue;
            }
            if c.is_whitespace() {
                normalized.push(' ');
            } else if is_cjk(c) {
                normalized.push(' ');
                normalized.push(c);
                normalized.push(' ');
            } else {
                normalized.push(c);
            }
        }
        if self.lowercase {
            // Accents go with lowercasing (BERT's uncased models): decompose, drop the marks.
            normalized = normalized
                .nfd()
                .filter(|c| get_general_category(*c) != GeneralCategory::NonspacingMark)
                // Char by char, as the reference: `str::to_lowercase` would turn a final Σ into ς.
                .flat_map(char::to_lowercase)
                .collect();
        }
        let mut words = Vec::new();
        let mut word = String::new();
        for c in normalized.chars() {
            if c.is_whitespace() {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            } else if is_punctuation(c) {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                words.push(c.to_string());
            } else {
                word.push(c);
            }
        }
        if !word.is_empty() {
            words.push(word);
        }
        words
    }

    /// WordPiece on one word: the longest vocabulary entry from the start, then the longest
    /// `##` entry from there, and so on; a word that cannot be covered is one `[UNK]`.
    fn word_pieces(&self, word: &str, ids: &mut Vec<u32>) {
        if word.chars().count() > MAX_WORD_CHARS {
            ids.push(self.unk);
            return;
        }
        let pushed = ids.len();
        let mut start = 0;
        let mut candidate = String::new();
        while start < word.len() {
            let mut end = word.len();
            let mut found = None;
            while end > start {
                candidate.clear();
                if start > 0 {
                    candidate.push_str("##");
                }
                candidate.push_str(&word[start..end]);
                if let Some(&id) = self.vocab.get(&candidate) {
                    found = Some(id);
                    break;
                }
                // Back off one character (a char boundary, never inside a UTF-8 sequence).
                end = word[..end]
                    .char_indices()
                    .next_back()
                    .map_or(start, |(i, _)| i);
            }
            let Some(id) = found else {
                ids.truncate(pushed);
                ids.push(self.unk);
                return;
            };
            ids.push(id);
            start = end;
        }
    }
}

/// Control and format characters the cleaning drops (tab, newline and return are whitespace).
fn is_control(c: char) -> bool {
    if matches!(c, '\t' | '\n' | '\r') {
        return false;
    }
    matches!(
        get_general_category(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::PrivateUse
            | GeneralCategory::Surrogate
            | GeneralCategory::Unassigned
    )
}

/// ASCII punctuation (symbols like `$`, `+` and `^` included, as BERT splits them) and every
/// Unicode punctuation category.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(
            get_general_category(c),
            GeneralCategory::ConnectorPunctuation
                | GeneralCategory::DashPunctuation
                | GeneralCategory::OpenPunctuation
                | GeneralCategory::ClosePunctuation
                | GeneralCategory::InitialPunctuation
                | GeneralCategory::FinalPunctuation
                | GeneralCategory::OtherPunctuation
        )
}

/// The CJK ideograph blocks BERT spaces out, so each ideograph is a word of its own (Hiragana,
/// Katakana and Hangul are not in them, as in the reference).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B820..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::WordPiece;

    fn tokenizer() -> WordPiece {
        let vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nun\n##aff\n##able\nhello\n,\n!\ncafe\n中";
        WordPiece::from_vocab(vocab, true).unwrap()
    }

    #[test]
    fn splits_words_into_the_longest_pieces() {
        let t = tokenizer();
        assert_eq!(t.encode("unaffable", 512), [2, 5, 6, 7, 3]);
        assert_eq!(t.encode("Hello, CAFÉ!", 512), [2, 8, 9, 11, 10, 3]);
        // An uncoverable word is one [UNK]; an ideograph is a word of its own.
        assert_eq!(t.encode("unx 中中", 512), [2, 1, 12, 12, 3]);
        assert_eq!(t.encode("", 512), [2, 3]);
        assert_eq!(t.encode("[MASK]hello", 512), [2, 4, 8, 3]);
    }

    #[test]
    fn truncates_to_the_limit_with_the_markers_kept() {
        let t = tokenizer();
        assert_eq!(t.encode("hello hello hello", 4), [2, 8, 8, 3]);
        assert_eq!(t.encode("hello", 0), [2, 3]);
        assert_eq!(t.encode(&"x".repeat(101), 512), [2, 1, 3]);
    }
}

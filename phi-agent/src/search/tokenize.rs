//! Text to search terms: words split the way tool names are written, lowercased, stop words
//! dropped, and each word cut to a light stem so that `events`, `event` and `evented` meet.
//!
//! Standard library only, so the ranking can be exercised without building the crate.

/// Which of the tokenizer's parts are on: the held-out evaluation turns them off one at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Analysis {
    /// How words are cut to stems.
    pub stemming: Stemming,
    /// Runs of CJK or Thai characters become overlapping character pairs, since those scripts
    /// write no spaces between words.
    pub unspaced_bigrams: bool,
}

/// How a word is cut to its stem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stemming {
    /// Words as they are, lowercased.
    #[cfg_attr(
        not(feature = "lab"),
        expect(dead_code, reason = "only the lab's ablation turns stemming off")
    )]
    Off,
    /// `stem`: plural, `-ing`, `-ed`, a final `e` or `y`. (Snowball's English stemmer,
    /// which also joins derived forms, scored no better on the held-out tuning parts, so it is
    /// not a dependency.)
    Light,
}

impl Default for Analysis {
    fn default() -> Self {
        Self {
            stemming: Stemming::Light,
            unspaced_bigrams: true,
        }
    }
}

/// Calls `each` with every term of `text`, in order. A term is lent, not given: most callers
/// only look it up, and a word read without allocating keeps indexing 10,000 tools and each
/// search free of an allocation per word.
pub(crate) fn for_each_term(text: &str, analysis: Analysis, mut each: impl FnMut(&str)) {
    let mut term = String::new();
    terms_into(text, analysis, &mut term, &mut each);
}

/// [`for_each_term`], with `term` the buffer each term is written to.
fn terms_into(text: &str, analysis: Analysis, term: &mut String, each: &mut dyn FnMut(&str)) {
    for word in text.split(|c: char| !(c.is_alphanumeric() || is_unspaced(c))) {
        if word.is_empty() {
            continue;
        }
        for_each_camel_part(word, |word| {
            // ASCII first: almost every word is, and the check is one pass over bytes.
            if analysis.unspaced_bigrams && !word.is_ascii() && word.chars().any(is_unspaced) {
                unspaced_terms(word, analysis, term, each);
                return;
            }
            // Words of digits alone are dropped: in a request they are mostly the arguments ("5
            // units", "12.00") and match digits in tool names by chance (keeping them cost 0.012
            // recall@5 on BFCL's held-out tuning part).
            if word.bytes().all(|b| b.is_ascii_digit()) {
                return;
            }
            term.clear();
            if word.is_ascii() {
                term.push_str(word);
                term.make_ascii_lowercase();
            } else {
                // `str::to_lowercase`, not per character: a final sigma lowercases by position.
                term.push_str(&word.to_lowercase());
            }
            if is_stop_word(term) {
                return;
            }
            if analysis.stemming == Stemming::Light {
                stem_in_place(term);
            }
            each(term);
        });
    }
}

/// A word with CJK or Thai in it: each run of those scripts as its overlapping character
/// pairs (a run of one character as itself), the rest as ordinary words.
fn unspaced_terms(word: &str, analysis: Analysis, term: &mut String, each: &mut dyn FnMut(&str)) {
    let mut rest = word;
    while let Some(c) = rest.chars().next() {
        let unspaced = is_unspaced(c);
        let end = rest
            .char_indices()
            .find(|&(_, d)| is_unspaced(d) != unspaced)
            .map_or(rest.len(), |(at, _)| at);
        let (run, tail) = rest.split_at(end);
        rest = tail;
        if unspaced {
            let mut chars = run.char_indices().peekable();
            if run.chars().nth(1).is_none() {
                each(run);
            }
            // Each pair of neighbouring characters, borrowed from the run.
            while let Some((at, _)) = chars.next() {
                let Some(&(next, second)) = chars.peek() else {
                    break;
                };
                each(&run[at..next + second.len_utf8()]);
            }
        } else {
            let analysis = Analysis {
                unspaced_bigrams: false,
                ..analysis
            };
            terms_into(run, analysis, term, each);
        }
    }
}

/// Scripts written without spaces between words (Han, kana, Thai and its neighbours), and
/// Hangul, whose words carry their particles: character pairs stand in for words there.
pub(crate) fn is_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF // Thai, Lao
        | 0x1000..=0x109F // Myanmar
        | 0x1780..=0x17FF // Khmer
        | 0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF // Hangul
        | 0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F // kana
        | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3134F // Han
    )
}

/// `word` (lowercase) cut by `stemming`.
pub(crate) fn stem_as(word: &str, stemming: Stemming) -> String {
    let mut term = word.to_string();
    if stemming == Stemming::Light {
        stem_in_place(&mut term);
    }
    term
}

/// Words that say nothing about what a tool does. Kept short on purpose: `off`, `up`, `out`,
/// `all` and `new` are left in because tool names lean on them (`turn_off_light`). A `match`
/// rather than a set: indexing 10,000 tools asks for every word, and each arm compares lengths
/// first, so a word's bytes are read only against the stop words of its length, and nothing is
/// hashed.
fn is_stop_word(word: &str) -> bool {
    matches!(
        word,
        "a" | "an"
            | "the"
            | "of"
            | "to"
            | "in"
            | "on"
            | "for"
            | "and"
            | "or"
            | "by"
            | "with"
            | "from"
            | "is"
            | "are"
            | "be"
            | "as"
            | "at"
            | "it"
            | "its"
            | "this"
            | "that"
            | "these"
            | "those"
            | "e"
            | "g"
            | "eg"
            | "i"
            | "me"
            | "my"
            | "we"
            | "our"
            | "us"
            | "you"
            | "your"
            | "do"
            | "does"
            | "can"
            | "could"
            | "would"
            | "should"
            | "please"
            | "some"
            | "any"
            | "there"
            | "their"
            | "them"
            | "they"
            | "so"
            | "than"
            | "then"
            | "into"
            | "via"
            | "if"
            | "when"
            | "what"
            | "which"
            | "who"
            | "whom"
            | "how"
            | "much"
            | "many"
            | "i'd"
            | "like"
            | "want"
            | "need"
            | "will"
            | "just"
            | "has"
            | "have"
            | "had"
            | "was"
            | "were"
            | "been"
            | "being"
            | "not"
            | "no"
            | "yes"
            | "own"
            | "one"
            | "etc"
    )
}

/// The terms of `text`, in order, repeats kept.
#[cfg(test)]
pub(crate) fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, Analysis::default(), |term| out.push(term.to_string()));
    out
}

/// Calls `each` with the parts of `word` (letters and digits) split at camelCase boundaries
/// (`getUserInfo` → `get`, `User`, `Info`; `HTTPServer` → `HTTP`, `Server`). Letters and
/// digits stay together, since `s3`, `ec2` and `base64` are names in their own right. The
/// caller splits on anything but letters and digits (and marks: Thai tone marks and some vowel
/// signs are neither).
fn for_each_camel_part(word: &str, mut each: impl FnMut(&str)) {
    if !word.chars().skip(1).any(char::is_uppercase) {
        each(word);
        return;
    }
    let mut start = 0;
    let mut chars = word.char_indices().peekable();
    let mut before: Option<char> = None;
    while let Some((at, here)) = chars.next() {
        if let Some(before) = before {
            let lower_to_upper = before.is_lowercase() && here.is_uppercase();
            // The last capital of a run of capitals starts the next word when a lowercase
            // follows.
            let acronym_end = before.is_uppercase()
                && here.is_uppercase()
                && chars.peek().is_some_and(|&(_, next)| next.is_lowercase());
            if lower_to_upper || acronym_end {
                each(&word[start..at]);
                start = at;
            }
        }
        before = Some(here);
    }
    each(&word[start..]);
}

/// A light stem: plural, `-ing` and `-ed` removed, then a final `e`, so that `create`,
/// `creates`, `created` and `creating` all become `creat`. Deliberately far from a full Porter
/// stemmer: tool vocabulary is short words, and an aggressive stemmer merges `user` with `use`.
#[cfg(test)]
pub(crate) fn stem(word: &str) -> String {
    stem_as(word, Stemming::Light)
}

/// [`stem`], cutting `w` where it is.
fn stem_in_place(w: &mut String) {
    if !w.is_ascii() || w.len() <= 3 {
        return;
    }
    if w.ends_with("ies") {
        w.truncate(w.len() - 3);
        w.push('y');
    } else if w.ends_with("sses")
        || w.ends_with("xes")
        || w.ends_with("ches")
        || w.ends_with("shes")
    {
        w.truncate(w.len() - 2);
    } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
        w.pop();
    }
    for suffix in ["ing", "ed"] {
        if w.len() >= suffix.len() + 3 && w.ends_with(suffix) {
            w.truncate(w.len() - suffix.len());
            undouble(w);
            break;
        }
    }
    if w.len() > 3 && w.ends_with('e') && !w.ends_with("ee") {
        w.pop();
    }
    if w.len() > 3 && w.ends_with('y') {
        // `copy` and `copies` → `copi`, as `copied` does.
        w.pop();
        w.push('i');
    }
}

/// `running` → `runn` → `run`, but `pass` and `fill` keep their pair.
fn undouble(w: &mut String) {
    let bytes = w.as_bytes();
    let n = bytes.len();
    if n >= 2 && bytes[n - 1] == bytes[n - 2] && !matches!(bytes[n - 1], b'l' | b's' | b'z') {
        w.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_on_underscores_dashes_and_case() {
        assert_eq!(terms("list_calendar_events"), ["list", "calendar", "event"]);
        assert_eq!(terms("getUserInfo"), ["get", "user", "info"]);
        assert_eq!(terms("HTTPServer-logs"), ["http", "server", "log"]);
        assert_eq!(terms("delete_s3_object"), ["delet", "s3", "object"]);
    }

    #[test]
    fn inflections_meet() {
        for word in ["create", "creates", "created", "creating"] {
            assert_eq!(stem(word), "creat", "{word}");
        }
        assert_eq!(stem("copies"), stem("copy"));
        assert_eq!(stem("copied"), stem("copy"));
        assert_eq!(stem("running"), "run");
        assert_eq!(stem("addresses"), stem("address"));
        assert_eq!(stem("status"), "status");
    }

    #[test]
    fn cjk_and_thai_become_character_pairs() {
        assert_eq!(terms("天气预报"), ["天气", "气预", "预报"]);
        assert_eq!(terms("查询 北京"), ["查询", "北京"]);
        assert_eq!(terms("雨"), ["雨"]);
        // Mixed with Latin letters: each run on its own terms.
        assert_eq!(terms("S3バケット"), ["s3", "バケ", "ケッ", "ット"]);
        // Thai tone marks (U+0E48) stay inside their word.
        assert_eq!(terms("ค่า"), ["ค่", "่า"]);
        assert_eq!(terms("날씨 예보"), ["날씨", "예보"]);
    }

    #[test]
    fn numbers_alone_go_and_names_with_digits_stay() {
        assert_eq!(terms("5 units, 12.00 in 2022"), ["unit"]);
        assert_eq!(terms("ec2 base64 s3"), ["ec2", "base64", "s3"]);
    }

    #[test]
    fn dotted_names_split_like_snake_case() {
        assert_eq!(
            terms("triangle_properties.get"),
            ["triangl", "properti", "get"]
        );
    }

    #[test]
    fn stop_words_go() {
        assert_eq!(
            terms("Turn off the light in the kitchen"),
            ["turn", "off", "light", "kitchen"]
        );
    }
}

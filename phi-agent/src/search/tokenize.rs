//! Text to search terms: words split the way tool names are written, lowercased, stop words
//! dropped, and each word cut to a light stem so that `events`, `event` and `evented` meet.
//!
//! Standard library only, so the ranking can be exercised without building the crate.

use std::collections::HashSet;
use std::sync::OnceLock;

/// Words that say nothing about what a tool does. Kept short on purpose: `off`, `up`, `out`,
/// `all` and `new` are left in because tool names lean on them (`turn_off_light`).
const STOP_WORDS: &[&str] = &[
    "a", "an", "the", "of", "to", "in", "on", "for", "and", "or", "by", "with", "from", "is",
    "are", "be", "as", "at", "it", "its", "this", "that", "these", "those", "e", "g", "eg", "i",
    "me", "my", "we", "our", "us", "you", "your", "do", "does", "can", "could", "would", "should",
    "please", "some", "any", "there", "their", "them", "they", "so", "than", "then", "into", "via",
    "if", "when", "what", "which", "who", "whom", "how", "much", "many", "i'd", "like", "want",
    "need", "will", "just", "has", "have", "had", "was", "were", "been", "being", "not", "no",
    "yes", "own", "one", "etc",
];

/// Calls `each` with every term of `text`, in order.
pub(crate) fn for_each_term(text: &str, mut each: impl FnMut(String)) {
    for word in split_words(text) {
        let lower = word.to_lowercase();
        if is_stop_word(&lower) {
            continue;
        }
        each(stem(&lower));
    }
}

/// A set rather than a scan of [`STOP_WORDS`]: indexing 10,000 tools looks up every word.
fn is_stop_word(word: &str) -> bool {
    static SET: OnceLock<HashSet<&'static str>> = OnceLock::new();
    SET.get_or_init(|| STOP_WORDS.iter().copied().collect())
        .contains(word)
}

/// The terms of `text`, in order, repeats kept.
#[cfg(test)]
pub(crate) fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(text, |term| out.push(term));
    out
}

/// Splits on anything but letters and digits, and inside a word at camelCase boundaries
/// (`getUserInfo` → `get`, `User`, `Info`; `HTTPServer` → `HTTP`, `Server`). Letters and digits
/// stay together, since `s3`, `ec2` and `base64` are names in their own right.
fn split_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .flat_map(split_camel)
}

fn split_camel(word: &str) -> Vec<&str> {
    if !word.chars().skip(1).any(char::is_uppercase) {
        return vec![word];
    }
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (at, here) = chars[i];
        let before = chars[i - 1].1;
        let lower_to_upper = before.is_lowercase() && here.is_uppercase();
        // The last capital of a run of capitals starts the next word when a lowercase follows.
        let acronym_end = before.is_uppercase()
            && here.is_uppercase()
            && chars
                .get(i + 1)
                .is_some_and(|(_, next)| next.is_lowercase());
        if lower_to_upper || acronym_end {
            parts.push(&word[start..at]);
            start = at;
        }
    }
    parts.push(&word[start..]);
    parts
}

/// A light stem: plural, `-ing` and `-ed` removed, then a final `e`, so that `create`,
/// `creates`, `created` and `creating` all become `creat`. Deliberately far from a full Porter
/// stemmer: tool vocabulary is short words, and an aggressive stemmer merges `user` with `use`.
pub(crate) fn stem(word: &str) -> String {
    let mut w = word.to_string();
    if !w.is_ascii() || w.len() <= 3 {
        return w;
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
            undouble(&mut w);
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
    w
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
    fn stop_words_go() {
        assert_eq!(
            terms("Turn off the light in the kitchen"),
            ["turn", "off", "light", "kitchen"]
        );
    }
}

//! The decoder's own words in the model's terms, for a mistake the schema did not see: every
//! phrase by which serde names a Rust type ("expected struct Trip", "expected u8") becomes the
//! JSON it stands for.

/// The decoder's message in the model's terms. serde names the Rust type it expected
/// ("invalid type: integer `5`, expected struct Trip", "expected u8", "data did not match any
/// variant of untagged enum Shape"); the model knows only JSON, so each such phrase becomes the
/// JSON it stands for. Used only when the schema found nothing wrong, which for a derived type
/// means the decoder is stricter than its schema.
pub(crate) fn reword_decoder_message(message: &str) -> String {
    let mut text = message.to_string();
    // Longest phrases first: "tuple struct X" must not be read as "struct X".
    const NAMED: &[(&str, &str)] = &[
        (
            "data did not match any variant of untagged enum ",
            "the value fits none of the allowed forms",
        ),
        ("internally tagged enum ", "a JSON object with a tag field"),
        (
            "adjacently tagged enum ",
            "a JSON object with a tag field and a content field",
        ),
        ("tuple struct ", "a JSON array"),
        ("struct variant ", "a JSON object"),
        ("tuple variant ", "a JSON array"),
        ("newtype variant ", "a value"),
        ("unit variant ", "a string"),
        ("newtype struct ", "a value"),
        ("unit struct ", "null"),
        ("struct ", "a JSON object"),
        ("enum ", "one of the allowed values"),
    ];
    for (phrase, replacement) in NAMED {
        text = replace_named(&text, phrase, replacement);
    }
    const EXPECTED: &[(&str, &str)] = &[
        ("u8", "an integer from 0 to 255"),
        ("u16", "an integer from 0 to 65535"),
        ("u32", "an integer from 0 to 4294967295"),
        ("u64", "an integer from 0 to 18446744073709551615"),
        ("u128", "a non-negative integer"),
        ("usize", "an integer from 0 to 18446744073709551615"),
        ("i8", "an integer from -128 to 127"),
        ("i16", "an integer from -32768 to 32767"),
        ("i32", "an integer from -2147483648 to 2147483647"),
        (
            "i64",
            "an integer from -9223372036854775808 to 9223372036854775807",
        ),
        ("i128", "an integer"),
        (
            "isize",
            "an integer from -9223372036854775808 to 9223372036854775807",
        ),
        ("f32", "a number"),
        ("f64", "a number"),
        ("a sequence", "a JSON array"),
        ("a map", "a JSON object"),
        ("a borrowed string", "a string"),
        ("unit", "null"),
        ("option", "a value or null"),
        (
            "variant identifier",
            "the name of one of the allowed values",
        ),
        ("field identifier", "a field name"),
    ];
    for (rust, json) in EXPECTED {
        text = replace_word(
            &text,
            &format!("expected {rust}"),
            &format!("expected {json}"),
        );
    }
    // What serde calls what it found.
    for (rust, json) in [
        ("invalid type: sequence", "invalid type: an array"),
        ("invalid type: map", "invalid type: an object"),
        ("invalid type: unit value", "invalid type: null"),
    ] {
        text = replace_word(&text, rust, json);
    }
    without_paths(&text)
}

/// `text` with each `phrase Name` (the phrase at a word start, followed by a Rust name) replaced
/// by `replacement`.
fn replace_named(text: &str, phrase: &str, replacement: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = find_word(rest, phrase) {
        out.push_str(&rest[..at]);
        out.push_str(replacement);
        let after = &rest[at + phrase.len()..];
        let name_len = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(after.len());
        rest = &after[name_len..];
    }
    out.push_str(rest);
    out
}

/// `text` with every whole-word `from` replaced by `to`.
fn replace_word(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = find_word(rest, from) {
        let end = at + from.len();
        let ends_word = !rest[end..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
        out.push_str(&rest[..at]);
        out.push_str(if ends_word { to } else { from });
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Where `phrase` first occurs at the start of a word ("struct " in "expected struct X", not in
/// "construct X").
fn find_word(text: &str, phrase: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find(phrase) {
        let at = from + found;
        let starts_word = !text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_');
        if starts_word {
            return Some(at);
        }
        from = at + phrase.len();
    }
    None
}

/// `text` with every Rust path (`a::b::C`, as a custom `Deserialize` may write) cut to its last
/// segment.
fn without_paths(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("::") {
        // Drop the path's leading segments: back to the start of the word before `::`.
        let head = &rest[..at];
        let word_start = head
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| {
                i + head[i..].chars().next().map_or(1, char::len_utf8)
            });
        out.push_str(&head[..word_start]);
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decoders_words_lose_every_rust_name() {
        for (serde, model) in [
            (
                "invalid type: integer `5`, expected struct Trip",
                "invalid type: integer `5`, expected a JSON object",
            ),
            (
                "invalid type: string \"x\", expected tuple struct Point",
                "invalid type: string \"x\", expected a JSON array",
            ),
            (
                "data did not match any variant of untagged enum Shape",
                "the value fits none of the allowed forms",
            ),
            (
                "invalid type: map, expected enum Units",
                "invalid type: an object, expected one of the allowed values",
            ),
            (
                "invalid value: integer `300`, expected u8",
                "invalid value: integer `300`, expected an integer from 0 to 255",
            ),
            (
                "invalid type: sequence, expected a map",
                "invalid type: an array, expected a JSON object",
            ),
            (
                "invalid type: unit value, expected a string",
                "invalid type: null, expected a string",
            ),
            (
                "expected struct variant Shape::Circle",
                "expected a JSON object",
            ),
            (
                "bad value for my_crate::types::Secret",
                "bad value for Secret",
            ),
            ("cannot construct it", "cannot construct it"),
            ("expected u8s", "expected u8s"),
        ] {
            assert_eq!(reword_decoder_message(serde), model);
        }
    }
}

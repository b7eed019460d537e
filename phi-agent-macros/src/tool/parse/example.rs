//! `example = ..` in `#[phi_tool(..)]` (repeatable): the arguments of one call, shown to the
//! model as the tool's input example.
//!
//! Three forms. JSON written as tokens, `example = {"city": "Paris", "days": 3}`, is parsed here,
//! so that a mistake in it (a missing comma, an unquoted key, `None` for `null`) is an error on
//! the token that is wrong; strings are Rust string literals. JSON text in a string literal,
//! `example = r#"{"city": "Paris"}"#`, is read the same way, its errors on the literal. Anything
//! else is a Rust expression of the arguments struct (`example = GetWeatherArgs { .. }`), which
//! the compiler checks and the tool serializes when it is registered.
//!
//! `darling` cannot read these (a brace group is no expression), so they are taken out of the
//! attribute's tokens before its keys are parsed ([`take_examples`]).

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};

use crate::errors::Errors;

/// One `example = ..`.
pub(crate) enum Example {
    /// JSON, already checked for syntax; its keys are checked against the parameters later.
    Json(Json),
    /// A Rust expression of the arguments struct.
    Expr(Box<syn::Expr>),
}

/// A JSON value, with the spans its keys are reported on.
pub(crate) enum Json {
    Null,
    Bool(bool),
    /// The number as JSON text.
    Number(String),
    String(String),
    Array(Vec<Json>),
    Object {
        entries: Vec<(String, Span, Json)>,
    },
}

impl Json {
    /// Compact JSON text.
    pub(crate) fn to_text(&self) -> String {
        let mut text = String::new();
        self.write(&mut text);
        text
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
            Json::Number(number) => out.push_str(number),
            Json::String(text) => write_string(text, out),
            Json::Array(items) => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Object { entries, .. } => {
                out.push('{');
                for (index, (key, _, value)) in entries.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    write_string(key, out);
                    out.push(':');
                    value.write(out);
                }
                out.push('}');
            }
        }
    }
}

fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Takes every `example = ..` out of an attribute's tokens, returning the other keys' tokens for
/// darling. An `example` whose value cannot be read is reported and dropped.
pub(crate) fn take_examples(
    tokens: TokenStream,
    errors: &mut Errors,
) -> (TokenStream, Vec<Example>) {
    let mut rest = TokenStream::new();
    let mut examples = Vec::new();
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for item in tokens.split(|token| matches!(token, TokenTree::Punct(p) if p.as_char() == ',')) {
        let is_example = matches!(item, [TokenTree::Ident(key), ..] if key == "example");
        if !is_example {
            if !item.is_empty() {
                rest.extend(item.iter().cloned());
                rest.extend([TokenTree::Punct(proc_macro2::Punct::new(
                    ',',
                    proc_macro2::Spacing::Alone,
                ))]);
            }
            continue;
        }
        match item {
            [_, TokenTree::Punct(eq), value @ ..]
                if eq.as_char() == '=' && !value.is_empty() =>
            {
                if let Some(example) = example(value, errors) {
                    examples.push(example);
                }
            }
            [key, ..] => errors.push(syn::Error::new(
                key.span(),
                "`example` takes the arguments of one call: JSON, e.g. `example = {\"city\": \"Paris\"}`, or an expression of the arguments struct",
            )),
            [] => {}
        }
    }
    (rest, examples)
}

/// The value of one `example = value`.
fn example(value: &[TokenTree], errors: &mut Errors) -> Option<Example> {
    match value {
        [TokenTree::Group(group)] if group.delimiter() == Delimiter::Brace => {
            Some(Example::Json(json_value(&[value[0].clone()], errors)?))
        }
        [TokenTree::Literal(literal)]
            if matches!(syn::Lit::new(literal.clone()), syn::Lit::Str(_)) =>
        {
            let syn::Lit::Str(text) = syn::Lit::new(literal.clone()) else {
                return None;
            };
            let span = text.span();
            let relexed: TokenStream = match text.value().parse() {
                Ok(tokens) => tokens,
                Err(_) => {
                    errors.push(syn::Error::new(
                        span,
                        "this example is not valid JSON: write the arguments as one JSON object, e.g. `example = {\"city\": \"Paris\"}`",
                    ));
                    return None;
                }
            };
            // Read as tokens, then every span moved onto the literal.
            let relexed: Vec<TokenTree> = respan(relexed, span).into_iter().collect();
            let json = json_value(&relexed, errors)?;
            if !matches!(json, Json::Object { .. }) {
                errors.push(syn::Error::new(
                    span,
                    "an example is the arguments object of one call: write it as a JSON object, `{..}`",
                ));
                return None;
            }
            Some(Example::Json(json))
        }
        _ => {
            let tokens: TokenStream = value.iter().cloned().collect();
            match syn::parse2::<syn::Expr>(tokens) {
                Ok(expr) => Some(Example::Expr(Box::new(expr))),
                Err(error) => {
                    errors.push(error);
                    None
                }
            }
        }
    }
}

fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let TokenTree::Group(group) = &token {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = TokenTree::Group(inner);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
}

/// Reads exactly one JSON value from `tokens`; the first mistake is reported on its token.
fn json_value(tokens: &[TokenTree], errors: &mut Errors) -> Option<Json> {
    let mut cursor = Cursor { tokens, at: 0 };
    let value = cursor.value(errors)?;
    if let Some(extra) = cursor.peek() {
        errors.push(syn::Error::new(
            extra.span(),
            "unexpected token after the JSON value; separate values with `,`",
        ));
        return None;
    }
    Some(value)
}

struct Cursor<'a> {
    tokens: &'a [TokenTree],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<&TokenTree> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<&TokenTree> {
        let token = self.tokens.get(self.at);
        self.at += 1;
        token
    }

    /// The span to report "something is missing here" on: the last token read.
    fn last_span(&self) -> Span {
        self.tokens
            .get(self.at.saturating_sub(1))
            .map_or_else(Span::call_site, TokenTree::span)
    }

    fn value(&mut self, errors: &mut Errors) -> Option<Json> {
        let Some(token) = self.next().cloned() else {
            errors.push(syn::Error::new(
                self.last_span(),
                "a JSON value is missing here",
            ));
            return None;
        };
        match &token {
            TokenTree::Group(group) => match group.delimiter() {
                Delimiter::Brace => object(group, errors),
                Delimiter::Bracket => array(group, errors),
                _ => fail(
                    errors,
                    token.span(),
                    "JSON has no parentheses: write an object `{..}`, an array `[..]`, a string, a number, `true`, `false` or `null`",
                ),
            },
            TokenTree::Ident(word) => match word.to_string().as_str() {
                "true" => Some(Json::Bool(true)),
                "false" => Some(Json::Bool(false)),
                "null" => Some(Json::Null),
                "None" | "Null" | "nil" | "undefined" => fail(
                    errors,
                    word.span(),
                    &format!("`{word}` is not JSON; write `null`"),
                ),
                "True" | "False" => fail(
                    errors,
                    word.span(),
                    &format!(
                        "`{word}` is not JSON; write `{}`",
                        word.to_string().to_lowercase()
                    ),
                ),
                _ => fail(
                    errors,
                    word.span(),
                    &format!("`{word}` is not a JSON value; a string goes in quotes: `\"{word}\"`"),
                ),
            },
            TokenTree::Punct(punct) if punct.as_char() == '-' => match self.next().cloned() {
                Some(TokenTree::Literal(literal)) => {
                    number(&literal, errors).map(|n| Json::Number(format!("-{n}")))
                }
                _ => fail(errors, punct.span(), "`-` must be followed by a number"),
            },
            TokenTree::Punct(punct) => fail(
                errors,
                punct.span(),
                &format!("`{}` is not a JSON value", punct.as_char()),
            ),
            TokenTree::Literal(literal) => literal_value(literal, errors),
        }
    }
}

fn fail(errors: &mut Errors, span: Span, message: &str) -> Option<Json> {
    errors.push(syn::Error::new(span, message));
    None
}

fn literal_value(literal: &proc_macro2::Literal, errors: &mut Errors) -> Option<Json> {
    match syn::Lit::new(literal.clone()) {
        syn::Lit::Str(text) => Some(Json::String(text.value())),
        syn::Lit::Int(_) | syn::Lit::Float(_) => number(literal, errors).map(Json::Number),
        syn::Lit::Char(_) => fail(
            errors,
            literal.span(),
            "a JSON string goes in double quotes: `\"..\"`",
        ),
        _ => fail(errors, literal.span(), "this literal is not JSON"),
    }
}

/// A number literal as JSON text: no suffix, no leading zeros, finite.
fn number(literal: &proc_macro2::Literal, errors: &mut Errors) -> Option<String> {
    let hint = "a JSON number is plain digits, e.g. `3`, `2.5` or `1e3`, without a type suffix";
    match syn::Lit::new(literal.clone()) {
        syn::Lit::Int(int) if int.suffix().is_empty() => match int.base10_parse::<u128>() {
            Ok(value) => Some(value.to_string()),
            Err(_) => fail(errors, literal.span(), hint).map(|_| String::new()),
        },
        syn::Lit::Float(float) if float.suffix().is_empty() => match float.base10_parse::<f64>() {
            Ok(value) if value.is_finite() => Some(format!("{value:?}")),
            _ => fail(errors, literal.span(), hint).map(|_| String::new()),
        },
        _ => fail(errors, literal.span(), hint).map(|_| String::new()),
    }
}

/// The items of `tokens` between commas; a trailing comma or two commas in a row are reported.
fn items<'a>(tokens: &'a [TokenTree], errors: &mut Errors) -> Option<Vec<&'a [TokenTree]>> {
    if tokens.is_empty() {
        return Some(Vec::new());
    }
    let mut items = Vec::new();
    let mut start = 0;
    for (index, token) in tokens.iter().enumerate() {
        if matches!(token, TokenTree::Punct(p) if p.as_char() == ',') {
            if index == start {
                errors.push(syn::Error::new(
                    token.span(),
                    "a JSON value is missing before this `,`",
                ));
                return None;
            }
            items.push(&tokens[start..index]);
            start = index + 1;
        }
    }
    if start == tokens.len() {
        errors.push(syn::Error::new(
            tokens[tokens.len() - 1].span(),
            "JSON allows no trailing comma; remove it",
        ));
        return None;
    }
    items.push(&tokens[start..]);
    Some(items)
}

fn array(group: &proc_macro2::Group, errors: &mut Errors) -> Option<Json> {
    let tokens: Vec<TokenTree> = group.stream().into_iter().collect();
    let mut values = Vec::new();
    for item in items(&tokens, errors)? {
        values.push(json_value(item, errors)?);
    }
    Some(Json::Array(values))
}

fn object(group: &proc_macro2::Group, errors: &mut Errors) -> Option<Json> {
    let tokens: Vec<TokenTree> = group.stream().into_iter().collect();
    let mut entries: Vec<(String, Span, Json)> = Vec::new();
    for item in items(&tokens, errors)? {
        let (key, key_span) = match &item[0] {
            TokenTree::Literal(literal) => match syn::Lit::new(literal.clone()) {
                syn::Lit::Str(text) => (text.value(), literal.span()),
                _ => return fail(errors, literal.span(), "a JSON key is a string: `\"name\"`"),
            },
            TokenTree::Ident(word) => {
                return fail(
                    errors,
                    word.span(),
                    &format!("JSON keys are quoted: write `\"{word}\"`"),
                );
            }
            other => return fail(errors, other.span(), "a JSON key is a string: `\"name\"`"),
        };
        match item.get(1) {
            Some(TokenTree::Punct(colon)) if colon.as_char() == ':' => {}
            Some(other) => {
                return fail(
                    errors,
                    other.span(),
                    &format!("expected `:` after the key `\"{key}\"`"),
                );
            }
            None => {
                return fail(
                    errors,
                    key_span,
                    &format!("the key `\"{key}\"` has no value: write `\"{key}\": value`"),
                );
            }
        }
        let value = json_value(&item[2..], errors).or_else(|| {
            if item.len() == 2 {
                // `json_value` reported a missing value on the last token it saw, which is
                // none: say where.
                errors.push(syn::Error::new(
                    item[1].span(),
                    "a value is missing after `:`",
                ));
            }
            None
        })?;
        if entries.iter().any(|(seen, _, _)| *seen == key) {
            return fail(
                errors,
                key_span,
                &format!("the key `\"{key}\"` is given twice"),
            );
        }
        entries.push((key, key_span, value));
    }
    Some(Json::Object { entries })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(tokens: TokenStream) -> (Vec<Example>, Vec<String>) {
        let mut errors = Errors::default();
        let (_, examples) = take_examples(tokens, &mut errors);
        (examples, errors.messages())
    }

    fn text(example: &Example) -> String {
        match example {
            Example::Json(json) => json.to_text(),
            Example::Expr(_) => "<expr>".into(),
        }
    }

    #[test]
    fn json_tokens_become_compact_json() {
        let (examples, messages) = parse(quote::quote!(
            name = "x",
            example = {"city": "Paris", "days": 3, "tags": ["a", "b\"c"], "ratio": -0.5, "x": null, "on": true},
            example = r#"{"q": "one"}"#,
            example = Args { q: 1 }
        ));
        assert!(messages.is_empty(), "{messages:?}");
        assert_eq!(
            examples.iter().map(text).collect::<Vec<_>>(),
            [
                r#"{"city":"Paris","days":3,"tags":["a","b\"c"],"ratio":-0.5,"x":null,"on":true}"#,
                r#"{"q":"one"}"#,
                "<expr>",
            ]
        );
    }

    #[test]
    fn the_other_keys_are_left_for_darling() {
        let mut errors = Errors::default();
        let (rest, examples) = take_examples(
            quote::quote!(name = "x", example = {"a": 1}, timeout = 5),
            &mut errors,
        );
        assert!(errors.messages().is_empty());
        assert_eq!(examples.len(), 1);
        assert_eq!(
            rest.to_string(),
            quote::quote!(name = "x", timeout = 5,).to_string()
        );
    }

    #[test]
    fn mistakes_are_named() {
        for (tokens, expected) in [
            (
                quote::quote!(example = {city: "Paris"}),
                "JSON keys are quoted: write `\"city\"`",
            ),
            (
                quote::quote!(example = {"a": None}),
                "`None` is not JSON; write `null`",
            ),
            (
                quote::quote!(example = {"a": 1,}),
                "JSON allows no trailing comma; remove it",
            ),
            (
                quote::quote!(example = {"a" 1}),
                "expected `:` after the key `\"a\"`",
            ),
            (
                quote::quote!(example = {"a": 1 "b": 2}),
                "unexpected token after the JSON value; separate values with `,`",
            ),
            (
                quote::quote!(example = {"a": 3u8}),
                "a JSON number is plain digits, e.g. `3`, `2.5` or `1e3`, without a type suffix",
            ),
            (
                quote::quote!(example = {"a": 1, "a": 2}),
                "the key `\"a\"` is given twice",
            ),
            (
                quote::quote!(example = "[1]"),
                "an example is the arguments object of one call: write it as a JSON object, `{..}`",
            ),
        ] {
            let (examples, messages) = parse(tokens);
            assert!(examples.is_empty());
            assert_eq!(messages, [expected]);
        }
    }
}

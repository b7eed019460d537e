//! Names of the generated types, and telling a fn path from a type path.
//!
//! (Which names a *tool* may have is a rule of `#[phi_tool]`, checked in `tool::validate`.)

use syn::Ident;

/// `get_weather` -> `GetWeather`, keeping digits (`fetch_v2` -> `FetchV2`).
pub(crate) fn pascal_case(snake: &str) -> String {
    snake
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// The identifier without a raw prefix (`r#type` -> `type`).
pub(crate) fn unraw(ident: &Ident) -> String {
    let text = ident.to_string();
    text.strip_prefix("r#").map(str::to_owned).unwrap_or(text)
}

/// The generated tool type for a fn: the fn name in PascalCase, at the fn name's span.
pub(crate) fn tool_type_ident(fn_ident: &Ident) -> Ident {
    Ident::new(&pascal_case(&unraw(fn_ident)), fn_ident.span())
}

/// The generated arguments type for a fn.
pub(crate) fn args_type_ident(fn_ident: &Ident) -> Ident {
    Ident::new(
        &format!("{}Args", pascal_case(&unraw(fn_ident))),
        fn_ident.span(),
    )
}

/// Whether an identifier looks like a fn name (snake_case) rather than a type or constant.
pub(crate) fn is_snake_case(ident: &Ident) -> bool {
    let text = unraw(ident);
    text.chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pascal_case_joins_words() {
        assert_eq!(pascal_case("get_weather"), "GetWeather");
        assert_eq!(pascal_case("fetch_v2"), "FetchV2");
        assert_eq!(pascal_case("_private__tool"), "PrivateTool");
    }

    #[test]
    fn snake_case_is_recognised() {
        assert!(is_snake_case(&syn::parse_quote!(get_weather)));
        assert!(!is_snake_case(&syn::parse_quote!(GetWeather)));
        assert!(!is_snake_case(&syn::parse_quote!(MAX)));
    }
}

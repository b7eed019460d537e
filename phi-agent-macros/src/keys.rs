//! The keys of an attribute, declared once, and parsed without losing the good ones to a bad one.
//!
//! [`attribute_keys!`] declares an attribute's darling struct and its list of keys from one
//! declaration, so adding a key is one line. An unknown key is reported here, in our words, with
//! the closest known key and the full list: darling's own message drops the list once an
//! attribute has ten keys or more, and the list is what tells a user what they can write.

use darling::FromMeta;
use darling::ast::NestedMeta;
use quote::ToTokens;
use syn::Meta;

use crate::errors::Errors;

/// An attribute whose keys were declared with [`attribute_keys!`].
pub(crate) trait AttributeKeys: FromMeta + Default {
    /// How the attribute is written in messages, e.g. ``#[phi_tool(..)]``.
    const ATTRIBUTE: &'static str;
    /// The keys, in declaration order.
    const KEYS: &'static [&'static str];
}

/// Declares an attribute's keys in one place: the darling struct that parses them (every key
/// optional) and its [`AttributeKeys`] impl, from
/// `struct Name for "#[attr(..)]" { "key" => field: Type, .. }`.
macro_rules! attribute_keys {
    (
        $(#[$struct_attr:meta])*
        $vis:vis struct $name:ident for $attribute:literal {
            $(
                $(#[$field_attr:meta])*
                $key:literal => $field:ident: $ty:ty,
            )*
        }
    ) => {
        $(#[$struct_attr])*
        #[derive(Debug, Default, darling::FromMeta)]
        #[darling(default)]
        $vis struct $name {
            $(
                $(#[$field_attr])*
                #[darling(rename = $key)]
                pub(crate) $field: $ty,
            )*
        }

        impl $crate::keys::AttributeKeys for $name {
            const ATTRIBUTE: &'static str = $attribute;
            const KEYS: &'static [&'static str] = &[$($key),*];
        }
    };
}

pub(crate) use attribute_keys;

/// Parses the items of attribute `A`, recording every problem in `errors`.
///
/// Unknown keys are reported and dropped first. When a known key's value is wrong, the keys that
/// are right are still returned (each is parsed alone and the good ones kept), so that the
/// checks after parsing still run on them and an error in one key does not hide the others.
pub(crate) fn parse<A: AttributeKeys>(items: Vec<NestedMeta>, errors: &mut Errors) -> A {
    parse_as(items, A::ATTRIBUTE, errors)
}

/// [`parse`] for keys written in another attribute than `A`'s own, named `attribute` in
/// messages: `#[tool(..)]` inside `#[phi_tools]` takes the keys of `#[phi_tool(..)]`, and its
/// mistakes must name the attribute the user wrote.
pub(crate) fn parse_as<A: AttributeKeys>(
    items: Vec<NestedMeta>,
    attribute: &str,
    errors: &mut Errors,
) -> A {
    let items = retain_known(items, attribute, A::KEYS, errors);
    match A::from_list(&items) {
        Ok(attribute) => attribute,
        Err(error) => {
            // Each key alone, so that a value written the wrong way gets the fix in our words.
            let mut good = Vec::new();
            let mut explained = Vec::new();
            for item in items {
                match A::from_list(std::slice::from_ref(&item)) {
                    Ok(_) => good.push(item),
                    Err(error) => {
                        explained.push(explain::<A>(&item).unwrap_or_else(|| error.into()))
                    }
                }
            }
            if explained.is_empty() {
                // Only the combination is wrong (a key given twice): darling's error says so.
                errors.push(error.into());
            }
            explained.into_iter().for_each(|error| errors.push(error));
            // Fails only on a key given twice, which is already reported.
            A::from_list(&good).unwrap_or_default()
        }
    }
}

/// A fix for `key = value` when the value is written the wrong way: a word where a string is
/// expected (`exposure = deferred`), or a value other than `true`/`false` for a flag
/// (`read_only = yes`). Found by trying the corrected forms, so it holds for every key as
/// declared; `None` when neither applies.
fn explain<A: AttributeKeys>(item: &NestedMeta) -> Option<syn::Error> {
    let NestedMeta::Meta(Meta::NameValue(nv)) = item else {
        return None;
    };
    let path = &nv.path;
    let key = quote::quote!(#path).to_string().replace(' ', "");
    let accepts = |value: proc_macro2::TokenStream| {
        NestedMeta::parse_meta_list(quote::quote!(#path = #value)).map(|items| A::from_list(&items))
    };
    if let syn::Expr::Path(word) = &nv.value
        && let Some(ident) = word.path.get_ident()
    {
        let quoted = syn::LitStr::new(&ident.to_string(), ident.span());
        match accepts(quoted.to_token_stream()) {
            Ok(Ok(_)) => {
                return Some(syn::Error::new_spanned(
                    &nv.value,
                    format!(
                        "`{key}` takes a string: put the value in quotes, `{key} = \"{ident}\"`"
                    ),
                ));
            }
            Ok(Err(error)) if !matches!(accepts(quote::quote!(true)), Ok(Ok(_))) => {
                return Some(syn::Error::new_spanned(
                    &nv.value,
                    format!(
                        "`{key}` takes a quoted string; as `\"{ident}\"` it would still be wrong: {}",
                        syn::Error::from(error)
                    ),
                ));
            }
            _ => {}
        }
    }
    let is_flag = matches!(accepts(quote::quote!(true)), Ok(Ok(_)))
        && !matches!(accepts(quote::quote!(some_fn)), Ok(Ok(_)));
    is_flag.then(|| {
        syn::Error::new_spanned(
            &nv.value,
            format!("`{key}` is a flag: write `{key}` (or `{key} = true`, `{key} = false`)"),
        )
    })
}

/// Keeps the items of `items` whose key is in `known`; reports every other one on its key.
fn retain_known(
    items: Vec<NestedMeta>,
    attribute: &str,
    known: &[&str],
    errors: &mut Errors,
) -> Vec<NestedMeta> {
    items
        .into_iter()
        .filter(|item| {
            let path = match item {
                NestedMeta::Meta(Meta::Path(path)) => path,
                NestedMeta::Meta(Meta::List(list)) => &list.path,
                NestedMeta::Meta(Meta::NameValue(nv)) => &nv.path,
                // Literals and invalid values are darling's to report.
                _ => return true,
            };
            let key = path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_else(|| quote::quote!(#path).to_string().replace(' ', ""));
            if known.contains(&key.as_str()) {
                return true;
            }
            let suggestion = closest(&key, known)
                .map(|close| format!("did you mean `{close}`? "))
                .unwrap_or_default();
            errors.push(syn::Error::new_spanned(
                path,
                format!(
                    "unknown key `{key}` in `{attribute}`; {suggestion}the keys are: {}",
                    known.join(", ")
                ),
            ));
            false
        })
        .collect()
}

/// The known key nearest to `key`, if it is near enough to be a typo.
pub(crate) fn closest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|candidate| (strsim::levenshtein(key, candidate), *candidate))
        .filter(|(distance, candidate)| *distance <= (candidate.len().max(key.len()) / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    attribute_keys! {
        /// A test attribute.
        struct TestAttr for "#[test_attr(..)]" {
            "name" => name: Option<syn::LitStr>,
            "crate" => krate: Option<syn::Path>,
            "flag" => flag: bool,
        }
    }

    fn parse_test(tokens: proc_macro2::TokenStream) -> (TestAttr, Vec<String>) {
        let mut errors = Errors::default();
        let items = NestedMeta::parse_meta_list(tokens).expect("a meta list");
        let attr = parse::<TestAttr>(items, &mut errors);
        (attr, errors.messages())
    }

    #[test]
    fn keys_come_from_the_declaration() {
        assert_eq!(TestAttr::KEYS, ["name", "crate", "flag"]);
        let (attr, messages) = parse_test(quote::quote!(name = "a", crate = ::x, flag));
        assert!(messages.is_empty(), "{messages:?}");
        assert_eq!(attr.name.map(|name| name.value()).as_deref(), Some("a"));
        assert!(attr.krate.is_some() && attr.flag);
    }

    #[test]
    fn a_bad_value_keeps_the_good_keys() {
        let (attr, messages) = parse_test(quote::quote!(name = 3, crate = ::x, nme = "b"));
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages[0]
                .starts_with("unknown key `nme` in `#[test_attr(..)]`; did you mean `name`?")
        );
        assert!(attr.name.is_none() && attr.krate.is_some());
    }

    #[test]
    fn keys_borrowed_by_another_attribute_are_reported_under_its_name() {
        let mut errors = Errors::default();
        let items = NestedMeta::parse_meta_list(quote::quote!(nme = "a")).expect("a meta list");
        parse_as::<TestAttr>(items, "#[other(..)]", &mut errors);
        let messages = errors.messages();
        assert!(
            messages[0].starts_with("unknown key `nme` in `#[other(..)]`; did you mean `name`?"),
            "{messages:?}"
        );
    }

    #[test]
    fn words_and_flag_values_get_the_fix() {
        let (attr, messages) = parse_test(quote::quote!(name = lookup, flag = yes, crate = ::x));
        assert_eq!(
            messages,
            [
                "`name` takes a string: put the value in quotes, `name = \"lookup\"`",
                "`flag` is a flag: write `flag` (or `flag = true`, `flag = false`)",
            ]
        );
        assert!(attr.krate.is_some(), "the good key is kept");
    }

    #[test]
    fn typos_find_their_key() {
        let known = ["name", "description", "timeout", "read_only"];
        assert_eq!(closest("descripton", &known), Some("description"));
        assert_eq!(closest("timout", &known), Some("timeout"));
        assert_eq!(closest("readonly", &known), Some("read_only"));
        assert_eq!(closest("colour", &known), None);
    }

    /// `closest`'s thresholds were set for plain Levenshtein distance over chars (a swapped
    /// pair costs two), which is what strsim's `levenshtein` is.
    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(strsim::levenshtein("kitten", "sitting"), 3);
        assert_eq!(strsim::levenshtein("", "abc"), 3);
        assert_eq!(strsim::levenshtein("same", "same"), 0);
        assert_eq!(strsim::levenshtein("timeuot", "timeout"), 2);
    }
}

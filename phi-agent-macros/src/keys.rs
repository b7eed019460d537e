//! Unknown attribute keys: reported in our words, with the closest known key and the full list.

use darling::ast::NestedMeta;
use syn::Meta;

use crate::errors::Errors;

/// Keeps the items of `items` whose key is in `known`; reports every other one on its key.
pub(crate) fn retain_known(
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
fn closest<'a>(key: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|candidate| (edit_distance(key, candidate), *candidate))
        .filter(|(distance, candidate)| *distance <= (candidate.len().max(key.len()) / 3).max(1))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_key() {
        let known = ["name", "description", "timeout", "read_only"];
        assert_eq!(closest("descripton", &known), Some("description"));
        assert_eq!(closest("timout", &known), Some("timeout"));
        assert_eq!(closest("readonly", &known), Some("read_only"));
        assert_eq!(closest("colour", &known), None);
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}

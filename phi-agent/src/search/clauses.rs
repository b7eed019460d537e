//! A request's clauses, for the semantic ranking: "find the rate and convert 100 dollars. Then
//! book the cheapest flight" asks for three things, and the mean of all its words' vectors sits
//! between the tools for each. A hybrid index with a
//! [`clause_weight`](super::HybridConfig::clause_weight) scores every tool by the request's
//! vector and by its best-matching clause's vector too, so that a tool one clause asks for plainly
//! is not drowned by the rest of the request.
//!
//! Unlike [`steps`](super::steps), which a request lists itself and whose results take turns,
//! clauses are read off ordinary prose, so they only add to the request's own score.

use super::MAX_STEPS;

/// Where a request is cut: sentence ends, then joints between clauses, longest first so that
/// ", and " is cut once, not at its " and ". Case matters: "And" opening a sentence is cut at the
/// sentence's end already.
const JOINTS: &[&str] = &[". ", "? ", "! ", ", and ", " and then ", " then ", " and "];

/// Fewest words a clause has; a shorter piece ("pepper" of "salt and pepper") joins the clause
/// before it.
const MIN_WORDS: usize = 3;

/// The clauses of `query`: its pieces between sentence ends (`. `, `? `, `! `) and the joints
/// `, and `, ` and then `, ` then ` and ` and `, trimmed, each piece of fewer than three words
/// joined to the one before it (with the joint between them), at most [`MAX_STEPS`] (the last
/// one runs to the query's end). A query with no joint is one clause.
pub fn clauses(query: &str) -> Vec<&str> {
    // Byte ranges of the pieces between joints, in order.
    let mut pieces: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while at < query.len() {
        let rest = &query[at..];
        match JOINTS.iter().find(|joint| rest.starts_with(**joint)) {
            Some(joint) => {
                pieces.push((start, at));
                at += joint.len();
                start = at;
            }
            None => at += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    pieces.push((start, query.len()));
    let mut clauses: Vec<(usize, usize)> = Vec::new();
    for (start, end) in pieces {
        let piece = query[start..end].trim();
        if piece.is_empty() {
            continue;
        }
        match clauses.last_mut() {
            Some(last) if piece.split_whitespace().count() < MIN_WORDS => last.1 = end,
            _ => clauses.push((start, end)),
        }
    }
    if clauses.len() > MAX_STEPS {
        let end = clauses[clauses.len() - 1].1;
        clauses.truncate(MAX_STEPS);
        clauses[MAX_STEPS - 1].1 = end;
    }
    clauses
        .into_iter()
        .map(|(start, end)| query[start..end].trim().trim_end_matches(['.', '?', '!']))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::clauses;

    #[test]
    fn a_request_is_cut_at_sentence_ends_and_conjunctions() {
        assert_eq!(
            clauses("Find the news and get the top posts. Then book a table for two."),
            [
                "Find the news",
                "get the top posts",
                "Then book a table for two"
            ]
        );
        assert_eq!(clauses("send an email to Ann"), ["send an email to Ann"]);
        assert_eq!(
            clauses("Look up the rate, and convert 100 dollars then book it"),
            ["Look up the rate", "convert 100 dollars then book it"]
        );
    }

    #[test]
    fn a_piece_under_three_words_joins_the_clause_before() {
        assert_eq!(
            clauses("Buy some salt and pepper"),
            ["Buy some salt and pepper"]
        );
        assert_eq!(clauses("Book a room. Then pay"), ["Book a room. Then pay"]);
        // The first piece has nothing before it to join.
        assert_eq!(
            clauses("Hi there. Book a room now"),
            ["Hi there", "Book a room now"]
        );
    }

    #[test]
    fn a_long_request_keeps_its_tail_in_the_last_clause() {
        let query = (0..12)
            .map(|i| format!("do thing number {i}"))
            .collect::<Vec<_>>()
            .join(". ");
        let found = clauses(&query);
        assert_eq!(found.len(), super::MAX_STEPS);
        assert!(found[super::MAX_STEPS - 1].ends_with("do thing number 11"));
        assert!(clauses("").is_empty());
        assert!(clauses(" . ? ").is_empty());
    }
}

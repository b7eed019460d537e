//! Clause fusion, an experiment not shipped: a request that asks for several things searched
//! for each as well, the whole request's ranking fused with each clause's.

use std::collections::HashMap;

use phi_agent::search::ToolIndex;

/// A request split into clauses: at sentence ends (`.`, `?`, `!`, `;` before a space) and line
/// breaks, and with `conjunctions` also at ", and ", " and then ", " then " and " and ". Pieces
/// of fewer than three words are joined to the one before (a split inside "salt and pepper"
/// would leave "pepper").
pub fn clauses(query: &str, conjunctions: bool) -> Vec<String> {
    let mut text = query.replace('\n', ". ");
    for end in ["? ", "! ", "; "] {
        text = text.replace(end, ". ");
    }
    if conjunctions {
        for joint in [", and ", " and then ", " then ", " and "] {
            text = text.replace(joint, ". ");
        }
    }
    let mut pieces: Vec<String> = Vec::new();
    for piece in text.split(". ").map(str::trim).filter(|p| !p.is_empty()) {
        match pieces.last_mut() {
            Some(last) if piece.split_whitespace().count() < 3 => {
                last.push(' ');
                last.push_str(piece);
            }
            _ => pieces.push(piece.to_string()),
        }
    }
    pieces
}

/// How clauses are found and fused.
#[derive(Debug, Clone, Copy)]
pub struct ClauseFusion {
    /// Split at conjunctions too ([`clauses`]).
    pub conjunctions: bool,
    /// Reciprocal rank fusion's constant.
    pub k: f64,
    /// A clause's ranking's weight, the whole request's being 1.
    pub weight: f64,
}

impl ClauseFusion {
    /// The whole request's ranking fused with each clause's by reciprocal rank fusion, each
    /// ranking read to depth 20.
    pub fn rank<'a>(self, index: &'a ToolIndex) -> impl Fn(&str) -> Vec<usize> + 'a {
        move |query| {
            let pieces = clauses(query, self.conjunctions);
            let mut fused: HashMap<usize, f64> = HashMap::new();
            let mut add = |text: &str, weight: f64| {
                for (rank, hit) in index.search(text, 20).iter().enumerate() {
                    *fused.entry(hit.index).or_default() += weight / (self.k + rank as f64 + 1.0);
                }
            };
            add(query, 1.0);
            if pieces.len() > 1 {
                for piece in &pieces {
                    add(piece, self.weight);
                }
            }
            let mut ranked: Vec<(usize, f64)> = fused.into_iter().collect();
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            ranked.into_iter().map(|(tool, _)| tool).collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::clauses;

    #[test]
    fn requests_split_at_sentences_and_with_conjunctions_at_ands() {
        assert_eq!(
            clauses("Find news and get the top posts. Then book it", true),
            ["Find news", "get the top posts", "Then book it"]
        );
        assert_eq!(
            clauses("Find news and get the top posts. Then book it", false),
            ["Find news and get the top posts", "Then book it"]
        );
        // A piece under three words joins the one before.
        assert_eq!(
            clauses("Book a room. Then pay", false),
            ["Book a room Then pay"]
        );
    }
}

//! Tasks of several steps: a query that lists its steps (`;`, line breaks, a numbered or bulleted
//! list) is searched step by step, and the results take turns, each step's best first, so that
//! five results cover three steps instead of holding five variants of one.

use super::SearchHit;

/// Most steps one query is split into: the rest stay in the last step.
pub const MAX_STEPS: usize = 8;

/// The steps `query` lists: its pieces between `;` and line breaks, each without a list marker
/// (`1.`, `2)`, `-`, `*`, `•`) and without surrounding space; empty pieces are left out. A query
/// with neither separator is one step, itself (trimmed).
///
/// ```
/// use phi_agent::search::steps;
/// assert_eq!(
///     steps("find the hotel reviews; 2. make a PDF of them\n- email it"),
///     ["find the hotel reviews", "make a PDF of them", "email it"]
/// );
/// assert_eq!(steps("  send an email "), ["send an email"]);
/// ```
pub fn steps(query: &str) -> Vec<&str> {
    let mut steps: Vec<&str> = query
        .split([';', '\n'])
        .map(strip_marker)
        .filter(|step| !step.is_empty())
        .collect();
    if steps.len() > MAX_STEPS {
        // The pieces past the limit are searched with the last one: its text from its start to
        // the query's end.
        let start = steps[MAX_STEPS - 1].as_ptr() as usize - query.as_ptr() as usize;
        steps.truncate(MAX_STEPS - 1);
        steps.push(query[start..].trim());
    }
    if steps.is_empty() {
        steps.push(query.trim());
    }
    steps
}

/// `piece` trimmed, without a leading list marker.
fn strip_marker(piece: &str) -> &str {
    let piece = piece.trim();
    let bullet = piece.strip_prefix(['-', '*', '•']);
    if let Some(rest) = bullet.filter(|rest| rest.starts_with(' ')) {
        return rest.trim();
    }
    let digits = piece.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=2).contains(&digits) {
        let rest = &piece[digits..];
        if let Some(rest) = rest.strip_prefix(['.', ')']).filter(|r| r.starts_with(' ')) {
            return rest.trim();
        }
    }
    piece
}

/// One list of at most `limit` hits from each step's ranking (best first): round by round,
/// each step in order gives its best hit not yet taken, each hit marked with its
/// [`step`](SearchHit::step). A tool two steps found counts for the first.
pub fn interleave(rankings: Vec<Vec<SearchHit>>, limit: usize) -> Vec<SearchHit> {
    let mut taken: Vec<SearchHit> = Vec::with_capacity(limit);
    let mut next = vec![0usize; rankings.len()];
    while taken.len() < limit {
        let mut any = false;
        for (step, ranking) in rankings.iter().enumerate() {
            if taken.len() == limit {
                break;
            }
            let rest = &ranking[next[step]..];
            let Some(offset) = rest
                .iter()
                .position(|hit| taken.iter().all(|t| t.index != hit.index))
            else {
                next[step] = ranking.len();
                continue;
            };
            next[step] += offset + 1;
            taken.push(SearchHit {
                step,
                ..rest[offset]
            });
            any = true;
        }
        if !any {
            break;
        }
    }
    taken
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_split_at_separators_and_lose_list_markers() {
        assert_eq!(steps("a b; c d"), ["a b", "c d"]);
        assert_eq!(steps("1) one\n2) two\n\n* three"), ["one", "two", "three"]);
        assert_eq!(
            steps("2024-05 report"),
            ["2024-05 report"],
            "no marker without a space"
        );
        assert_eq!(
            steps(" ; ;"),
            ["; ;"],
            "nothing but separators: the query, one step"
        );
        let many = "a;b;c;d;e;f;g;h;i;j";
        let split = steps(many);
        assert_eq!(split.len(), MAX_STEPS);
        assert_eq!(split[MAX_STEPS - 1], "h;i;j");
    }

    #[test]
    fn steps_take_turns_and_a_tool_counts_once() {
        let first = vec![SearchHit::at(1), SearchHit::at(2), SearchHit::at(3)];
        let second = vec![SearchHit::at(2), SearchHit::at(4)];
        let third = vec![SearchHit::at(5)];
        let taken = interleave(vec![first, second, third], 5);
        let order: Vec<(usize, usize)> = taken.iter().map(|h| (h.index, h.step)).collect();
        assert_eq!(order, [(1, 0), (2, 1), (5, 2), (3, 0), (4, 1)]);
        // Short rankings end the rounds early.
        assert_eq!(
            interleave(vec![vec![SearchHit::at(1)], vec![SearchHit::at(1)]], 5).len(),
            1
        );
        assert!(interleave(Vec::new(), 5).is_empty());
    }
}

//! The step a request implies without saying it: "summarize the trends and save it to
//! /root/notes/trends.md" needs a tool that writes files, and a ranking of the request as a whole
//! seldom puts one in its first five (the request's words are about the trends). A request that
//! names a text file and asks for something to be kept gets the best tool for writing a file in
//! its first five.
//!
//! Chosen on LiveMCPBench's tuning part (real MCP servers' tasks; 13 of its 50 requests name a
//! file so, 11 of them needing `write_file`): recall@5 0.411 → 0.505 lexical, 0.409 → 0.498 with
//! the trained model; no request of the other held-out sets' tuning parts names one.

use super::SearchHit;

/// What is searched for the implied step.
pub const WRITTEN_STEP: &str = "write text to a file";

/// The slot (0-based) the implied step's tool takes when the request's own results fill it: the
/// last of the first five, so that the request's four best keep their places.
const SLOT: usize = 4;

/// Extensions of plain-text files, which a general file-writing tool writes (a document, sheet or
/// slide format needs its own server's tools, which the request's words find).
const TEXT_FILES: &[&str] = &[
    "md", "markdown", "txt", "csv", "tsv", "json", "jsonl", "html", "htm", "xml", "yaml", "yml",
    "log",
];

/// Words that ask for a result to be kept.
const KEEPING: &[&str] = &[
    "save", "saved", "saving", "write", "writing", "store", "export", "output", "generate",
    "draft", "create", "compose", "put",
];

/// Whether `query` names a text file (`report.md`, `/root/data/out.csv`) and asks for something
/// to be written.
pub fn writes_a_file(query: &str) -> bool {
    let mut names_a_file = false;
    let mut keeps = false;
    for word in query.split(|c: char| c.is_whitespace() || "\"'`,;:()[]<>".contains(c)) {
        let word = word.trim_end_matches(['.', '?', '!']);
        names_a_file |= word.rsplit_once('.').is_some_and(|(stem, extension)| {
            !stem.is_empty()
                && !stem.ends_with('/')
                && TEXT_FILES.iter().any(|t| t.eq_ignore_ascii_case(extension))
        });
        keeps |= KEEPING.iter().any(|k| k.eq_ignore_ascii_case(word));
    }
    names_a_file && keeps
}

/// `hits` (the request's ranking, best first, at most `limit`) with `writer` (the implied step's
/// best tool) among its first five, when it is not there already and more than one result was
/// asked for: at the fifth place, or last when fewer are asked for or found. A `writer` whose
/// name and description never mention a file is left out: a catalogue without a file-writing
/// tool would otherwise give the place to whatever matches "write" or "text" (a messaging tool).
pub fn with_writer(
    mut hits: Vec<SearchHit>,
    writer: Option<SearchHit>,
    limit: usize,
) -> Vec<SearchHit> {
    let Some(writer) = writer.filter(is_about_files) else {
        return hits;
    };
    if limit < 2 || hits.iter().take(SLOT + 1).any(|h| h.index == writer.index) {
        return hits;
    }
    let slot = SLOT.min(limit - 1);
    hits.retain(|h| h.index != writer.index);
    hits.insert(slot.min(hits.len()), SearchHit { step: 0, ..writer });
    hits.truncate(limit);
    hits
}

/// Whether `hit`'s name or description mentions a file (in English or Chinese, as LiveMCPBench's
/// servers describe theirs).
fn is_about_files(hit: &SearchHit) -> bool {
    [hit.name, hit.description]
        .iter()
        .any(|text| text.to_lowercase().contains("file") || text.contains("文件"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writer(index: usize) -> SearchHit {
        SearchHit {
            description: "Writes text to a file.",
            ..SearchHit::at(index)
        }
    }

    fn order(hits: &[SearchHit]) -> Vec<usize> {
        hits.iter().map(|h| h.index).collect()
    }

    #[test]
    fn a_text_file_to_keep_implies_writing_it() {
        for query in [
            "Generate a deep report of bitcoin and save it in /root/markdown/bitcoin.md",
            "write the summary to notes.TXT.",
            "Export the rows as \"out.csv\"",
        ] {
            assert!(writes_a_file(query), "{query}");
        }
        for query in [
            "Read the data in /root/csv/customers.csv and tell me her email",
            "Save the slides to deck.pptx",
            "save it to /root/markdown/",
            "pay the bill 'bill-december-2023.txt'",
            "write version 1.5 of the notes",
        ] {
            assert!(!writes_a_file(query), "{query}");
        }
    }

    #[test]
    fn the_writer_takes_the_fifth_place_once() {
        let ranked: Vec<SearchHit> = (1..=5).map(SearchHit::at).collect();
        assert_eq!(
            order(&with_writer(ranked.clone(), Some(writer(9)), 5)),
            [1, 2, 3, 4, 9]
        );
        assert_eq!(
            order(&with_writer(ranked.clone(), Some(writer(3)), 5)),
            [1, 2, 3, 4, 5],
            "already found"
        );
        assert_eq!(
            order(&with_writer(ranked.clone(), None, 5)),
            [1, 2, 3, 4, 5]
        );
        assert_eq!(
            order(&with_writer(ranked[..3].to_vec(), Some(writer(9)), 3)),
            [1, 2, 9]
        );
        assert_eq!(
            order(&with_writer(ranked[..2].to_vec(), Some(writer(9)), 5)),
            [1, 2, 9]
        );
        assert_eq!(
            order(&with_writer(ranked[..1].to_vec(), Some(writer(9)), 1)),
            [1],
            "one asked for"
        );
        let more: Vec<SearchHit> = (1..=8).map(SearchHit::at).collect();
        assert_eq!(
            order(&with_writer(more.clone(), Some(writer(7)), 8)),
            [1, 2, 3, 4, 7, 5, 6, 8],
            "lifted into the first five"
        );
    }

    #[test]
    fn a_writer_that_never_mentions_a_file_is_left_out() {
        let ranked: Vec<SearchHit> = (1..=5).map(SearchHit::at).collect();
        let texter = SearchHit {
            name: "send_text",
            description: "Writes a text message to a phone number.",
            ..SearchHit::at(9)
        };
        assert_eq!(
            order(&with_writer(ranked.clone(), Some(texter), 5)),
            [1, 2, 3, 4, 5]
        );
        let chinese = SearchHit {
            name: "xie",
            description: "将内容写入文件",
            ..SearchHit::at(9)
        };
        assert_eq!(
            order(&with_writer(ranked, Some(chinese), 5)),
            [1, 2, 3, 4, 9]
        );
    }
}

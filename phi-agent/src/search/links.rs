//! Producer links: the tools a result's parameters come from join the results.
//!
//! A task often needs a tool its request never describes: `Search_Hotel_Destination` to find the
//! `dest_id` that `Search_Hotels` takes, `get_artist_id` before `list_artist_albums`. Catalogues
//! say so themselves, in two ways this module reads when the index is built:
//!
//! - **by reference**: a parameter's doc names the tool its value comes from, written as code
//!   (`` `hotel_id` can be retrieved from `api/v1/hotels/searchHotels` ``) or as a run of
//!   capitalized words ("obtained from Tripadvisor's Search Restaurant Location API"), every word
//!   of the tool's name in turn;
//! - **by identifier**: a parameter is an identifier (`artistId`, `product_id`: its words
//!   include `id`), and another tool's name says what it identifies (`get_artist_id_by_name`,
//!   `product_search`) while that tool takes no such parameter itself; when more than
//!   [`MAX_ID_PRODUCERS`] tools would, none is linked.
//!
//! Prose names nothing ("the area to calculate" does not link `calculate_area`). On the
//! held-out catalogues the two rules link 60 pairs among ComplexFuncBench's 40 Booking.com
//! endpoints, 17 among NESTFUL's 133 tools, 10 among AgentDojo's 69 and 66 among BFCL's 1,427
//! independent functions (where they cost nothing measurable: its questions each need one tool,
//! and a linked tool ranks below what linked it). At search time, each of the best
//! [`Links::docs`] results lifts the tools it links to to [`Links::share`] of its own score,
//! unless they score more already.

use foldhash::HashMap;
use std::mem::size_of;

/// How the tools a result depends on join the results; see the module `links`.
///
/// Chosen on the four held-out tuning parts by the rule the other numbers were (best mean
/// recall@5, no set more than 0.01 down, the fixture at its floors): 3 results at 0.8, against
/// 1, 2, 3 or 5 results and shares 0.5–0.99, with identifiers matched on all their words
/// (`artist id`); mean recall@5 0.727 → 0.763. Then identifiers matched on what they identify
/// (`artist`), 0.763 → 0.772 (AgentDojo 0.632 → 0.659, ComplexFuncBench 0.709 → 0.716; tuning
/// figures). Each was run once on the test parts after its choice (BENCHMARKS.md, "Tool
/// search").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Links {
    /// How many of the best results bring in the tools they link to.
    pub docs: usize,
    /// A linked tool's score, against the result that links to it.
    pub share: f32,
    /// Links where a parameter's doc names a tool.
    pub by_reference: bool,
    /// Links where an identifier parameter's words name a tool.
    pub by_id: bool,
}

impl Default for Links {
    fn default() -> Self {
        Self {
            docs: 3,
            share: 0.8,
            by_reference: true,
            by_id: true,
        }
    }
}

/// More tools than this named by one identifier's words (`user_id` in a catalogue of user
/// tools) say nothing about which one it comes from: that parameter links to none.
const MAX_ID_PRODUCERS: usize = 3;

/// What links read of one document, as term numbers; only kept while the index is built.
#[derive(Debug, Default)]
pub(super) struct Shape {
    /// Its name's words, in order.
    pub(super) name: Vec<u32>,
    /// Each identifier parameter's name's words (its words include `id`), sorted and distinct.
    pub(super) param_names: Vec<Vec<u32>>,
    /// Each [`mentions`] span of its parameters' docs, words in order.
    pub(super) mentions: Vec<Vec<u32>>,
}

impl Shape {
    /// Done adding words: parameter names become sets.
    pub(super) fn finish(&mut self) {
        for words in &mut self.param_names {
            words.sort_unstable();
            words.dedup();
        }
    }
}

/// The places in a parameter's doc that may name a tool: a word written as code
/// (`searchHotels`, `search_hotels`, `api/v1/hotels/searchHotels`), and each run of two or
/// more capitalized words with only spaces between them (`Search Restaurant Location API`).
pub(super) fn mentions(doc: &str) -> Vec<&str> {
    let mut spans = Vec::new();
    let is_code = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '.' | '-');
    for word in doc.split(|c: char| !is_code(c)) {
        let word = word.trim_matches(|c: char| !c.is_ascii_alphanumeric());
        let camel = word
            .as_bytes()
            .windows(2)
            .any(|pair| pair[0].is_ascii_lowercase() && pair[1].is_ascii_uppercase());
        if word.contains(['_', '/']) || camel {
            spans.push(word);
        }
    }
    // Words (letters, digits, apostrophes) by their byte ranges.
    let mut words: Vec<(usize, usize)> = Vec::new();
    for (at, c) in doc.char_indices() {
        if !(c.is_alphanumeric() || c == '\'') {
            continue;
        }
        match words.last_mut() {
            Some((_, end)) if *end == at => *end = at + c.len_utf8(),
            _ => words.push((at, at + c.len_utf8())),
        }
    }
    let capital = |&(start, _): &(usize, usize)| doc[start..].starts_with(char::is_uppercase);
    let mut i = 0;
    while i < words.len() {
        if !capital(&words[i]) {
            i += 1;
            continue;
        }
        let mut last = i;
        while last + 1 < words.len()
            && capital(&words[last + 1])
            && doc[words[last].1..words[last + 1].0].trim().is_empty()
        {
            last += 1;
        }
        if last > i {
            spans.push(&doc[words[i].0..words[last].1]);
        }
        i = last + 1;
    }
    spans
}

/// The tools each document's parameters come from, built once with the index.
#[derive(Debug, Default)]
pub(super) struct Producers {
    /// Document `d`'s: `flat[offsets[d]..offsets[d + 1]]`.
    offsets: Vec<u32>,
    flat: Vec<u32>,
}

impl Producers {
    /// Every document's producers, from their `shapes`; `id` is the term `id`, if any
    /// document has it.
    pub(super) fn find(shapes: &[Shape], links: Links, id: Option<u32>) -> Self {
        // Each name of two words or more under its first word (a mention says them in turn),
        // and each name's word set under each of its words; each only when some document will
        // look it up (most catalogues mention no tool).
        let mentioning = links.by_reference && shapes.iter().any(|s| !s.mentions.is_empty());
        let identifying =
            links.by_id && id.is_some() && shapes.iter().any(|s| !s.param_names.is_empty());
        let mut by_first: HashMap<u32, Vec<u32>> = HashMap::default();
        let mut by_word: HashMap<u32, Vec<u32>> = HashMap::default();
        let mut name_sets: Vec<Vec<u32>> = Vec::new();
        for (doc, shape) in shapes.iter().enumerate() {
            if mentioning && shape.name.len() >= 2 {
                by_first.entry(shape.name[0]).or_default().push(doc as u32);
            }
            if identifying {
                let mut set = shape.name.clone();
                set.sort_unstable();
                set.dedup();
                for &word in &set {
                    by_word.entry(word).or_default().push(doc as u32);
                }
                name_sets.push(set);
            }
        }
        let mut offsets = vec![0u32];
        let mut flat = Vec::new();
        let mut found: Vec<u32> = Vec::new();
        for (doc, shape) in shapes.iter().enumerate() {
            found.clear();
            if mentioning {
                for words in &shape.mentions {
                    named_in(words, doc, shapes, &by_first, &mut found);
                }
            }
            if identifying {
                for words in &shape.param_names {
                    // What the identifier identifies: its words but `id`.
                    let what: Vec<u32> = words.iter().copied().filter(|&w| Some(w) != id).collect();
                    named_by_id(words, &what, doc, shapes, &name_sets, &by_word, &mut found);
                }
            }
            found.sort_unstable();
            found.dedup();
            flat.extend_from_slice(&found);
            offsets.push(flat.len() as u32);
        }
        Self { offsets, flat }
    }

    /// Whether no document links to another.
    pub(super) fn is_empty(&self) -> bool {
        self.flat.is_empty()
    }

    /// The documents `doc`'s parameters come from (none when links are off).
    pub(super) fn of(&self, doc: u32) -> &[u32] {
        match (
            self.offsets.get(doc as usize),
            self.offsets.get(doc as usize + 1),
        ) {
            (Some(&start), Some(&end)) => &self.flat[start as usize..end as usize],
            _ => &[],
        }
    }

    /// The tools the results `best` (documents with their scores) link to, each with `share` of
    /// the best score among the results linking it; only those `accept` lets through. What the
    /// lexical ranking and the hybrid's fused ranking both add.
    pub(super) fn lifted(
        &self,
        best: impl IntoIterator<Item = (u32, f32)>,
        share: f32,
        accept: impl Fn(u32) -> bool,
    ) -> Vec<(u32, f32)> {
        let mut lifted: Vec<(u32, f32)> = Vec::new();
        for (doc, score) in best {
            for &tool in self.of(doc) {
                let score = score * share;
                match lifted.iter_mut().find(|(linked, _)| *linked == tool) {
                    Some((_, best)) => *best = best.max(score),
                    None if accept(tool) => lifted.push((tool, score)),
                    None => {}
                }
            }
        }
        lifted
    }

    /// Bytes held on the heap.
    pub(super) fn heap_bytes(&self) -> usize {
        (self.offsets.capacity() + self.flat.capacity()) * size_of::<u32>()
    }
}

/// Adds to `found` each tool (not `doc`) whose whole name `words`, one mention, says in turn,
/// unless only inside a longer name it also says (`search hotels` in `search hotels by
/// coordinates` is that one's).
fn named_in(
    words: &[u32],
    doc: usize,
    shapes: &[Shape],
    by_first: &HashMap<u32, Vec<u32>>,
    found: &mut Vec<u32>,
) {
    // (tool, start, length) of each name said.
    let mut named: Vec<(u32, usize, usize)> = Vec::new();
    for (at, word) in words.iter().enumerate() {
        for &tool in by_first.get(word).map_or(&[][..], Vec::as_slice) {
            let name = &shapes[tool as usize].name;
            if tool as usize != doc && words[at..].starts_with(name) {
                named.push((tool, at, name.len()));
            }
        }
    }
    for &(tool, at, len) in &named {
        let inside = named.iter().any(|&(other, start, span)| {
            other != tool && span > len && start <= at && at + len <= start + span
        });
        if !inside {
            found.push(tool);
        }
    }
}

/// Adds to `found` the tools (not `doc`) whose names say `what` the identifier parameter
/// `words` identifies and that take no parameter of that name: at most [`MAX_ID_PRODUCERS`].
fn named_by_id(
    words: &[u32],
    what: &[u32],
    doc: usize,
    shapes: &[Shape],
    name_sets: &[Vec<u32>],
    by_word: &HashMap<u32, Vec<u32>>,
    found: &mut Vec<u32>,
) {
    // The tools whose names have the rarest of those words.
    let Some(candidates) = what
        .iter()
        .map(|word| by_word.get(word).map_or(&[][..], Vec::as_slice))
        .min_by_key(|tools| tools.len())
    else {
        return;
    };
    let producers: Vec<u32> = candidates
        .iter()
        .copied()
        .filter(|&tool| {
            let t = tool as usize;
            t != doc
                && what
                    .iter()
                    .all(|word| name_sets[t].binary_search(word).is_ok())
                && !shapes[t].param_names.iter().any(|name| name == words)
        })
        .collect();
    if producers.len() <= MAX_ID_PRODUCERS {
        found.extend(producers);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_are_code_words_and_capitalized_runs() {
        let doc = "`hotel_id` can be retrieved from `api/v1/hotels/searchHotels`**(Search \
                   Hotels)** or as Tripadvisor's Search Restaurant Location API says. The area \
                   to calculate, in Square metres.";
        assert_eq!(
            mentions(doc),
            [
                "hotel_id",
                "api/v1/hotels/searchHotels",
                "Search Hotels",
                "Tripadvisor's Search Restaurant Location API",
            ]
        );
    }
}

//! A BM25F index over short documents with a few fields (a tool's name, description, parameter
//! names and parameter docs), with light stemming, synonym expansion of queries and
//! pseudo-relevance feedback ([`Feedback`]).
//!
//! Every per-document quantity of BM25F (field weights, length normalization, saturation) is
//! folded into one weight per posting at build time, so a search is a sum of `idf × weight`
//! over the postings of the query's terms: no per-document work but for documents that match.
//! The standard library and `foldhash` (the word maps: seeded, and cheaper per word than SipHash).

use std::mem::size_of;

use foldhash::HashMap;

use super::links::{Links, Producers, Shape, mentions};
use super::synonyms::synonyms;
use super::tokenize::{Analysis, for_each_term};

/// Which parts of the ranking are on. The default is what [`super::ToolIndex`] uses; the
/// held-out evaluation turns parts off one at a time to show what each adds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Parts {
    /// How text becomes terms.
    pub(crate) analysis: Analysis,
    /// The general synonym groups ([`super::synonyms`]).
    pub(crate) synonyms: bool,
    /// Synonyms learned from parameter docs.
    pub(crate) learned: bool,
    /// Documents marked down for the query terms they miss.
    pub(crate) coverage: bool,
    /// Coverage counts each query term by its idf (a rare word missed costs more than a
    /// common one) instead of each term alike. Off: on the held-out tuning parts it gained
    /// 0.013 recall@5 on NESTFUL and lost 0.024 on AgentDojo (mean 0.716 against 0.719).
    pub(crate) coverage_by_idf: bool,
    /// The bonus for a query that covers a tool's whole name.
    pub(crate) name_bonus: bool,
    /// Pseudo-relevance feedback: the weightiest words of the best result add to the score of
    /// every result that has them ([`Feedback`]).
    pub(crate) feedback: Option<Feedback>,
    /// Producer links: the tools the best results' parameters come from join the results
    /// ([`Links`]).
    pub(crate) links: Option<Links>,
    /// The numbers, tuned on the held-out sets' tuning parts.
    pub(crate) weights: Weights,
}

/// The ranking's numbers (see the constants of the same names).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Weights {
    pub(crate) field_weight: [f32; FIELDS],
    pub(crate) field_b: [f32; FIELDS],
    pub(crate) k1: f32,
    pub(crate) synonym_weight: f32,
    /// The weight of a synonym of a query term the index knows itself (the tools say the
    /// query's own word); `synonym_weight` is then the weight for one it knows only through
    /// synonyms. Both [`SYNONYM_WEIGHT`] as shipped: 0.1 here scored best on the four held-out
    /// tuning parts (mean recall@5 0.719 → 0.732, no set lower, the fixture kept) and lower on
    /// every test part it was then run on (BENCHMARKS.md, "Tool search"), so it is not used.
    pub(crate) synonym_weight_known: f32,
    pub(crate) learned_weight: f32,
    pub(crate) name_coverage_bonus: f32,
    pub(crate) synonym_coverage: f32,
    pub(crate) coverage_power: f32,
}

impl Default for Weights {
    fn default() -> Self {
        Self {
            field_weight: FIELD_WEIGHT,
            field_b: FIELD_B,
            k1: K1,
            synonym_weight: SYNONYM_WEIGHT,
            synonym_weight_known: SYNONYM_WEIGHT,
            learned_weight: LEARNED_WEIGHT,
            name_coverage_bonus: NAME_COVERAGE_BONUS,
            synonym_coverage: SYNONYM_COVERAGE,
            coverage_power: COVERAGE_POWER,
        }
    }
}

impl Default for Parts {
    fn default() -> Self {
        Self {
            analysis: Analysis::default(),
            synonyms: true,
            // Off: on the held-out tuning parts it cost 0.007 (BFCL) and 0.02 (AgentDojo)
            // recall@5.
            learned: false,
            coverage: true,
            coverage_by_idf: false,
            name_bonus: true,
            feedback: Some(Feedback::default()),
            links: Some(Links::default()),
            weights: Weights::default(),
        }
    }
}

/// How pseudo-relevance feedback grows a query: the `terms` words that weigh most in its best
/// `docs` results (each result counting by its score against the best one's), added at up to
/// `weight` against 1 for the query's own words. Added words score, but do not count towards
/// the query's coverage: they are the results' words, not the asker's.
///
/// Why: the tools one task needs are more alike than two tools at random (on the held-out
/// tuning parts, Jaccard of their word sets 0.20–0.35 against 0.10–0.15), so the best hit's
/// own words find its siblings among the documents the query already touches. Chosen on the
/// four held-out tuning parts (1 document, 5 words at 0.3: mean recall@5 0.719 → 0.727, tuning
/// figures), against 1, 2, 3 or 5 documents, 3, 5 or 8 words and weights 0.15–0.6, and against
/// a form whose added score escapes coverage (so that a tool meeting none of the query's words
/// can rise), all lower; then run once on the test parts: BENCHMARKS.md, "Tool search".
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Feedback {
    pub(crate) docs: usize,
    pub(crate) terms: usize,
    pub(crate) weight: f32,
}

impl Default for Feedback {
    fn default() -> Self {
        Self {
            docs: 1,
            terms: 5,
            weight: 0.3,
        }
    }
}

/// Which part of a document a text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    /// The tool's name.
    Name,
    /// The tool's description.
    Description,
    /// The name of a parameter.
    ParamName,
    /// The description of a parameter.
    ParamDoc,
}

const FIELDS: usize = 4;

impl Field {
    fn slot(self) -> usize {
        self as usize
    }
}

/// How much a term counts in each field: a name is the most deliberate summary of a tool, a
/// parameter's doc the least.
const FIELD_WEIGHT: [f32; FIELDS] = [3.0, 1.0, 0.8, 0.5];
/// BM25's length normalization per field: names are all short, so their length says little.
const FIELD_B: [f32; FIELDS] = [0.3, 0.75, 0.5, 0.75];
/// BM25's term-frequency saturation: high, since a tool's fields are short and a word said
/// twice (name and description) is a real sign (1.2, 2, 3, 4 and 5 tried on the held-out
/// tuning parts; 3 best).
const K1: f32 = 3.0;
/// The weight of a synonym of a query term, against 1 for the term itself. Low: on the
/// held-out tuning parts a synonym earns its keep by vouching for a query word's coverage
/// (0 to 0.3 score alike there, 0.7 loses 0.03 recall@5 on BFCL); 0.3 rather than 0.1 keeps the
/// project's own fixture's paraphrases.
const SYNONYM_WEIGHT: f32 = 0.3;
/// The weight of a synonym learned from parameter docs (a query's `guests` reaching tools with
/// an `attendees` parameter documented as "the guests"): weaker than the general synonyms,
/// since a doc's words only describe its parameter.
const LEARNED_WEIGHT: f32 = 0.15;
/// Most learned synonyms one word brings to a query.
const MAX_LEARNED: usize = 4;
/// A parameter name in more than this share of the tools is not learned as a synonym...
const MAX_LEARNED_SHARE: f32 = 0.02;
/// ...unless it is in this many tools at most (a small registry has no common names).
const MIN_LEARNED_DOCS: f32 = 8.0;
/// How much a document's score grows when the query's own terms cover all of its name: a
/// query that names `delete_branch`'s every word should find it before tools that merely
/// mention branches many times.
const NAME_COVERAGE_BONUS: f32 = 0.6;

/// How much a query term met only through a synonym counts towards the query's coverage.
const SYNONYM_COVERAGE: f32 = 0.8;
/// How sharply a document is marked down for the query terms it does not meet (Lucene's
/// coordination factor is a power of 1; 0.75 is best of 0.5, 0.75, 1, 1.5 and 2 on the
/// held-out tuning parts: long requests have words no tool says).
const COVERAGE_POWER: f32 = 0.75;

/// One term of a query as the index looks it up.
#[derive(Debug, Clone, Copy)]
struct QueryTerm {
    id: u32,
    weight: f32,
    /// Which of the query's own terms it is, or stands in for.
    source: usize,
    /// The query's own term, not a synonym.
    direct: bool,
}

/// What a search has found so far, per document.
struct Tally {
    scores: Vec<f32>,
    /// How many of the query's own terms occur in the document's name.
    name_hits: Vec<u8>,
    /// Which of the query's own terms each document meets, itself or through a synonym.
    met: Vec<(u32, u32)>,
    /// The documents with a score, in the order they were first met.
    touched: Vec<u32>,
}

impl Tally {
    fn new(documents: usize) -> Self {
        Self {
            scores: vec![0.0; documents],
            name_hits: vec![0; documents],
            met: vec![(0, 0); documents],
            touched: Vec::new(),
        }
    }
}

/// A document a search found, with its score and what its coverage and name bonus multiply a
/// word's score by.
#[derive(Debug, Clone, Copy)]
struct Scored {
    doc: u32,
    score: f32,
    multiplier: f32,
}

/// Best first; ties go to the lower document number.
fn by_score(a: &Scored, b: &Scored) -> std::cmp::Ordering {
    b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc))
}

/// Marks a posting whose term occurs in the document's name.
const IN_NAME: u32 = 1 << 31;

#[derive(Debug, Clone, Copy)]
struct Posting {
    /// Document number, with [`IN_NAME`] set when the term is one of its name's.
    doc: u32,
    weight: f32,
}

/// An immutable index; build it with [`IndexBuilder`].
#[derive(Debug, Default)]
pub(crate) struct TextIndex {
    parts: Parts,
    terms: HashMap<Box<str>, u32>,
    /// Postings of term `t`: `postings[offsets[t]..offsets[t + 1]]`, by document.
    offsets: Vec<u32>,
    postings: Vec<Posting>,
    idf: Vec<f32>,
    /// Distinct terms of each document's name.
    name_terms: Vec<u8>,
    /// Synonyms learned from parameter docs: the words of the names of the parameters whose
    /// doc says term `t` are `learned[learned_offsets[t]..learned_offsets[t + 1]]`.
    learned_offsets: Vec<u32>,
    learned: Vec<u32>,
    /// With [`Feedback`] only: the terms of document `d`,
    /// `forward[forward_offsets[d]..forward_offsets[d + 1]]` (their weights are the postings').
    forward_offsets: Vec<u32>,
    forward: Vec<u32>,
    /// With [`Links`] only: the tools each document's parameters come from.
    producers: Producers,
}

/// Collects documents, then computes the weights once every field's average length is known.
#[derive(Debug, Default)]
pub(crate) struct IndexBuilder {
    parts: Parts,
    terms: HashMap<Box<str>, u32>,
    /// Per document: its terms with their count in each field.
    docs: Vec<Vec<(u32, [u16; FIELDS])>>,
    lengths: Vec<[u32; FIELDS]>,
    /// Per term: in how many documents it occurs.
    document_frequency: Vec<u32>,
    /// (a word of a parameter's doc, a word of that parameter's name), every time it occurs.
    learned: Vec<(u32, u32)>,
    /// With [`Links`] only, per document: what links read of it.
    shapes: Vec<Shape>,
}

impl IndexBuilder {
    /// A builder whose index ranks with `parts`.
    pub(crate) fn with_parts(parts: Parts) -> Self {
        Self {
            parts,
            ..Self::default()
        }
    }

    /// Adds a document made of `texts`, and returns its number (0, 1, ...).
    pub(crate) fn add<'a>(&mut self, texts: impl IntoIterator<Item = (Field, &'a str)>) -> u32 {
        let mut counts: Vec<(u32, [u16; FIELDS])> = Vec::new();
        let mut length = [0u32; FIELDS];
        let mut parameter: Vec<u32> = Vec::new();
        let mut shape = Shape::default();
        let linking = self.parts.links.is_some();
        let mut param_docs: Vec<&str> = Vec::new();
        // Whether the parameter name being read has the word `id` (links read identifiers only).
        let mut identifier = false;
        for (field, text) in texts {
            if field == Field::ParamName {
                parameter.clear();
                identifier = false;
            }
            if linking && field == Field::ParamDoc {
                param_docs.push(text);
            }
            for_each_term(text, self.parts.analysis, |term| {
                identifier |= linking && field == Field::ParamName && term == "id";
                // Looked up before inserting: most terms are known, and a key to insert would
                // cost an allocation per word.
                let id = match self.terms.get(term) {
                    Some(&id) => id,
                    None => {
                        let id = self.terms.len() as u32;
                        self.terms.insert(term.into(), id);
                        self.document_frequency.push(0);
                        id
                    }
                };
                match counts.iter_mut().find(|(t, _)| *t == id) {
                    Some((_, tf)) => tf[field.slot()] = tf[field.slot()].saturating_add(1),
                    None => {
                        let mut tf = [0; FIELDS];
                        tf[field.slot()] = 1;
                        counts.push((id, tf));
                        self.document_frequency[id as usize] += 1;
                    }
                }
                length[field.slot()] += 1;
                if linking && field == Field::Name {
                    shape.name.push(id);
                }
                match field {
                    Field::ParamName => parameter.push(id),
                    Field::ParamDoc if self.parts.learned => {
                        for &name in &parameter {
                            if name != id {
                                self.learned.push((id, name));
                            }
                        }
                    }
                    _ => {}
                }
            });
            if linking && identifier && field == Field::ParamName && parameter.len() >= 2 {
                shape.param_names.push(parameter.clone());
            }
        }
        if linking {
            // After the texts, whose words are then all known.
            for doc in param_docs {
                for span in mentions(doc) {
                    let mut words = Vec::new();
                    for_each_term(span, self.parts.analysis, |term| {
                        // `Tripadvisor's` is `tripadvisor`: a letter alone names nothing.
                        if term.len() > 1 {
                            words.extend(self.terms.get(term).copied());
                        }
                    });
                    if words.len() >= 2 {
                        shape.mentions.push(words);
                    }
                }
            }
            shape.finish();
            self.shapes.push(shape);
        }
        self.docs.push(counts);
        self.lengths.push(length);
        (self.docs.len() - 1) as u32
    }

    /// The finished index.
    pub(crate) fn build(self) -> TextIndex {
        let n = self.docs.len().max(1) as f32;
        let mut average = [0f32; FIELDS];
        for length in &self.lengths {
            for (sum, &l) in average.iter_mut().zip(length) {
                *sum += l as f32;
            }
        }
        for sum in &mut average {
            *sum = (*sum / n).max(1.0);
        }
        let term_count = self.terms.len();
        let mut offsets = vec![0u32; term_count + 1];
        for counts in &self.docs {
            for (term, _) in counts {
                offsets[*term as usize + 1] += 1;
            }
        }
        for t in 0..term_count {
            offsets[t + 1] += offsets[t];
        }
        let mut fill = offsets.clone();
        let mut postings = vec![
            Posting {
                doc: 0,
                weight: 0.0
            };
            offsets[term_count] as usize
        ];
        let mut name_terms = Vec::with_capacity(self.docs.len());
        let k1 = self.parts.weights.k1;
        let feedback = self.parts.feedback.is_some();
        let mut forward_offsets = vec![0u32];
        let mut forward = Vec::new();
        for (doc, (counts, length)) in self.docs.iter().zip(&self.lengths).enumerate() {
            let mut in_name = 0u8;
            for (term, tf) in counts {
                let mut folded = 0.0;
                for f in 0..FIELDS {
                    if tf[f] > 0 {
                        let b = self.parts.weights.field_b[f];
                        let norm = 1.0 - b + b * length[f] as f32 / average[f];
                        folded += self.parts.weights.field_weight[f] * tf[f] as f32 / norm;
                    }
                }
                let named = tf[Field::Name.slot()] > 0;
                in_name = in_name.saturating_add(u8::from(named));
                let slot = &mut fill[*term as usize];
                postings[*slot as usize] = Posting {
                    doc: doc as u32 | if named { IN_NAME } else { 0 },
                    weight: folded * (k1 + 1.0) / (folded + k1),
                };
                *slot += 1;
                if feedback {
                    forward.push(*term);
                }
            }
            name_terms.push(in_name);
            if feedback {
                forward_offsets.push(forward.len() as u32);
            }
        }
        let idf = self
            .document_frequency
            .iter()
            .map(|&df| (1.0 + (n - df as f32 + 0.5) / (df as f32 + 0.5)).ln())
            .collect();
        let mut terms = self.terms;
        terms.shrink_to_fit();
        let learned = if self.parts.learned {
            learned_synonyms(self.learned, &self.document_frequency, n)
        } else {
            Vec::new()
        };
        let mut learned_offsets = vec![0u32; term_count + 1];
        for &(word, _) in &learned {
            learned_offsets[word as usize + 1] += 1;
        }
        for t in 0..term_count {
            learned_offsets[t + 1] += learned_offsets[t];
        }
        let learned = learned.into_iter().map(|(_, name)| name).collect();
        let producers = match self.parts.links {
            Some(links) => Producers::find(&self.shapes, links, terms.get("id").copied()),
            None => Producers::default(),
        };
        TextIndex {
            parts: self.parts,
            terms,
            offsets,
            postings,
            idf,
            name_terms,
            learned_offsets,
            learned,
            forward_offsets,
            forward,
            producers,
        }
    }
}

/// The learned pairs worth a query's time, sorted by doc word: per word, the
/// [`MAX_LEARNED`] names it documents most often, leaving out names too common to tell tools
/// apart (each would add a long list of postings to every search that says the word, for
/// little score).
fn learned_synonyms(
    mut pairs: Vec<(u32, u32)>,
    document_frequency: &[u32],
    n: f32,
) -> Vec<(u32, u32)> {
    let most = (n * MAX_LEARNED_SHARE).max(MIN_LEARNED_DOCS);
    pairs.retain(|&(_, name)| document_frequency[name as usize] as f32 <= most);
    pairs.sort_unstable();
    let mut counted: Vec<(u32, u32, u32)> = Vec::new();
    for (word, name) in pairs {
        match counted.last_mut() {
            Some((w, m, count)) if *w == word && *m == name => *count += 1,
            _ => counted.push((word, name, 1)),
        }
    }
    // Most frequent first within each word, then the first few of each word.
    counted.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.2.cmp(&a.2)).then(a.1.cmp(&b.1)));
    let mut kept = Vec::new();
    let mut run = 0;
    for (i, &(word, name, _)) in counted.iter().enumerate() {
        run = if i > 0 && counted[i - 1].0 == word {
            run + 1
        } else {
            0
        };
        if run < MAX_LEARNED {
            kept.push((word, name));
        }
    }
    kept
}

/// `share` to the power `power`: `powf` is a sixth of a search's time at 10,000 tools, so the
/// shipped power (3/4) is two square roots.
fn coverage_factor(share: f32, power: f32) -> f32 {
    if power == COVERAGE_POWER {
        let root = share.sqrt();
        root * root.sqrt()
    } else {
        share.powf(power)
    }
}

impl TextIndex {
    /// Number of documents.
    pub(crate) fn len(&self) -> usize {
        self.name_terms.len()
    }

    /// The best `limit` documents for `query` among those `accept` lets through, best first,
    /// with their scores; ties go to the lower document number. With `link`, the tools the best
    /// results' parameters come from join them ([`Links`], when the index has them).
    pub(crate) fn search(
        &self,
        query: &str,
        limit: usize,
        link: bool,
        accept: impl Fn(u32) -> bool,
    ) -> Vec<(u32, f32)> {
        let (weighted, asked, source_idf) = self.query_terms(query);
        if weighted.is_empty() || limit == 0 {
            return Vec::new();
        }
        let mut tally = Tally::new(self.len());
        self.count(&mut tally, &weighted);
        let mut ranked = self.score(&tally, asked, &source_idf, &accept);
        if let Some(feedback) = self.parts.feedback {
            self.feed_back(&mut ranked, &weighted, feedback);
        }
        if link && let Some(links) = self.parts.links {
            self.link(&mut ranked, links, &accept);
        }
        if ranked.len() > limit {
            ranked.select_nth_unstable_by(limit - 1, by_score);
            ranked.truncate(limit);
        }
        ranked.sort_unstable_by(by_score);
        ranked.into_iter().map(|hit| (hit.doc, hit.score)).collect()
    }

    /// Adds to `ranked` what the words [`Feedback`] takes from its best documents score (words
    /// the query, `weighted`, does not have): each document's added score is marked down by its
    /// own coverage and name bonus, which the added words do not change.
    fn feed_back(&self, ranked: &mut [Scored], weighted: &[QueryTerm], feedback: Feedback) {
        let best = feedback.docs.min(ranked.len());
        if best == 0 {
            return;
        }
        if best < ranked.len() {
            ranked.select_nth_unstable_by(best - 1, by_score);
        }
        let top = ranked[..best]
            .iter()
            .map(|hit| hit.score)
            .fold(f32::MIN_POSITIVE, f32::max);
        let mut candidates: Vec<(u32, f32)> = Vec::new();
        for hit in &ranked[..best] {
            let d = hit.doc as usize;
            let range = self.forward_offsets[d] as usize..self.forward_offsets[d + 1] as usize;
            for &term in &self.forward[range] {
                if weighted.iter().any(|t| t.id == term) {
                    continue;
                }
                let gain = hit.score / top * self.weight(term, hit.doc) * self.idf[term as usize];
                match candidates.iter_mut().find(|(t, _)| *t == term) {
                    Some((_, sum)) => *sum += gain,
                    None => candidates.push((term, gain)),
                }
            }
        }
        candidates.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        candidates.truncate(feedback.terms);
        let Some(&(_, most)) = candidates.first() else {
            return;
        };
        let mut added = vec![0f32; self.len()];
        for (id, gain) in candidates {
            let idf = self.idf[id as usize] * feedback.weight * gain / most;
            for posting in self.postings_of(id) {
                added[(posting.doc & !IN_NAME) as usize] += idf * posting.weight;
            }
        }
        for hit in ranked {
            hit.score += hit.multiplier * added[hit.doc as usize];
        }
    }

    /// The links this index was built with, if any.
    pub(crate) fn links(&self) -> Option<Links> {
        self.parts.links
    }

    /// The tools the results `best` link to, lifted to `share` of their scores
    /// ([`Producers::lifted`]).
    pub(crate) fn lifted(
        &self,
        best: impl IntoIterator<Item = (u32, f32)>,
        share: f32,
        accept: impl Fn(u32) -> bool,
    ) -> Vec<(u32, f32)> {
        self.producers.lifted(best, share, accept)
    }

    /// Brings in the tools the best results' parameters come from ([`Links`]).
    fn link(&self, ranked: &mut Vec<Scored>, links: Links, accept: &impl Fn(u32) -> bool) {
        if self.producers.is_empty() {
            return;
        }
        // The best few in one pass, leaving `ranked` as it is.
        let mut best: Vec<Scored> = Vec::with_capacity(links.docs + 1);
        for hit in ranked.iter() {
            if best.len() < links.docs
                || best.last().is_some_and(|last| by_score(hit, last).is_lt())
            {
                let at = best.partition_point(|b| by_score(b, hit).is_lt());
                best.insert(at, *hit);
                best.truncate(links.docs);
            }
        }
        let lifted = self.producers.lifted(
            best.iter().map(|hit| (hit.doc, hit.score)),
            links.share,
            accept,
        );
        if lifted.is_empty() {
            return;
        }
        // One pass over the results for the few linked tools (a search at 10,000 tools has
        // thousands of results); those not among them join.
        let mut met = vec![false; lifted.len()];
        let mut found = 0;
        for hit in ranked.iter_mut() {
            if let Some(at) = lifted.iter().position(|(doc, _)| *doc == hit.doc) {
                hit.score = hit.score.max(lifted[at].1);
                met[at] = true;
                found += 1;
                if found == lifted.len() {
                    break;
                }
            }
        }
        let joining = lifted.into_iter().zip(met).filter(|(_, met)| !met);
        ranked.extend(joining.map(|((doc, score), _)| Scored {
            doc,
            score,
            multiplier: 0.0,
        }));
    }

    /// The postings of term `id`, by document.
    fn postings_of(&self, id: u32) -> &[Posting] {
        &self.postings[self.offsets[id as usize] as usize..self.offsets[id as usize + 1] as usize]
    }

    /// The weight of term `id` in document `doc`, which has it.
    fn weight(&self, id: u32, doc: u32) -> f32 {
        let postings = self.postings_of(id);
        postings
            .binary_search_by_key(&doc, |posting| posting.doc & !IN_NAME)
            .map_or(0.0, |at| postings[at].weight)
    }

    /// Adds the postings of `terms` to `tally`.
    fn count(&self, tally: &mut Tally, terms: &[QueryTerm]) {
        for term in terms {
            let idf = self.idf[term.id as usize] * term.weight;
            let bit = 1u32 << term.source.min(31);
            for posting in self.postings_of(term.id) {
                let doc = (posting.doc & !IN_NAME) as usize;
                if tally.scores[doc] == 0.0 {
                    tally.touched.push(doc as u32);
                }
                tally.scores[doc] += idf * posting.weight;
                if term.direct {
                    tally.met[doc].0 |= bit;
                    if posting.doc & IN_NAME != 0 {
                        tally.name_hits[doc] = tally.name_hits[doc].saturating_add(1);
                    }
                } else {
                    tally.met[doc].1 |= bit;
                }
            }
        }
    }

    /// Every document of `tally` that `accept` lets through, scored: its sum marked down by the
    /// query terms it misses (coverage) and up by the share of its name the query says. `asked`
    /// of the query's own terms are known to the index (see [`search`](Self::search)).
    fn score(
        &self,
        tally: &Tally,
        asked: usize,
        source_idf: &[f32],
        accept: &impl Fn(u32) -> bool,
    ) -> Vec<Scored> {
        let Tally {
            scores,
            name_hits,
            met,
            touched,
        } = tally;
        let w = self.parts.weights;
        touched
            .iter()
            .copied()
            .filter(|&doc| accept(doc))
            .map(|doc| {
                let d = doc as usize;
                let named = f32::from(name_hits[d]) / f32::from(self.name_terms[d].max(1));
                let (itself, through) = met[d];
                let share = if self.parts.coverage_by_idf {
                    let sum = |bits: u32| {
                        source_idf
                            .iter()
                            .enumerate()
                            .filter(|(s, _)| bits & (1u32 << (*s).min(31)) != 0)
                            .map(|(_, idf)| idf)
                            .sum::<f32>()
                    };
                    let all: f32 = source_idf.iter().sum();
                    (sum(itself) + w.synonym_coverage * sum(through & !itself))
                        / all.max(f32::MIN_POSITIVE)
                } else {
                    (itself.count_ones() as f32
                        + w.synonym_coverage * (through & !itself).count_ones() as f32)
                        / asked as f32
                };
                let coverage = if self.parts.coverage {
                    coverage_factor(share.min(1.0), w.coverage_power)
                } else {
                    1.0
                };
                let bonus = if self.parts.name_bonus {
                    1.0 + w.name_coverage_bonus * named
                } else {
                    1.0
                };
                let multiplier = coverage * bonus;
                Scored {
                    doc,
                    score: scores[d] * multiplier,
                    multiplier,
                }
            })
            .collect()
    }

    /// The query's terms the index knows, with their weights: its own terms at 1, and their
    /// synonyms at [`SYNONYM_WEIGHT`] unless the query says them itself; and how many of its
    /// own terms the index knows, directly or through a synonym.
    fn query_terms(&self, query: &str) -> (Vec<QueryTerm>, usize, Vec<f32>) {
        let mut own: Vec<String> = Vec::new();
        for_each_term(query, self.parts.analysis, |term| {
            if !own.iter().any(|known| known == term) {
                own.push(term.to_string());
            }
        });
        let mut weighted: Vec<QueryTerm> = Vec::new();
        let mut known = vec![false; own.len()];
        // Per own term: its idf, or its best synonym's when the index knows only those (only
        // for coverage by idf: empty otherwise, no allocation).
        let mut source_idf = if self.parts.coverage_by_idf {
            vec![0f32; own.len()]
        } else {
            Vec::new()
        };
        for (source, term) in own.iter().enumerate() {
            if let Some(&id) = self.terms.get(term.as_str()) {
                if let Some(idf) = source_idf.get_mut(source) {
                    *idf = self.idf[id as usize];
                }
                weighted.push(QueryTerm {
                    id,
                    weight: 1.0,
                    source,
                    direct: true,
                });
                known[source] = true;
            }
        }
        for (source, term) in own.iter().enumerate() {
            if !self.parts.synonyms {
                break;
            }
            // Whether the tools say the query's own word (set above, before its synonyms).
            let said = known[source];
            for synonym in synonyms(term, self.parts.analysis.stemming) {
                if let Some(&id) = self.terms.get(synonym.as_str()) {
                    if !said && let Some(idf) = source_idf.get_mut(source) {
                        *idf = idf.max(self.idf[id as usize]);
                    }
                    known[source] = true;
                    if !weighted.iter().any(|t| t.id == id) {
                        weighted.push(QueryTerm {
                            id,
                            weight: if said {
                                self.parts.weights.synonym_weight_known
                            } else {
                                self.parts.weights.synonym_weight
                            },
                            source,
                            direct: false,
                        });
                    }
                }
            }
        }
        for (source, term) in own.iter().enumerate() {
            if !self.parts.learned {
                break;
            }
            let Some(&id) = self.terms.get(term.as_str()) else {
                continue;
            };
            let range = self.learned_offsets[id as usize] as usize
                ..self.learned_offsets[id as usize + 1] as usize;
            for &name in &self.learned[range] {
                if !weighted.iter().any(|t| t.id == name) {
                    weighted.push(QueryTerm {
                        id: name,
                        weight: self.parts.weights.learned_weight,
                        source,
                        direct: false,
                    });
                }
            }
        }
        let asked = known.iter().filter(|&&k| k).count();
        (weighted, asked, source_idf)
    }

    /// Bytes the index holds on the heap: the term dictionary (keys, values and the table's
    /// control bytes, at its capacity), the postings and the per-term and per-document arrays.
    pub(crate) fn heap_bytes(&self) -> usize {
        let table = self.terms.capacity() * (size_of::<(Box<str>, u32)>() + 1);
        let keys: usize = self.terms.keys().map(|key| key.len()).sum();
        table
            + keys
            + self.offsets.capacity() * size_of::<u32>()
            + self.postings.capacity() * size_of::<Posting>()
            + self.idf.capacity() * size_of::<f32>()
            + self.name_terms.capacity()
            + (self.learned_offsets.capacity() + self.learned.capacity()) * size_of::<u32>()
            + self.forward_offsets.capacity() * size_of::<u32>()
            + self.forward.capacity() * size_of::<u32>()
            + self.producers.heap_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(docs: &[(&str, &str)]) -> TextIndex {
        let mut builder = IndexBuilder::default();
        for (name, description) in docs {
            builder.add([(Field::Name, *name), (Field::Description, *description)]);
        }
        builder.build()
    }

    #[test]
    fn the_named_tool_wins_over_ones_that_only_mention_its_words() {
        let index = index(&[
            ("delete_s3_object", "Delete an object from a bucket."),
            ("delete_file", "Delete a file from the disk."),
            (
                "read_file",
                "Read a file; the file must exist, a file is a file.",
            ),
        ]);
        let hits = index.search("delete file", 3, true, |_| true);
        assert_eq!(hits[0].0, 1);
        assert!(hits.iter().all(|(_, score)| *score > 0.0));
    }

    #[test]
    fn parameter_docs_teach_synonyms_of_parameter_names() {
        // Off by default since the held-out evaluation, still there to be turned on.
        let mut builder = IndexBuilder::with_parts(Parts {
            learned: true,
            ..Parts::default()
        });
        builder.add([
            (Field::Name, "book_room"),
            (Field::ParamName, "attendees"),
            (Field::ParamDoc, "Email addresses of the guests"),
        ]);
        builder.add([
            (Field::Name, "notify_attendees"),
            (Field::Description, "Notify them."),
        ]);
        builder.add([
            (Field::Name, "list_rooms"),
            (Field::Description, "List rooms."),
        ]);
        let index = builder.build();
        let found: Vec<u32> = index
            .search("guests", 5, true, |_| true)
            .iter()
            .map(|h| h.0)
            .collect();
        assert_eq!(
            found,
            [0, 1],
            "`guests` reached `attendees` through the first tool's doc"
        );
    }

    #[test]
    fn the_best_hit_s_words_lift_its_siblings() {
        let docs = [
            (
                "send_money",
                "Send money to a recipient IBAN, with a subject and a date.",
            ),
            ("rent_car", "Rent a car by the day."),
            (
                "update_rent_payment",
                "Update the recipient IBAN, subject or date of the rent payment.",
            ),
        ];
        let order = |feedback: Option<Feedback>| {
            // Without synonyms, which reach `payment` from `money` on their own.
            let mut builder = IndexBuilder::with_parts(Parts {
                feedback,
                synonyms: false,
                ..Parts::default()
            });
            for (name, description) in docs {
                builder.add([(Field::Name, name), (Field::Description, description)]);
            }
            let index = builder.build();
            let hits = index.search("send money for the rent", 5, true, |_| true);
            hits.iter().map(|hit| hit.0).collect::<Vec<u32>>()
        };
        // Without feedback: both other tools meet the query only in `rent`, and the car, shorter
        // and half named by it, comes first.
        assert_eq!(order(None), [0, 1, 2]);
        // The best hit says `recipient`, `iban`, `subject` and `date`: so does the payment tool,
        // not the car.
        assert_eq!(order(Some(Feedback::default())), [0, 2, 1]);
        // Words the feedback adds never bring in a tool that meets none of the query's own.
        let mut builder = IndexBuilder::default();
        builder.add([
            (Field::Name, "send_money"),
            (Field::Description, "Send money to an IBAN."),
        ]);
        builder.add([
            (Field::Name, "validate_iban"),
            (Field::Description, "Check an IBAN."),
        ]);
        assert_eq!(
            builder
                .build()
                .search("send money", 5, true, |_| true)
                .len(),
            1
        );
    }

    #[test]
    fn a_best_result_brings_in_the_tools_its_parameters_come_from() {
        let build = |links: Option<Links>| {
            let mut builder = IndexBuilder::with_parts(Parts {
                links,
                ..Parts::default()
            });
            builder.add([
                (Field::Name, "search_hotels"),
                (Field::Description, "Search hotels in a destination."),
                (Field::ParamName, "dest_id"),
                (
                    Field::ParamDoc,
                    "Retrieved from `api/v1/hotels/searchDestination` (Search Destination).",
                ),
            ]);
            builder.add([
                (Field::Name, "search_destination"),
                (Field::Description, "Find a place by its address or city."),
                (Field::ParamName, "query"),
            ]);
            builder.add([
                (Field::Name, "list_artist_albums"),
                (Field::Description, "An artist's albums."),
                (Field::ParamName, "artistId"),
                (Field::ParamDoc, "The artist."),
            ]);
            builder.add([
                // Names what `artistId` identifies, an artist, and takes no `artistId`.
                (Field::Name, "find_artist"),
                (Field::Description, "Look up a musician by name."),
                (Field::ParamName, "name"),
            ]);
            // Named only in prose: no link.
            builder.add([
                (Field::Name, "rate_room"),
                (Field::Description, "Rate a room of a hotel."),
                (Field::ParamName, "stars"),
                (
                    Field::ParamDoc,
                    "How many stars, as search destination sites show.",
                ),
            ]);
            builder.build()
        };
        let found = |index: &TextIndex, query: &str| -> Vec<u32> {
            index
                .search(query, 5, true, |_| true)
                .iter()
                .map(|hit| hit.0)
                .collect()
        };
        let off = build(None);
        let on = build(Some(Links::default()));
        // The request says nothing the lookups say.
        assert_eq!(found(&off, "hotels in Rome"), [0, 4]);
        assert_eq!(found(&on, "hotels in Rome"), [0, 1, 4]);
        assert_eq!(found(&off, "albums of Queen"), [2]);
        assert_eq!(found(&on, "albums of Queen"), [2, 3]);
        // What was linked: prose names no tool.
        assert_eq!(on.producers.of(0), [1]);
        assert_eq!(on.producers.of(2), [3]);
        assert_eq!(on.producers.of(4), [] as [u32; 0]);
        // Below the result that brought it in; not past a filter.
        let lifted = on.search("hotels in Rome", 5, true, |_| true);
        assert!(lifted[1].1 < lifted[0].1);
        assert_eq!(
            on.search("hotels in Rome", 5, true, |doc| doc != 1)
                .iter()
                .map(|hit| hit.0)
                .collect::<Vec<u32>>(),
            [0, 4]
        );
    }

    #[test]
    fn synonyms_reach_other_words_and_filters_apply() {
        let index = index(&[
            ("delete_branch", "Delete a git branch."),
            ("create_branch", "Create a git branch."),
        ]);
        assert_eq!(index.search("remove branch", 1, true, |_| true)[0].0, 0);
        assert_eq!(
            index.search("remove branch", 5, true, |doc| doc == 1),
            [(
                1,
                index.search("remove branch", 5, true, |doc| doc == 1)[0].1
            )]
        );
        assert!(index.search("weather", 5, true, |_| true).is_empty());
        assert!(index.search("", 5, true, |_| true).is_empty());
    }
}

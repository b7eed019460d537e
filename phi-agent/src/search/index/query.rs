//! A search: the query's terms and their synonyms looked up, their postings summed per document,
//! each document marked down by the query terms it misses and up by the share of its name the
//! query says; then the best result's words ([`Feedback`]) and the tools its parameters come
//! from ([`Links`]) join in.

use super::super::chinese::TRANSLATION_WEIGHT;
use super::super::links::Links;
use super::super::synonyms::synonyms;
use super::super::tokenize::for_each_term;
use super::parts::{COVERAGE_POWER, Feedback};
use super::postings::{IN_NAME, Posting, TextIndex};
use foldhash::HashSet;

/// One term of a query as the index looks it up.
#[derive(Debug, Clone, Copy)]
pub(super) struct QueryTerm {
    pub(super) id: u32,
    pub(super) weight: f32,
    /// Which of the query's own terms it is, or stands in for.
    pub(super) source: usize,
    /// The query's own term, not a synonym.
    pub(super) direct: bool,
}

/// What a search has found so far: per document met, in the order first met, its sum and which
/// of the query's terms it meets.
struct Tally {
    /// Per document, its place in `found` plus one; 0 while no term has met it. The only array
    /// as long as the catalogue, so a search at 10,000 tools zeroes 40 KB.
    place: Vec<u32>,
    found: Vec<Met>,
}

/// One document a search has met.
#[derive(Debug, Clone, Copy)]
struct Met {
    doc: u32,
    score: f32,
    /// How many of the query's own terms occur in the document's name.
    name_hits: u8,
    /// Which of the query's own terms it meets itself, one bit a term ([`term_bit`]).
    itself: u64,
    /// Which it meets through a synonym.
    through: u64,
}

impl Tally {
    fn new(documents: usize) -> Self {
        Self {
            place: vec![0; documents],
            found: Vec::new(),
        }
    }

    /// Document `doc`'s entry, made when a term first meets it.
    fn met(&mut self, doc: u32) -> &mut Met {
        let place = &mut self.place[doc as usize];
        if *place == 0 {
            self.found.push(Met {
                doc,
                score: 0.0,
                name_hits: 0,
                itself: 0,
                through: 0,
            });
            *place = self.found.len() as u32;
        }
        &mut self.found[*place as usize - 1]
    }
}

/// The bit that stands for the query's own term number `source` (its distinct words in order,
/// whether the index knows them or not); words past the 64th share the last bit. Why 64: a tool
/// that answers one step of a long request holds its place by the step's words it meets, and
/// with 32 bits the last step of a four-step request counted as one word.
fn term_bit(source: usize) -> u64 {
    1 << source.min(63)
}

/// How many distinct terms a query's are told apart by scanning before a hash set takes over:
/// most requests have fewer, and a scan of a few dozen short words costs less than hashing
/// them; past it, a request of thousands of words (a pasted document) costs linear time, not
/// quadratic (40,000 distinct words took 3.6 s).
const SCANNED_TERMS: usize = 64;

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
    /// The best `limit` documents for `query` among those `accept` lets through, best first,
    /// with their scores; ties go to the lower document number. With `link`, the tools the best
    /// results' parameters come from join them ([`Links`], when the index has them) and the
    /// first are chosen to cover the request between them ([`Breadth`](super::parts::Breadth)): the finished ranking,
    /// where a hybrid fuses the unfinished one and finishes its own.
    pub(crate) fn search(
        &self,
        query: &str,
        limit: usize,
        link: bool,
        accept: impl Fn(u32) -> bool,
    ) -> Vec<(u32, f32)> {
        let (weighted, asked) = self.query_terms(query);
        if weighted.is_empty() || limit == 0 {
            return Vec::new();
        }
        let mut tally = Tally::new(self.len());
        self.count(&mut tally, &weighted);
        let mut ranked = self.score(&tally, asked, &accept);
        if let Some(feedback) = self.parts.feedback {
            self.feed_back(&mut ranked, &weighted, feedback);
        }
        if link && let Some(links) = self.parts.links {
            self.link(&mut ranked, links, &accept);
        }
        let breadth = self.parts.breadth.filter(|_| link);
        let keep = breadth.map_or(limit, |breadth| limit.max(breadth.pool));
        if ranked.len() > keep {
            ranked.select_nth_unstable_by(keep - 1, by_score);
            ranked.truncate(keep);
        }
        ranked.sort_unstable_by(by_score);
        let mut found: Vec<(u32, f32)> =
            ranked.into_iter().map(|hit| (hit.doc, hit.score)).collect();
        if let Some(breadth) = breadth {
            self.spread(&mut found, &weighted, asked, breadth);
            found.truncate(limit);
        }
        found
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
    pub(super) fn weight(&self, id: u32, doc: u32) -> f32 {
        let postings = self.postings_of(id);
        postings
            .binary_search_by_key(&doc, |posting| posting.doc & !IN_NAME)
            .map_or(0.0, |at| postings[at].weight)
    }

    /// Adds the postings of `terms` to `tally`.
    fn count(&self, tally: &mut Tally, terms: &[QueryTerm]) {
        for term in terms {
            let idf = self.idf[term.id as usize] * term.weight;
            let bit = term_bit(term.source);
            for posting in self.postings_of(term.id) {
                let met = tally.met(posting.doc & !IN_NAME);
                met.score += idf * posting.weight;
                if term.direct {
                    met.itself |= bit;
                    if posting.doc & IN_NAME != 0 {
                        met.name_hits = met.name_hits.saturating_add(1);
                    }
                } else {
                    met.through |= bit;
                }
            }
        }
    }

    /// Every document of `tally` that `accept` lets through, scored: its sum marked down by the
    /// query terms it misses (coverage) and up by the share of its name the query says. `asked`
    /// of the query's own terms are known to the index (see [`search`](Self::search)).
    fn score(&self, tally: &Tally, asked: usize, accept: &impl Fn(u32) -> bool) -> Vec<Scored> {
        let w = self.parts.weights;
        tally
            .found
            .iter()
            .filter(|met| accept(met.doc))
            .map(
                |&Met {
                     doc,
                     score,
                     name_hits,
                     itself,
                     through,
                 }| {
                    let named =
                        f32::from(name_hits) / f32::from(self.name_terms[doc as usize].max(1));
                    let share = (itself.count_ones() as f32
                        + w.synonym_coverage * (through & !itself).count_ones() as f32)
                        / asked as f32;
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
                        score: score * multiplier,
                        multiplier,
                    }
                },
            )
            .collect()
    }

    /// The query's terms the index knows, with their weights: its own terms at 1, and their
    /// synonyms at [`SYNONYM_WEIGHT`](super::parts::SYNONYM_WEIGHT) (translations at
    /// [`TRANSLATION_WEIGHT`]) unless the query says them itself; and how many of its
    /// own terms the index knows, directly or through a synonym.
    pub(super) fn query_terms(&self, query: &str) -> (Vec<QueryTerm>, usize) {
        let mut own: Vec<String> = Vec::new();
        // Filled once the query has `SCANNED_TERMS` distinct terms.
        let mut seen: HashSet<String> = HashSet::default();
        for_each_term(query, self.parts.analysis, |term| {
            let new = if seen.is_empty() {
                !own.iter().any(|known| known == term)
            } else {
                !seen.contains(term)
            };
            if new {
                own.push(term.to_string());
                if !seen.is_empty() {
                    seen.insert(term.to_string());
                } else if own.len() == SCANNED_TERMS {
                    seen.extend(own.iter().cloned());
                }
            }
        });
        let mut weighted: Vec<QueryTerm> = Vec::new();
        let mut known = vec![false; own.len()];
        for (source, term) in own.iter().enumerate() {
            if let Some(&id) = self.terms.get(term.as_str()) {
                weighted.push(QueryTerm {
                    id,
                    weight: 1.0,
                    source,
                    direct: true,
                });
                known[source] = true;
            }
        }
        // The terms already weighted, as a set once there are `SCANNED_TERMS` of them.
        let mut ids: HashSet<u32> = if weighted.len() >= SCANNED_TERMS {
            weighted.iter().map(|t| t.id).collect()
        } else {
            HashSet::default()
        };
        for (source, term) in own.iter().enumerate() {
            if !self.parts.synonyms {
                break;
            }
            for synonym in synonyms(term, self.parts.analysis.stemming) {
                if let Some(&id) = self.terms.get(synonym.as_str()) {
                    known[source] = true;
                    let weighted_already = if ids.is_empty() {
                        weighted.iter().any(|t| t.id == id)
                    } else {
                        !ids.insert(id)
                    };
                    if !weighted_already {
                        // A word in the other language says the same, where a synonym only
                        // says something near.
                        let translation = synonym.is_ascii() != term.is_ascii();
                        weighted.push(QueryTerm {
                            id,
                            weight: if translation {
                                TRANSLATION_WEIGHT
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
        let asked = known.iter().filter(|&&k| k).count();
        (weighted, asked)
    }
}

//! Breadth: the first results chosen to cover the request between them ([`Breadth`]), after the
//! ranking has scored them.

use super::parts::Breadth;
use super::postings::TextIndex;
use super::query::QueryTerm;

impl TextIndex {
    /// How many of the best results [`Breadth`] may reorder, when the index has it.
    pub(crate) fn breadth_pool(&self) -> Option<usize> {
        self.parts.breadth.map(|breadth| breadth.pool)
    }

    /// Reorders the best [`Breadth::pool`] of `ranked` (documents with their scores, best first)
    /// for [`Breadth`] at `weight` instead of its own, by the query's words (a synonym counting
    /// at its weight); the scores are handed out again in the new order, so `ranked` stays best
    /// first. What the hybrid does to its fused ranking, whose scores are not the words'.
    pub(crate) fn spread_query(&self, query: &str, ranked: &mut [(u32, f32)], weight: f32) {
        if let Some(breadth) = self.parts.breadth {
            let (weighted, asked) = self.query_terms(query);
            self.spread(ranked, &weighted, asked, Breadth { weight, ..breadth });
        }
    }

    /// [`spread_query`](Self::spread_query) with the query's terms looked up already, `asked` of
    /// its own terms known to the index.
    pub(super) fn spread(
        &self,
        ranked: &mut [(u32, f32)],
        weighted: &[QueryTerm],
        asked: usize,
        breadth: Breadth,
    ) {
        let pool = ranked.len().min(breadth.pool);
        let top = ranked.first().map_or(0.0, |&(_, score)| score);
        if pool < 2 || asked < breadth.min_words || !(top > 0.0 && top.is_finite()) {
            return;
        }
        // Per source (one of the query's own terms), what meeting it is worth: its best term's
        // idf (a synonym's marked down by its weight).
        let sources = weighted.iter().map(|t| t.source + 1).max().unwrap_or(0);
        let mut worth = vec![0f32; sources];
        for term in weighted {
            let value = self.idf[term.id as usize] * term.weight;
            worth[term.source] = worth[term.source].max(value);
        }
        let total: f32 = worth.iter().sum();
        if total <= 0.0 {
            return;
        }
        // Per candidate and source, what the candidate meets of it: `sources` values a candidate.
        let mut meets = vec![0f32; pool * sources];
        for (met, &(doc, _)) in meets.chunks_exact_mut(sources).zip(&ranked[..pool]) {
            for term in weighted {
                if self.weight(term.id, doc) > 0.0 {
                    let value = self.idf[term.id as usize] * term.weight;
                    met[term.source] = met[term.source].max(value);
                }
            }
        }
        let scores: Vec<f32> = ranked[..pool].iter().map(|&(_, score)| score).collect();
        let mut order: Vec<usize> = (0..pool).collect();
        let mut answered = vec![0f32; sources];
        for place in 0..pool {
            let value = |candidate: usize| {
                let met = &meets[candidate * sources..(candidate + 1) * sources];
                let new: f32 = met
                    .iter()
                    .zip(&answered)
                    .map(|(met, answered)| (met - answered).max(0.0))
                    .sum();
                ranked[candidate].1 / top + breadth.weight * new / total
            };
            // The first of the best, so a tie keeps the ranking's order.
            let mut best = place;
            let mut best_value = value(order[place]);
            for (at, &candidate) in order.iter().enumerate().skip(place + 1) {
                let v = value(candidate);
                if v > best_value {
                    best = at;
                    best_value = v;
                }
            }
            order[place..=best].rotate_right(1);
            let chosen = order[place];
            for (answered, met) in answered
                .iter_mut()
                .zip(&meets[chosen * sources..(chosen + 1) * sources])
            {
                *answered = answered.max(*met);
            }
        }
        let docs: Vec<u32> = order.iter().map(|&i| ranked[i].0).collect();
        for ((slot, doc), score) in ranked.iter_mut().zip(docs).zip(scores) {
            *slot = (doc, score);
        }
    }
}

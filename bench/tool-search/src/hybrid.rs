//! Hybrid tool search on the held-out sets: the lexical index fused with a model's vectors (the
//! static model, the sentence-transformer, or both), each set indexed and its queries embedded
//! once ([`Prepared`]), then ranked every way the tables and grids compare.

use std::collections::HashMap;
use std::sync::Arc;

use phi_agent::search::{
    Embedder, HybridConfig, HybridIndex, SearchHit, SemanticSearch, lab, steps,
};

use crate::score::{LIMIT, Score, Table, all};
use crate::sets::{HeldOut, SETS, load, registry};

/// One set, indexed both ways, with every query's vector.
pub struct Prepared {
    /// The set's name.
    pub name: &'static str,
    /// The set, its queries those of the part asked for.
    pub set: HeldOut,
    /// Its tools indexed both ways.
    pub index: HybridIndex,
    /// Its queries' vectors from the index's model.
    pub vectors: Vec<Vec<f32>>,
    /// The vectors of each query's clauses from the index's model (none for a query of one
    /// clause: [`lab::clauses`]).
    pub clause_vectors: Vec<Vec<Vec<f32>>>,
    /// For each query that lists [`steps`], each step's vector from
    /// the index's model and from its second (empty when it has none); none for the others.
    pub step_vectors: Vec<Vec<(Vec<f32>, Vec<f32>)>>,
    /// The queries' vectors from the index's second model (empty when it has none).
    pub second_vectors: Vec<Vec<f32>>,
    /// The implied written step's vector from each model ([`lab::WRITTEN_STEP`]; the second
    /// empty when there is none).
    pub writer_vectors: (Vec<f32>, Vec<f32>),
    /// Each tool's position, by name.
    pub position: HashMap<String, usize>,
}

/// Every tool embedded, and the queries of `part` (all when `None`).
pub async fn prepare(model: Arc<dyn Embedder>, part: Option<&str>) -> Vec<Prepared> {
    prepare_with(model, None, part, |_| {}).await
}

/// Embeds the texts in batches of the model's size.
pub async fn embed_all(model: &dyn Embedder, texts: &[&str]) -> Vec<Vec<f32>> {
    let mut vectors = Vec::new();
    for batch in texts.chunks(model.max_batch()) {
        vectors.extend(model.embed(batch).await.unwrap());
    }
    vectors
}

/// [`prepare`] with each set's tools changed by `vary` first (what the tools' texts hold).
pub async fn prepare_with(
    model: Arc<dyn Embedder>,
    second: Option<Arc<dyn Embedder>>,
    part: Option<&str>,
    vary: impl Fn(&mut HeldOut),
) -> Vec<Prepared> {
    let mut prepared = Vec::new();
    for name in SETS {
        let mut set = load(name);
        vary(&mut set);
        if let Some(part) = part {
            set.queries.retain(|q| q.part == part);
        }
        let registry = registry(&set);
        let mut search = SemanticSearch::new(model.clone());
        if let Some(second) = &second {
            search = search.with_second(second.clone());
        }
        let index = search.build_index(&registry).await.unwrap();
        assert_eq!(index.semantic().len(), set.tools.len());
        let texts: Vec<&str> = set.queries.iter().map(|q| q.text.as_str()).collect();
        let vectors = embed_all(model.as_ref(), &texts).await;
        let mut clause_vectors = Vec::with_capacity(texts.len());
        for text in &texts {
            let clauses = lab::clauses(text);
            clause_vectors.push(match clauses.len() > 1 {
                true => embed_all(model.as_ref(), &clauses).await,
                false => Vec::new(),
            });
        }
        let mut step_vectors = Vec::with_capacity(texts.len());
        for text in &texts {
            let steps = steps(text);
            if steps.len() == 1 {
                step_vectors.push(Vec::new());
                continue;
            }
            let firsts = embed_all(model.as_ref(), &steps).await;
            let seconds = match &second {
                Some(second) => embed_all(second.as_ref(), &steps).await,
                None => vec![Vec::new(); steps.len()],
            };
            step_vectors.push(firsts.into_iter().zip(seconds).collect());
        }
        let second_vectors = match &second {
            Some(second) => embed_all(second.as_ref(), &texts).await,
            None => Vec::new(),
        };
        let step = [lab::WRITTEN_STEP];
        let writer_vectors = (
            embed_all(model.as_ref(), &step).await.remove(0),
            match &second {
                Some(second) => embed_all(second.as_ref(), &step).await.remove(0),
                None => Vec::new(),
            },
        );
        let position = set
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.name.clone(), i))
            .collect();
        prepared.push(Prepared {
            name,
            set,
            index,
            vectors,
            clause_vectors,
            step_vectors,
            second_vectors,
            writer_vectors,
            position,
        });
    }
    prepared
}

/// Which ranking [`evaluate`] scores.
#[derive(Clone, Copy)]
pub enum Ranking {
    /// The lexical index alone.
    Lexical,
    /// The model's vectors alone.
    Semantic,
    /// Both, fused by this configuration.
    Hybrid(HybridConfig),
}

/// What [`HybridIndex::search`] returns for query `i` of `p` (its text and vector given), from
/// the vectors embedded beforehand: each step's fused ranking taking turns when the query lists
/// steps; otherwise the fused ranking (its clauses counted as the fusion says), with a file's
/// writing when the request keeps its result in one.
pub fn hybrid_search(
    p: &Prepared,
    i: usize,
    text: &str,
    vector: &[f32],
    limit: usize,
) -> Vec<SearchHit> {
    if let Some(step_vectors) = p.step_vectors.get(i).filter(|v| !v.is_empty()) {
        let rankings = steps(text)
            .into_iter()
            .zip(step_vectors)
            .map(|(step, (first, second))| {
                let second = (!second.is_empty()).then_some(second.as_slice());
                p.index.fuse_both(step, first, second, limit, |_| true)
            })
            .collect();
        return lab::interleave(rankings, limit);
    }
    let second = p.second_vectors.get(i).map(Vec::as_slice);
    let clauses = p.clause_vectors.get(i).map_or(&[][..], Vec::as_slice);
    let hits = p
        .index
        .fuse_with_clauses(text, vector, clauses, second, limit, |_| true);
    if !lab::writes_a_file(text) {
        return hits;
    }
    let (first, second) = &p.writer_vectors;
    let second = (!second.is_empty()).then_some(second.as_slice());
    let writer = p
        .index
        .fuse_both(lab::WRITTEN_STEP, first, second, 1, |_| true);
    lab::with_writer(hits, writer.into_iter().next(), limit)
}

/// Per (part, kind) the score of `ranking` on `p`'s queries of `part` (all when `None`); kinds
/// include `1 tool` and `2+ tools`.
pub fn evaluate(p: &mut Prepared, ranking: Ranking, part: Option<&str>) -> Table {
    if let Ranking::Hybrid(config) = ranking {
        p.index.set_config(config);
    }
    let mut table = Table::new();
    for (i, (query, vector)) in p.set.queries.iter().zip(&p.vectors).enumerate() {
        if part.is_some_and(|part| part != query.part) {
            continue;
        }
        let found: Vec<usize> = match ranking {
            Ranking::Lexical => p
                .index
                .lexical()
                .search(&query.text, LIMIT)
                .iter()
                .map(|h| h.index)
                .collect(),
            Ranking::Semantic => p
                .index
                .semantic()
                .search_vector(vector, LIMIT, |_| true)
                .iter()
                .map(|(i, _)| *i)
                .collect(),
            Ranking::Hybrid(_) => hybrid_search(p, i, &query.text, vector, LIMIT)
                .iter()
                .map(|h| h.index)
                .collect(),
        };
        let expected = query.positions(|e| p.position[e]);
        // Tasks that need several tools (most of AgentDojo's) apart from those that need one.
        let size = if expected.len() > 1 {
            "2+ tools"
        } else {
            "1 tool"
        };
        for kind in [query.kind.as_str(), "all", size] {
            table
                .entry((query.part.clone(), kind.to_string()))
                .or_default()
                .add(&found, &expected);
        }
    }
    table
}

/// Prints the lexical, semantic and hybrid tables per set, part and kind, and returns each set's
/// hybrid recall@5 on its test part.
pub fn report(prepared: &mut [Prepared], chosen: HybridConfig) -> Vec<(&'static str, f64)> {
    let mut recalls = Vec::new();
    for p in prepared {
        let columns = [
            ("lexical", evaluate(p, Ranking::Lexical, None)),
            ("semantic", evaluate(p, Ranking::Semantic, None)),
            ("hybrid", evaluate(p, Ranking::Hybrid(chosen), None)),
        ];
        let mut header = format!("| {} | part | n |", p.name);
        for (name, _) in &columns {
            header.push_str(&format!(" {name} R@5 | {name} MRR |"));
        }
        println!("{header}");
        for key in columns[0].1.keys() {
            let mut row = format!("| {} | {} | {} |", key.1, key.0, columns[0].1[key].n);
            for (_, table) in &columns {
                row.push_str(&format!(
                    " {:.3} | {:.3} |",
                    table[key].recall(),
                    table[key].mrr()
                ));
            }
            println!("{row}");
        }
        if let Some(test) = columns[2].1.get(&all("test")) {
            println!(
                "{}: hybrid recall@5 {:.4} on the test part\n",
                p.name,
                test.recall()
            );
            recalls.push((p.name, test.recall()));
        }
    }
    recalls
}

/// Fails unless each set's hybrid recall@5 is at least its `measured` figure less 0.01.
///
/// # Panics
///
/// On the first set under its floor, or one `measured` does not name.
pub fn assert_floors(recalls: &[(&str, f64)], measured: &[(&str, f64)]) {
    for (name, hybrid) in recalls {
        let floor = measured.iter().find(|(set, _)| set == name).unwrap().1 - 0.01;
        assert!(
            *hybrid >= floor,
            "{name}: hybrid recall@5 {hybrid:.3} on the test part, expected at least {floor:.3}"
        );
    }
}

/// Each set's score on its tuning part with the hybrid fused by `config`; an empty score for a set
/// with no question left there (LiveMCPBench in the trained model's validation slice), which
/// `means` does not count.
pub fn on_tuning_parts(prepared: &mut [Prepared], config: HybridConfig) -> Vec<Score> {
    prepared
        .iter_mut()
        .map(|p| {
            let scores = evaluate(p, Ranking::Hybrid(config), Some("tune"));
            scores.get(&all("tune")).copied().unwrap_or_default()
        })
        .collect()
}

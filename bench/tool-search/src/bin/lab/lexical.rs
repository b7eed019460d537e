//! The lexical ranking's tables: every set beside plain BM25, each part changed alone, the
//! tuning grid and clause fusion. A change is code, not a string: edit the lists to try others.

use std::io::Write;

use phi_agent::registry::ToolRegistry;
use phi_agent::search::ToolIndex;
use phi_agent::search::lab::{self, Parts, Stemming};
use tool_search_lab::bm25::PlainBm25;
use tool_search_lab::clauses::{ClauseFusion, clauses};
use tool_search_lab::score::{Score, all, evaluate, ours};
use tool_search_lab::sets::{HeldOut, SETS, every_set, load, registry};
use tool_search_lab::table::{cell, means, per_kind};

/// A change to the shipped ranking, by name.
pub type Change = (&'static str, fn(&mut Parts));

/// The parts table: each part off (or on) alone.
pub const PARTS: &[Change] = &[
    ("-synonyms", |p| p.synonyms = false),
    ("-coverage", |p| p.coverage = false),
    ("-name-bonus", |p| p.name_bonus = false),
    ("-feedback", |p| p.feedback = None),
    ("-links", |p| p.links = None),
    ("-breadth", |p| p.breadth = None),
    ("-written-step", |p| p.written_step = false),
    ("-links-by-reference", |p| {
        p.links.get_or_insert_default().by_reference = false
    }),
    ("-links-by-id", |p| {
        p.links.get_or_insert_default().by_id = false
    }),
    ("-stemming", |p| p.analysis.stemming = Stemming::Off),
    // A no-op on English catalogues, expected so.
    ("-bigrams", |p| p.analysis.unspaced_bigrams = false),
    ("old-weights", |p| {
        p.weights.k1 = 1.2;
        p.weights.synonym_weight = 0.7;
        p.weights.coverage_power = 1.0;
    }),
];

/// Field slots of `Weights::field_weight` and `field_b`.
const NAME: usize = 0;
const DESCRIPTION: usize = 1;
const PARAM_NAME: usize = 2;
const PARAM_DOC: usize = 3;

/// The tuning grid's candidates.
pub const GRID: &[Change] = &[
    ("-synonyms", |p| p.synonyms = false),
    ("-coverage", |p| p.coverage = false),
    ("-name-bonus", |p| p.name_bonus = false),
    ("-stemming", |p| p.analysis.stemming = Stemming::Off),
    ("k1=2", |p| p.weights.k1 = 2.0),
    ("k1=4", |p| p.weights.k1 = 4.0),
    ("k1=6", |p| p.weights.k1 = 6.0),
    ("name_bonus=0.3", |p| p.weights.name_coverage_bonus = 0.3),
    ("name_bonus=0.9", |p| p.weights.name_coverage_bonus = 0.9),
    ("coverage_power=0.5", |p| p.weights.coverage_power = 0.5),
    ("coverage_power=1", |p| p.weights.coverage_power = 1.0),
    ("synonym_weight=0.1", |p| p.weights.synonym_weight = 0.1),
    ("synonym_weight=0.5", |p| p.weights.synonym_weight = 0.5),
    ("synonym_coverage=0.5", |p| p.weights.synonym_coverage = 0.5),
    ("synonym_coverage=1", |p| p.weights.synonym_coverage = 1.0),
    ("weight.name=2", |p| p.weights.field_weight[NAME] = 2.0),
    ("weight.name=4", |p| p.weights.field_weight[NAME] = 4.0),
    ("weight.description=0.7", |p| {
        p.weights.field_weight[DESCRIPTION] = 0.7
    }),
    ("weight.description=1.5", |p| {
        p.weights.field_weight[DESCRIPTION] = 1.5
    }),
    ("weight.param_name=0.5", |p| {
        p.weights.field_weight[PARAM_NAME] = 0.5
    }),
    ("weight.param_name=1.2", |p| {
        p.weights.field_weight[PARAM_NAME] = 1.2
    }),
    ("weight.param_doc=0.3", |p| {
        p.weights.field_weight[PARAM_DOC] = 0.3
    }),
    ("weight.param_doc=0.8", |p| {
        p.weights.field_weight[PARAM_DOC] = 0.8
    }),
    ("b.name=0", |p| p.weights.field_b[NAME] = 0.0),
    ("b.name=0.6", |p| p.weights.field_b[NAME] = 0.6),
    ("b.description=0.5", |p| {
        p.weights.field_b[DESCRIPTION] = 0.5
    }),
    ("b.description=0.9", |p| {
        p.weights.field_b[DESCRIPTION] = 0.9
    }),
    ("b.param_name=0.75", |p| {
        p.weights.field_b[PARAM_NAME] = 0.75
    }),
    ("b.param_doc=0.5", |p| p.weights.field_b[PARAM_DOC] = 0.5),
    ("b.param_doc=0.9", |p| p.weights.field_b[PARAM_DOC] = 0.9),
    ("-feedback", |p| p.feedback = None),
    ("feedback_docs=2", |p| {
        p.feedback.get_or_insert_default().docs = 2
    }),
    ("feedback_docs=5", |p| {
        p.feedback.get_or_insert_default().docs = 5
    }),
    ("feedback_terms=3", |p| {
        p.feedback.get_or_insert_default().terms = 3
    }),
    ("feedback_terms=10", |p| {
        p.feedback.get_or_insert_default().terms = 10
    }),
    ("feedback_weight=0.15", |p| {
        p.feedback.get_or_insert_default().weight = 0.15
    }),
    ("feedback_weight=0.6", |p| {
        p.feedback.get_or_insert_default().weight = 0.6
    }),
    ("-breadth", |p| p.breadth = None),
    ("breadth_pool=20", |p| {
        p.breadth.get_or_insert_default().pool = 20
    }),
    ("breadth_pool=7", |p| {
        p.breadth.get_or_insert_default().pool = 7
    }),
    ("breadth_weight=0.1", |p| {
        p.breadth.get_or_insert_default().weight = 0.1
    }),
    ("breadth_min_words=5", |p| {
        p.breadth.get_or_insert_default().min_words = 5
    }),
    ("breadth_min_words=7", |p| {
        p.breadth.get_or_insert_default().min_words = 7
    }),
    ("breadth_min_words=0", |p| {
        p.breadth.get_or_insert_default().min_words = 0
    }),
    ("breadth_min_words=12", |p| {
        p.breadth.get_or_insert_default().min_words = 12
    }),
    ("breadth_min_words=16", |p| {
        p.breadth.get_or_insert_default().min_words = 16
    }),
    ("breadth_weight=0.3", |p| {
        p.breadth.get_or_insert_default().weight = 0.3
    }),
    ("breadth_weight=0.4", |p| {
        p.breadth.get_or_insert_default().weight = 0.4
    }),
    ("breadth_weight=0.5", |p| {
        p.breadth.get_or_insert_default().weight = 0.5
    }),
    ("breadth_weight=0.75", |p| {
        p.breadth.get_or_insert_default().weight = 0.75
    }),
    ("breadth_weight=1", |p| {
        p.breadth.get_or_insert_default().weight = 1.0
    }),
];

/// Every set: phi-agent's ranking beside plain BM25 and word overlap, per part and kind.
pub fn report() {
    for name in SETS {
        let set = load(name);
        let index = ToolIndex::build(&registry(&set));
        let bm25 = PlainBm25::new(&set);
        let columns = [
            ("phi-agent", evaluate(&set, ours(&index))),
            ("BM25", evaluate(&set, |q| bm25.rank(q))),
            ("overlap", evaluate(&set, |q| bm25.overlap(q))),
        ];
        println!("{}", per_kind(name, &columns));
    }
}

/// The shipped ranking and each change on `part`: recall@5 and MRR per set, the mean, and the
/// worst loss against the shipped ranking. A change that moves nothing is marked.
pub fn changes_table(changes: &[Change], part: &str) {
    let key = all(part);
    let sets = every_set();
    header(part);
    let bm25: Vec<Score> = sets
        .iter()
        .map(|(set, _)| {
            let bm25 = PlainBm25::new(set);
            evaluate(set, |q| bm25.rank(q))[&key]
        })
        .collect();
    row("plain BM25", &bm25, None);
    let score = |parts: Parts| -> Vec<Score> {
        sets.iter()
            .map(|(set, registry): &(HeldOut, ToolRegistry)| {
                evaluate(set, ours(&lab::build(registry, parts)))[&key]
            })
            .collect()
    };
    let shipped = score(Parts::default());
    row("as shipped", &shipped, None);
    for (name, change) in changes {
        let mut parts = Parts::default();
        change(&mut parts);
        let scores = score(parts);
        let moved = scores
            .iter()
            .zip(&shipped)
            .any(|(a, b)| a.recall() != b.recall() || a.mrr() != b.mrr());
        let name = if moved {
            name.to_string()
        } else {
            format!("{name} (no change)")
        };
        row(&name, &scores, Some(&shipped));
    }
}

/// The header of a table of [`row`]s on `part`.
fn header(part: &str) {
    println!(
        "| ranking ({part} parts) | {} | mean R@5 | mean MRR | worst loss |",
        SETS.map(|s| format!("{s} R@5 | {s} MRR")).join(" | ")
    );
    println!("|---|{}---|---|---|", "---|---|".repeat(SETS.len()));
}

/// One row of [`changes_table`].
fn row(name: &str, scores: &[Score], shipped: Option<&[Score]>) {
    let cells: String = scores.iter().map(|s| cell(*s)).collect();
    let (recall, mrr) = means(scores);
    let worst = shipped.map_or(0.0, |shipped| {
        scores
            .iter()
            .zip(shipped)
            .map(|(s, b)| s.recall() - b.recall())
            .fold(f64::INFINITY, f64::min)
    });
    println!("| {name} |{cells} {recall:.4} | {mrr:.4} | {worst:+.3} |");
}

/// Clause fusion's candidates on the tuning parts, or with `on_test` the chosen one
/// (conjunctions, k 10, weight 1) on the test parts.
pub fn clause_table(on_test: bool) {
    let part = if on_test { "test" } else { "tune" };
    let key = all(part);
    let sets = every_set();
    let indexes: Vec<ToolIndex> = sets.iter().map(|(_, r)| ToolIndex::build(r)).collect();
    let mut candidates = Vec::new();
    if on_test {
        candidates.push(ClauseFusion {
            conjunctions: true,
            k: 10.0,
            weight: 1.0,
        });
    } else {
        for conjunctions in [false, true] {
            for k in [10.0, 60.0] {
                for weight in [0.5, 1.0] {
                    candidates.push(ClauseFusion {
                        conjunctions,
                        k,
                        weight,
                    });
                }
            }
        }
    }
    header(part);
    let shipped: Vec<Score> = sets
        .iter()
        .zip(&indexes)
        .map(|((set, _), index)| evaluate(set, ours(index))[&key])
        .collect();
    row("as shipped", &shipped, None);
    for fusion in candidates {
        let scores: Vec<Score> = sets
            .iter()
            .zip(&indexes)
            .map(|((set, _), index)| evaluate(set, fusion.rank(index))[&key])
            .collect();
        let name = format!(
            "clauses{}, k {}, weight {}",
            if fusion.conjunctions {
                " and conjunctions"
            } else {
                ""
            },
            fusion.k,
            fusion.weight
        );
        row(&name, &scores, Some(&shipped));
    }
    if on_test {
        return;
    }
    // The clauses as the steps of one query (`;`): the shipped step search, each step's results
    // taking turns, instead of fused with the whole request's.
    for conjunctions in [false, true] {
        let scores: Vec<Score> = sets
            .iter()
            .zip(&indexes)
            .map(|((set, _), index)| {
                let rank = |query: &str| -> Vec<usize> {
                    let steps = clauses(query, conjunctions).join("; ");
                    index
                        .search(&steps, 20)
                        .iter()
                        .map(|hit| hit.index)
                        .collect()
                };
                evaluate(set, rank)[&key]
            })
            .collect();
        let name = if conjunctions {
            "clauses and conjunctions as steps"
        } else {
            "clauses as steps"
        };
        row(name, &scores, Some(&shipped));
    }
}

/// The tuning part's queries of `set` whose first five miss an expected tool: the query, what
/// it needs (with the place each missing tool has in the first 50: a near miss is an order to
/// fix, a far one a word the request does not say) and what came first. Tuning parts only: the
/// test parts are not read to choose a change.
pub fn misses(set_name: &str) {
    let set = load(set_name);
    let index = ToolIndex::build(&registry(&set));
    let bm25 = PlainBm25::new(&set);
    for query in set.queries.iter().filter(|q| q.part == "tune") {
        let found: Vec<&str> = index
            .search(&query.text, 5)
            .iter()
            .map(|hit| set.tools[hit.index].name.as_str())
            .collect();
        let missing: Vec<&str> = query
            .expected
            .iter()
            .map(String::as_str)
            .filter(|e| !e.split('|').any(|e| found.contains(&e)))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let plain: Vec<&str> = bm25
            .rank(&query.text)
            .iter()
            .take(5)
            .map(|&i| set.tools[i].name.as_str())
            .collect();
        let wide = index.search(&query.text, 50);
        let missing: Vec<String> = missing
            .iter()
            .map(|name| {
                let at = wide
                    .iter()
                    .position(|hit| name.split('|').any(|n| set.tools[hit.index].name == n));
                at.map_or(format!("{name} (not in 50)"), |at| {
                    format!("{name} @{}", at + 1)
                })
            })
            .collect();
        let report = format!(
            "## [{}] {}\nmissing: {missing:?}\nfound:   {found:?}\nbm25:    {plain:?}\n\n",
            query.kind, query.text
        );
        // A reader that stops early (`| head`) closes the pipe: stop quietly, not with a panic.
        if std::io::stdout()
            .lock()
            .write_all(report.as_bytes())
            .is_err()
        {
            return;
        }
    }
}

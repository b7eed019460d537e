//! Tool search measured on catalogues and queries it was not tuned on: the held-out sets of
//! `tool_search_heldout/` (built from public function-calling data by
//! `scripts/tool-search-heldout.py`; see the README there), each split by a hash of the expected
//! tools into a tuning part and a test part. Only the tuning parts may guide changes to the
//! ranking; the test parts are what BENCHMARKS.md reports.
//!
//! `cargo test -p phi-agent --test core heldout -- --nocapture` prints recall@5 and MRR per set,
//! part and kind of query for the ranking, plain BM25 (a reference implementation below, one
//! field, words as they are) and word overlap, computed on the same sets.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use phi_agent::registry::ToolRegistry;
use phi_agent::search::ToolIndex;
use phi_agent::{ToolExposure, static_text};

use super::tool_search::Listed;
use serde::Deserialize;
use serde_json::{Map, json};

/// The sets, by file name under `tool_search_heldout/`.
pub(crate) const SETS: [&str; 4] = ["bfcl", "agentdojo", "nestful", "complexfuncbench"];

/// Every held-out set, with a registry of its tools.
fn every_set() -> Vec<(HeldOut, ToolRegistry)> {
    SETS.iter()
        .map(|name| {
            let set = load(name);
            let registry = registry(&set);
            (set, registry)
        })
        .collect()
}

/// Results per query a ranking is asked for; recall is counted in the first 5.
const LIMIT: usize = 5;

#[derive(Debug, Deserialize)]
pub(crate) struct HeldOut {
    pub(crate) tools: Vec<ToolText>,
    pub(crate) queries: Vec<HeldOutQuery>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ToolText {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) params: Vec<(String, String)>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct HeldOutQuery {
    pub(crate) text: String,
    pub(crate) expected: Vec<String>,
    pub(crate) kind: String,
    pub(crate) part: String,
}

/// Reads one set; panics with the path if it is missing or malformed (the data is committed).
pub(crate) fn load(set: &str) -> HeldOut {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/core/tool_search_heldout")
        .join(format!("{set}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// A registry of the set's tools, in order, every one Deferred (registration index = position).
pub(crate) fn registry(set: &HeldOut) -> ToolRegistry {
    let mut registry = ToolRegistry::default();
    for tool in &set.tools {
        let mut properties = Map::new();
        for (name, doc) in &tool.params {
            properties.insert(name.clone(), json!({"type": "string", "description": doc}));
        }
        registry
            .register(Listed {
                name: static_text(&tool.name),
                description: static_text(&tool.description),
                schema: json!({"type": "object", "properties": properties}),
                exposure: ToolExposure::Deferred,
            })
            .unwrap_or_else(|error| panic!("{}: {error}", tool.name));
    }
    registry
}

/// Recall@5 and MRR summed over queries.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Score {
    pub(crate) n: usize,
    recall: f64,
    reciprocal: f64,
}

impl Score {
    /// Adds one query: `found` are tool positions, best first.
    fn add(&mut self, found: &[usize], expected: &[usize]) {
        self.n += 1;
        let top = &found[..found.len().min(LIMIT)];
        let hits = expected.iter().filter(|e| top.contains(e)).count();
        self.recall += hits as f64 / expected.len().min(LIMIT) as f64;
        if let Some(rank) = top.iter().position(|f| expected.contains(f)) {
            self.reciprocal += 1.0 / (rank + 1) as f64;
        }
    }

    pub(crate) fn recall(&self) -> f64 {
        self.recall / self.n.max(1) as f64
    }

    pub(crate) fn mrr(&self) -> f64 {
        self.reciprocal / self.n.max(1) as f64
    }
}

/// Scores by (part, kind), kind `all` included.
pub(crate) type Table = BTreeMap<(String, String), Score>;

/// Per (part, kind) the score of `rank` on `set`.
pub(crate) fn evaluate(set: &HeldOut, rank: impl Fn(&str) -> Vec<usize>) -> Table {
    let position: HashMap<&str, usize> = set
        .tools
        .iter()
        .enumerate()
        .map(|(i, tool)| (tool.name.as_str(), i))
        .collect();
    let mut table = Table::new();
    for query in &set.queries {
        let expected: Vec<usize> = query
            .expected
            .iter()
            .map(|name| position[name.as_str()])
            .collect();
        let found = rank(&query.text);
        for kind in [query.kind.as_str(), "all"] {
            table
                .entry((query.part.clone(), kind.to_string()))
                .or_default()
                .add(&found, &expected);
        }
    }
    table
}

/// The ranking under test.
pub(crate) fn ours(index: &ToolIndex) -> impl Fn(&str) -> Vec<usize> + '_ {
    |query| {
        index
            .search(query, LIMIT)
            .iter()
            .map(|hit| hit.index)
            .collect()
    }
}

/// Words as plain BM25 sees them: lowercased runs of letters and digits.
fn plain_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
}

/// One document per tool: its name, description, parameter names and docs, one field.
fn plain_document(tool: &ToolText) -> Vec<String> {
    let mut words: Vec<String> = plain_words(&tool.name)
        .chain(plain_words(&tool.description))
        .collect();
    for (name, doc) in &tool.params {
        words.extend(plain_words(name));
        words.extend(plain_words(doc));
    }
    words
}

/// Plain BM25 (k1 = 1.2, b = 0.75, Lucene's idf), the reference the ranking must beat.
pub(crate) struct PlainBm25 {
    postings: HashMap<String, Vec<(usize, f64)>>,
    idf: HashMap<String, f64>,
}

impl PlainBm25 {
    pub(crate) fn new(set: &HeldOut) -> Self {
        let docs: Vec<Vec<String>> = set.tools.iter().map(plain_document).collect();
        let n = docs.len() as f64;
        let average = docs.iter().map(Vec::len).sum::<usize>() as f64 / n.max(1.0);
        let (k1, b) = (1.2, 0.75);
        let mut postings: HashMap<String, Vec<(usize, f64)>> = HashMap::new();
        for (doc, words) in docs.iter().enumerate() {
            let mut tf: HashMap<&str, f64> = HashMap::new();
            for word in words {
                *tf.entry(word).or_default() += 1.0;
            }
            let norm = k1 * (1.0 - b + b * words.len() as f64 / average.max(1.0));
            for (word, tf) in tf {
                postings
                    .entry(word.to_string())
                    .or_default()
                    .push((doc, tf * (k1 + 1.0) / (tf + norm)));
            }
        }
        let idf = postings
            .iter()
            .map(|(word, list)| {
                let df = list.len() as f64;
                (word.clone(), (1.0 + (n - df + 0.5) / (df + 0.5)).ln())
            })
            .collect();
        Self { postings, idf }
    }

    pub(crate) fn rank(&self, query: &str) -> Vec<usize> {
        let mut words: Vec<String> = plain_words(query).collect();
        words.sort();
        words.dedup();
        let mut scores: HashMap<usize, f64> = HashMap::new();
        for word in &words {
            if let Some(list) = self.postings.get(word) {
                for &(doc, weight) in list {
                    *scores.entry(doc).or_default() += self.idf[word] * weight;
                }
            }
        }
        top(scores)
    }

    /// Word overlap: tools by how many of the query's distinct words they contain.
    pub(crate) fn overlap(&self, query: &str) -> Vec<usize> {
        let mut words: Vec<String> = plain_words(query).collect();
        words.sort();
        words.dedup();
        let mut scores: HashMap<usize, f64> = HashMap::new();
        for word in &words {
            for &(doc, _) in self.postings.get(word).map_or(&[][..], Vec::as_slice) {
                *scores.entry(doc).or_default() += 1.0;
            }
        }
        top(scores)
    }
}

/// The best [`LIMIT`] documents, ties to the lower position.
fn top(scores: HashMap<usize, f64>) -> Vec<usize> {
    let mut ranked: Vec<(usize, f64)> = scores.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked.truncate(LIMIT);
    ranked.into_iter().map(|(doc, _)| doc).collect()
}

/// Prints one markdown table for `set`: a row per (part, kind), a column pair per ranking.
fn print_table(set: &str, columns: &[(&str, Table)]) {
    let mut header = format!("| {set} | part | n |");
    let mut rule = String::from("|---|---|---|");
    for (name, _) in columns {
        header.push_str(&format!(" {name} R@5 | {name} MRR |"));
        rule.push_str("---|---|");
    }
    println!("{header}\n{rule}");
    for (part, kind) in columns[0].1.keys() {
        let key = (part.clone(), kind.clone());
        let mut row = format!("| {kind} | {part} | {} |", columns[0].1[&key].n);
        for (_, table) in columns {
            let score = table[&key];
            row.push_str(&format!(" {:.3} | {:.3} |", score.recall(), score.mrr()));
        }
        println!("{row}");
    }
    println!();
}

#[test]
fn heldout_sets_are_well_formed_and_split() {
    for name in SETS {
        let set = load(name);
        assert!(set.tools.len() >= 40, "{name}: {} tools", set.tools.len());
        assert!(
            set.queries.len() >= 80,
            "{name}: {} queries",
            set.queries.len()
        );
        let names: std::collections::HashSet<&str> =
            set.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names.len(), set.tools.len(), "{name}: tool names repeat");
        for query in &set.queries {
            assert!(!query.expected.is_empty(), "{name}: {:?}", query.text);
            for expected in &query.expected {
                assert!(names.contains(expected.as_str()), "{name}: {expected}");
            }
            assert!(matches!(query.part.as_str(), "tune" | "test"));
        }
        let test = set.queries.iter().filter(|q| q.part == "test").count();
        assert!(
            test * 4 > set.queries.len() && test * 4 < set.queries.len() * 3,
            "{name}: {test} of {} queries in the test part",
            set.queries.len()
        );
    }
}

/// How far above plain BM25's recall@5 the ranking must be on each set's test part. The goal is
/// 0.05 (issue 29), met on BFCL, AgentDojo and ComplexFuncBench; on NESTFUL (added, like
/// ComplexFuncBench, after the ranking was tuned; only its tuning part is chosen on) it is not
/// met, and the margin asserted is what was measured (+0.029 with pseudo-relevance feedback,
/// 2026-12-02) less 0.01 (BENCHMARKS.md, "Where targets are missed").
const MARGINS: [(&str, f64); 4] = [
    ("bfcl", 0.05),
    ("agentdojo", 0.05),
    ("nestful", 0.03),
    ("complexfuncbench", 0.05),
];

/// The ranking beside plain BM25 and word overlap on every held-out set; fails unless the
/// ranking's recall@5 is at least `MARGINS` above plain BM25's on every test part (every set is
/// printed before any is judged).
#[test]
fn heldout_recall_at_5_and_mrr() {
    let mut short = Vec::new();
    for name in SETS {
        let set = load(name);
        let registry = registry(&set);
        let index = ToolIndex::build(&registry);
        assert_eq!(index.len(), set.tools.len());
        let bm25 = PlainBm25::new(&set);
        let columns = [
            ("phi-agent", evaluate(&set, ours(&index))),
            ("BM25", evaluate(&set, |q| bm25.rank(q))),
            ("overlap", evaluate(&set, |q| bm25.overlap(q))),
        ];
        print_table(name, &columns);
        let test = ("test".to_string(), "all".to_string());
        let (ours, plain) = (columns[0].1[&test].recall(), columns[1].1[&test].recall());
        let margin = MARGINS.iter().find(|(set, _)| *set == name).unwrap().1;
        println!(
            "{name}: recall@5 {ours:.3} on the test part, plain BM25 {plain:.3}, {:+.3}\n",
            ours - plain
        );
        if ours < plain + margin {
            short.push(format!(
                "{name}: recall@5 {ours:.3} on the test part, plain BM25 {plain:.3} (+{margin} asked)"
            ));
        }
    }
    assert!(short.is_empty(), "{short:#?}");
}

/// The `ToolIndex::build_varied` changes that the environment variable `var` lists (separated
/// by `;`), or `default` when it is not set.
fn changes_from_env(var: &str, default: &[&str]) -> Vec<String> {
    match std::env::var(var) {
        Ok(list) => list
            .split(';')
            .map(str::trim)
            .filter(|change| !change.is_empty())
            .map(String::from)
            .collect(),
        Err(_) => default.iter().map(|change| change.to_string()).collect(),
    }
}

/// What each part of the ranking adds on the test parts: recall@5 and MRR with one part changed
/// at a time (`ToolIndex::build_varied`). Slow in a debug build:
/// `cargo test -p phi-agent --test core heldout_parts -- --ignored --nocapture`
/// (`PHI_AGENT_PARTS` replaces the changes, separated by `;`: a candidate chosen on the tuning
/// parts is run on the test parts this way, once).
#[test]
#[ignore]
fn heldout_parts() {
    let shipped_parts = [
        "-synonyms",
        "-coverage",
        "-name-bonus",
        "-feedback",
        "-links",
        "-links-by-reference",
        "-links-by-id",
        "-stemming",
        "-bigrams",
        "+numbers",
        "+learned",
        "old-weights",
    ];
    let changes = changes_from_env("PHI_AGENT_PARTS", &shipped_parts);
    let test = ("test".to_string(), "all".to_string());
    println!(
        "| ranking | {} |",
        SETS.map(|s| format!("{s} R@5 | {s} MRR")).join(" | ")
    );
    println!("|---|{}", "---|---|".repeat(SETS.len()));
    let sets = every_set();
    let mut rows = vec![("plain BM25".to_string(), Vec::new())];
    for (set, _) in &sets {
        let bm25 = PlainBm25::new(set);
        let score = evaluate(set, |q| bm25.rank(q))[&test];
        rows[0].1.push(score);
    }
    for change in std::iter::once("as shipped").chain(changes.iter().map(String::as_str)) {
        let mut row = Vec::new();
        for (set, registry) in &sets {
            let index = if change == "as shipped" {
                ToolIndex::build(registry)
            } else {
                ToolIndex::build_varied(registry, change).expect(change)
            };
            row.push(evaluate(set, ours(&index))[&test]);
        }
        rows.push((change.to_string(), row));
    }
    for (name, row) in &rows {
        let cells: Vec<String> = row
            .iter()
            .map(|score| format!("{:.3} | {:.3}", score.recall(), score.mrr()))
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
    assert!(ToolIndex::build_varied(&sets[0].1, "no such part").is_none());
    // Every change is a real one: it moves recall or MRR somewhere, or is the no-op on English
    // catalogues it is expected to be (`-bigrams`).
    for (name, row) in &rows[2..] {
        let moved = row
            .iter()
            .zip(&rows[1].1)
            .any(|(a, b)| a.recall() != b.recall() || a.mrr() != b.mrr());
        assert!(moved || name == "-bigrams", "{name} changed nothing");
    }
}

/// The project's own fixture (tuned on): a floor a candidate ranking must keep, not a figure to
/// choose by.
struct Fixture {
    registry: ToolRegistry,
    queries: Vec<super::tool_search::Query>,
}

impl Fixture {
    fn new() -> Self {
        let (tools, queries) = super::tool_search::fixture();
        let mut registry = ToolRegistry::default();
        for tool in tools {
            registry.register(tool).unwrap();
        }
        Self { registry, queries }
    }

    /// Recall@5 of `rank` (registration indices, best first) over all the fixture's queries,
    /// and over its paraphrases.
    fn recall(&self, rank: impl Fn(&str) -> Vec<usize>) -> (f64, f64) {
        let names: Vec<&str> = self.registry.iter().map(|tool| tool.name()).collect();
        let (mut all, mut paraphrases, mut n) = (0, 0, 0);
        for query in &self.queries {
            let found = rank(query.text)
                .iter()
                .take(LIMIT)
                .any(|&tool| names[tool] == query.expected);
            all += usize::from(found);
            if query.kind == "paraphrase" {
                n += 1;
                paraphrases += usize::from(found);
            }
        }
        (
            all as f64 / self.queries.len() as f64,
            paraphrases as f64 / n.max(1) as f64,
        )
    }
}

/// Candidate changes to the ranking scored on the TUNING parts only (the rule for choosing:
/// best mean recall@5 over the four sets, each counting once, no set losing more than 0.01
/// against the ranking as shipped, and the project's own fixture kept at its floors, 0.85
/// overall and 0.70 on paraphrases). A change is a `ToolIndex::build_varied` string. The
/// 2026-12-02 run and what its choice did on the test parts: BENCHMARKS.md, "Tool search". Slow in a debug build:
/// `cargo test -p phi-agent --test core heldout_tuning_grid -- --ignored --nocapture`
/// (`PHI_AGENT_GRID` replaces the candidates: changes separated by `;`).
#[test]
#[ignore]
fn heldout_tuning_grid() {
    let default = [
        "-synonyms",
        "-coverage",
        "-name-bonus",
        "-stemming",
        "+numbers",
        "+learned",
        "k1=2",
        "k1=4",
        "k1=6",
        "name_bonus=0.3",
        "name_bonus=0.9",
        "coverage_power=0.5",
        "coverage_power=1",
        "synonym_weight=0.1",
        "synonym_weight=0.5",
        "synonym_weight_known=0.05",
        "synonym_weight_known=0.1",
        "synonym_weight_known=0.15",
        "synonym_weight_known=0.2",
        "synonym_weight=0.2,synonym_weight_known=0.1",
        "synonym_weight=0.5,synonym_weight_known=0.1",
        "synonym_coverage=0.5",
        "synonym_coverage=1",
        "+coverage-idf",
        "+coverage-idf,coverage_power=1",
        "weight.name=2",
        "weight.name=4",
        "weight.description=0.7",
        "weight.description=1.5",
        "weight.param_name=0.5",
        "weight.param_name=1.2",
        "weight.param_doc=0.3",
        "weight.param_doc=0.8",
        "b.name=0",
        "b.name=0.6",
        "b.description=0.5",
        "b.description=0.9",
        "b.param_name=0.75",
        "b.param_doc=0.5",
        "b.param_doc=0.9",
        "-feedback",
        "feedback_docs=2",
        "feedback_docs=5",
        "feedback_terms=3",
        "feedback_terms=10",
        "feedback_weight=0.15",
        "feedback_weight=0.6",
    ];
    let changes = changes_from_env("PHI_AGENT_GRID", &default);
    let tune = ("tune".to_string(), "all".to_string());
    let sets = every_set();
    let fixture = Fixture::new();
    println!(
        "| ranking (tuning parts) | {} | mean R@5 | mean MRR | worst loss | fixture R@5 (paraphrases) |",
        SETS.map(|s| format!("{s} R@5 | {s} MRR")).join(" | ")
    );
    println!("|---|{}---|---|---|---|", "---|---|".repeat(SETS.len()));
    let mut shipped: Vec<f64> = Vec::new();
    let bm25: Vec<Score> = sets
        .iter()
        .map(|(set, _)| {
            let bm25 = PlainBm25::new(set);
            evaluate(set, |q| bm25.rank(q))[&tune]
        })
        .collect();
    let print = |name: &str, row: &[Score], shipped: &[f64], fixture: (f64, f64)| {
        let cells: Vec<String> = row
            .iter()
            .map(|score| format!("{:.3} | {:.3}", score.recall(), score.mrr()))
            .collect();
        let mean = row.iter().map(Score::recall).sum::<f64>() / row.len() as f64;
        let mrr = row.iter().map(Score::mrr).sum::<f64>() / row.len() as f64;
        let worst = if shipped.is_empty() {
            0.0
        } else {
            row.iter()
                .zip(shipped)
                .map(|(s, b)| s.recall() - b)
                .fold(f64::INFINITY, f64::min)
        };
        println!(
            "| {name} | {} | {mean:.4} | {mrr:.4} | {worst:+.3} | {:.3} ({:.3}) |",
            cells.join(" | "),
            fixture.0,
            fixture.1
        );
    };
    print("plain BM25", &bm25, &[], (f64::NAN, f64::NAN));
    for change in std::iter::once("as shipped").chain(changes.iter().map(String::as_str)) {
        let build = |registry: &ToolRegistry| {
            if change == "as shipped" {
                ToolIndex::build(registry)
            } else {
                ToolIndex::build_varied(registry, change).expect(change)
            }
        };
        let row: Vec<Score> = sets
            .iter()
            .map(|(set, registry)| evaluate(set, ours(&build(registry)))[&tune])
            .collect();
        if shipped.is_empty() {
            shipped = row.iter().map(Score::recall).collect();
        }
        print(
            change,
            &row,
            &shipped,
            fixture.recall(ours(&build(&fixture.registry))),
        );
    }
}

/// A request split into clauses: at sentence ends (`.`, `?`, `!`, `;` before a space) and line
/// breaks, and with `conjunctions` also at ", and ", " and then ", " then " and " and ". Pieces of
/// fewer than three words are joined to the one before (a split inside "salt and pepper" would
/// leave "pepper").
fn clauses(query: &str, conjunctions: bool) -> Vec<String> {
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

/// The whole request's ranking fused with each clause's by reciprocal rank fusion (constant `k`,
/// a clause's ranking weighted `weight`, the whole one 1), each ranking read to depth 20.
fn clause_fusion(
    index: &ToolIndex,
    conjunctions: bool,
    k: f64,
    weight: f64,
) -> impl Fn(&str) -> Vec<usize> + '_ {
    move |query| {
        let pieces = clauses(query, conjunctions);
        let mut fused: HashMap<usize, f64> = HashMap::new();
        let mut add = |text: &str, weight: f64| {
            for (rank, hit) in index.search(text, 20).iter().enumerate() {
                *fused.entry(hit.index).or_default() += weight / (k + rank as f64 + 1.0);
            }
        };
        add(query, 1.0);
        if pieces.len() > 1 {
            for piece in &pieces {
                add(piece, weight);
            }
        }
        let mut ranked: Vec<(usize, f64)> = fused.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.into_iter().map(|(tool, _)| tool).collect()
    }
}

/// Clause fusion (a request that asks for several things searched for each as well), scored on
/// the TUNING parts by the rule of `heldout_tuning_grid`; `PHI_AGENT_CLAUSE_TEST=1` runs the
/// chosen candidate (`PHI_AGENT_CLAUSE`, e.g. `and,10,1`) on the test parts instead. The run and
/// its reading: BENCHMARKS.md, "Tool search".
/// `cargo test -p phi-agent --test core heldout_clause_fusion -- --ignored --nocapture`.
#[test]
#[ignore]
fn heldout_clause_fusion() {
    let on_test = std::env::var("PHI_AGENT_CLAUSE_TEST").is_ok();
    let part = if on_test { "test" } else { "tune" };
    let key = (part.to_string(), "all".to_string());
    let sets = every_set();
    let indexes: Vec<ToolIndex> = sets.iter().map(|(_, r)| ToolIndex::build(r)).collect();
    let mut candidates: Vec<(bool, f64, f64)> = Vec::new();
    match std::env::var("PHI_AGENT_CLAUSE") {
        Ok(chosen) => {
            let fields: Vec<&str> = chosen.split(',').collect();
            candidates.push((
                fields[0] == "and",
                fields[1].parse().unwrap(),
                fields[2].parse().unwrap(),
            ));
        }
        Err(_) => {
            for conjunctions in [false, true] {
                for k in [10.0, 60.0] {
                    for weight in [0.5, 1.0] {
                        candidates.push((conjunctions, k, weight));
                    }
                }
            }
        }
    }
    let fixture = Fixture::new();
    let fixture_index = ToolIndex::build(&fixture.registry);
    let cell = |(all, paraphrases): (f64, f64)| format!("{all:.3} ({paraphrases:.3})");
    println!(
        "| ranking ({part} parts) | {} | mean R@5 | fixture R@5 (paraphrases) |",
        SETS.join(" | ")
    );
    println!("|---|{}---|---|", "---|".repeat(SETS.len()));
    let row = |name: &str, scores: Vec<Score>, fixture: String| {
        let mean = scores.iter().map(Score::recall).sum::<f64>() / scores.len() as f64;
        let cells: Vec<String> = scores
            .iter()
            .map(|s| format!("{:.3} ({:.3})", s.recall(), s.mrr()))
            .collect();
        println!("| {name} | {} | {mean:.4} | {fixture} |", cells.join(" | "));
    };
    row(
        "plain BM25",
        sets.iter()
            .map(|(set, _)| {
                let bm25 = PlainBm25::new(set);
                evaluate(set, |q| bm25.rank(q))[&key]
            })
            .collect(),
        String::new(),
    );
    row(
        "shipped",
        sets.iter()
            .zip(&indexes)
            .map(|((set, _), index)| evaluate(set, ours(index))[&key])
            .collect(),
        cell(fixture.recall(ours(&fixture_index))),
    );
    for (conjunctions, k, weight) in candidates {
        let name = format!(
            "clauses{}, k {k}, weight {weight}",
            if conjunctions {
                " and conjunctions"
            } else {
                ""
            }
        );
        let scores = sets
            .iter()
            .zip(&indexes)
            .map(|((set, _), index)| {
                evaluate(set, clause_fusion(index, conjunctions, k, weight))[&key]
            })
            .collect();
        let on_fixture = fixture.recall(clause_fusion(&fixture_index, conjunctions, k, weight));
        row(&name, scores, cell(on_fixture));
    }
    assert_eq!(
        clauses("Find news and get the top posts. Then book it", true),
        ["Find news", "get the top posts", "Then book it"]
    );
}

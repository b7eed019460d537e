//! What the ranking is made of ([`Parts`]), each part on or off, and its numbers ([`Weights`]),
//! tuned on the held-out sets' tuning parts: each constant says what it does and how it was
//! chosen.

use super::super::links::Links;
use super::super::tokenize::Analysis;

/// Which parts of the ranking are on. The default is what `ToolIndex` uses; the
/// held-out evaluation turns parts off one at a time to show what each adds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Parts {
    /// How text becomes terms.
    pub analysis: Analysis,
    /// The general synonym groups (`super::synonyms`).
    pub synonyms: bool,
    /// Documents marked down for the query terms they miss.
    pub coverage: bool,
    /// The bonus for a query that covers a tool's whole name.
    pub name_bonus: bool,
    /// Pseudo-relevance feedback: the weightiest words of the best result add to the score of
    /// every result that has them ([`Feedback`]).
    pub feedback: Option<Feedback>,
    /// Producer links: the tools the best results' parameters come from join the results
    /// ([`Links`]).
    pub links: Option<Links>,
    /// The first results chosen to cover the request's words between them ([`Breadth`]).
    pub breadth: Option<Breadth>,
    /// A request that keeps its result in a text file it names gets the best tool for writing a
    /// file among its first five (`super::super::written`).
    pub written_step: bool,
    /// The numbers, tuned on the held-out sets' tuning parts.
    pub weights: Weights,
}

/// The ranking's numbers (see the constants of the same names).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// Per `Field` slot: how much a term there counts (`FIELD_WEIGHT`).
    pub field_weight: [f32; FIELDS],
    /// Per `Field` slot: BM25's length normalization (`FIELD_B`).
    pub field_b: [f32; FIELDS],
    /// BM25's term-frequency saturation (`K1`).
    pub k1: f32,
    /// A synonym's weight against 1 for the query's own term (`SYNONYM_WEIGHT`).
    pub synonym_weight: f32,
    /// The bonus for covering a tool's whole name (`NAME_COVERAGE_BONUS`).
    pub name_coverage_bonus: f32,
    /// How much a term met only through a synonym covers (`SYNONYM_COVERAGE`).
    pub synonym_coverage: f32,
    /// How sharply missed query terms mark a document down (`COVERAGE_POWER`).
    pub coverage_power: f32,
}

impl Default for Weights {
    fn default() -> Self {
        Self {
            field_weight: FIELD_WEIGHT,
            field_b: FIELD_B,
            k1: K1,
            synonym_weight: SYNONYM_WEIGHT,
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
            coverage: true,
            name_bonus: true,
            feedback: Some(Feedback::default()),
            links: Some(Links::default()),
            breadth: Some(Breadth::default()),
            written_step: true,
            weights: Weights::default(),
        }
    }
}

/// How the first results are chosen to cover the request between them: among the best `pool`,
/// each place in turn goes to the result whose score (against the best) plus `weight` times the
/// share of the request's word weight (idf) it meets that no result placed before it met is the
/// highest; the scores are handed out again in the new order. Only for requests of at least
/// `min_words` words the index knows: a task of several steps is long, and a short request is
/// one step, whose tools meet its words in different ways ("schedule a meeting with guests" is
/// `create_calendar_event`, not `schedule_pickup` for its first word).
///
/// What it changes: "translate a text, make a barcode of it, square 12, then find action
/// movies" gets `calculate_squared` among the first five instead of a third way to find movies.
/// Unlike diversity among the results themselves, which marked down the tools a task needs
/// (they are alike), this asks only what of the request is still unanswered. Chosen on the four
/// held-out tuning parts (pool 10, weight 0.2, 9 words: mean recall@5 0.7713 → 0.7734, tuning
/// figures) against pools of 7, 10 and 20, weights 0.1–1 and 0–16 words; then run once on the
/// test parts: BENCHMARKS.md, "Tool search".
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Breadth {
    /// How many of the best results may be reordered.
    pub pool: usize,
    /// What covering all of the request's words is worth, against the best result's score.
    pub weight: f32,
    /// The fewest words (that the index knows) a request needs for its results to be reordered.
    pub min_words: usize,
}

impl Default for Breadth {
    fn default() -> Self {
        Self {
            pool: 10,
            weight: 0.2,
            min_words: 9,
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
pub struct Feedback {
    /// How many of the best results lend their words.
    pub docs: usize,
    /// How many of their weightiest words are added.
    pub terms: usize,
    /// The added words' weight, against 1 for the query's own.
    pub weight: f32,
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
    /// The name and description of the tool's group ([`ToolGroup`](crate::ToolGroup)): an MCP
    /// server's, a toolset's. Context for all of its tools alike.
    Group,
}

pub(super) const FIELDS: usize = 5;

impl Field {
    pub(super) fn slot(self) -> usize {
        self as usize
    }
}

/// How much a term counts in each field: a name is the most deliberate summary of a tool, a
/// parameter's doc the least. A group's text counts as a parameter's doc: it says what every
/// tool of the group is about, none in particular (not tuned: only LiveMCPBench has groups, and
/// it is held out from every choice; its tools' own fields decide among them).
const FIELD_WEIGHT: [f32; FIELDS] = [3.0, 1.0, 0.8, 0.5, 0.5];
/// BM25's length normalization per field: names are all short, so their length says little.
const FIELD_B: [f32; FIELDS] = [0.3, 0.75, 0.5, 0.75, 0.75];
/// BM25's term-frequency saturation: high, since a tool's fields are short and a word said
/// twice (name and description) is a real sign (1.2, 2, 3, 4 and 5 tried on the held-out
/// tuning parts; 3 best).
const K1: f32 = 3.0;
/// The weight of a synonym of a query term, against 1 for the term itself. Low: on the
/// held-out tuning parts a synonym earns its keep by vouching for a query word's coverage
/// (0 to 0.3 score alike there, 0.7 loses 0.03 recall@5 on BFCL); 0.3 rather than 0.1 keeps the
/// project's own fixture's paraphrases.
pub(super) const SYNONYM_WEIGHT: f32 = 0.3;
/// How much a document's score grows when the query's own terms cover all of its name: a
/// query that names `delete_branch`'s every word should find it before tools that merely
/// mention branches many times.
const NAME_COVERAGE_BONUS: f32 = 0.6;

/// How much a query term met only through a synonym counts towards the query's coverage.
const SYNONYM_COVERAGE: f32 = 0.8;
/// How sharply a document is marked down for the query terms it does not meet (Lucene's
/// coordination factor is a power of 1; 0.75 is best of 0.5, 0.75, 1, 1.5 and 2 on the
/// held-out tuning parts: long requests have words no tool says).
pub(super) const COVERAGE_POWER: f32 = 0.75;

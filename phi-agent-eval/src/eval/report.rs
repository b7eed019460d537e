//! The scores of a dataset: per case and in total, as a terminal table or JSON, and the
//! thresholds a test holds them to.

use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;

use super::score::CaseReport;

/// The scores of every case and their totals.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Report {
    /// Each case, in the dataset's order.
    pub cases: Vec<CaseReport>,
    /// The totals.
    pub summary: Summary,
}

/// The totals of a [`Report`]. Means are over the cases that score the measure (a case that
/// names no tools has no tool precision).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Summary {
    /// Cases run.
    pub cases: usize,
    /// Cases that succeeded.
    pub succeeded: usize,
    /// `succeeded / cases` (1 for no cases).
    pub success_rate: f64,
    /// Mean tool precision.
    pub tool_precision: Option<f64>,
    /// Mean tool recall.
    pub tool_recall: Option<f64>,
    /// Mean argument match.
    pub argument_match: Option<f64>,
    /// Model turns over all cases.
    pub turns: usize,
    /// Tokens over all cases.
    pub tokens: u64,
    /// The cases' run times added up (with concurrency, more than the wall-clock time).
    #[serde(serialize_with = "seconds")]
    pub time: Duration,
}

fn seconds<S: serde::Serializer>(time: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(time.as_secs_f64())
}

fn mean(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let values: Vec<f64> = values.flatten().collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

impl Report {
    pub(crate) fn new(cases: Vec<CaseReport>) -> Self {
        let succeeded = cases.iter().filter(|case| case.success).count();
        let summary = Summary {
            cases: cases.len(),
            succeeded,
            success_rate: if cases.is_empty() {
                1.0
            } else {
                succeeded as f64 / cases.len() as f64
            },
            tool_precision: mean(cases.iter().map(|case| case.tool_precision)),
            tool_recall: mean(cases.iter().map(|case| case.tool_recall)),
            argument_match: mean(cases.iter().map(|case| case.argument_match)),
            turns: cases.iter().map(|case| case.turns).sum(),
            tokens: cases.iter().map(|case| case.tokens).sum(),
            time: cases.iter().map(|case| case.time).sum(),
        };
        Self { cases, summary }
    }

    /// The report as JSON (`cases` and `summary`; times in seconds).
    pub fn to_json(&self) -> serde_json::Value {
        // Serializing plain data to a JSON value cannot fail.
        serde_json::to_value(self).unwrap_or_default()
    }

    /// The report as a table for a terminal: a row per case (its failures below it), then the
    /// totals.
    pub fn table(&self) -> String {
        let score =
            |value: Option<f64>| value.map_or("-".to_string(), |value| format!("{value:.2}"));
        let width = self
            .cases
            .iter()
            .map(|case| case.name.chars().count())
            .max()
            .unwrap_or(0)
            .max(5);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<width$}  {:>4}  {:>9}  {:>6}  {:>4}  {:>5}  {:>7}  {:>8}",
            "case", "ok", "precision", "recall", "args", "turns", "tokens", "time"
        );
        let row = |out: &mut String,
                   name: &str,
                   ok: String,
                   p,
                   r,
                   a,
                   turns,
                   tokens,
                   time: Duration| {
            let _ = writeln!(
                out,
                "{name:<width$}  {ok:>4}  {:>9}  {:>6}  {:>4}  {turns:>5}  {tokens:>7}  {:>7.3}s",
                score(p),
                score(r),
                score(a),
                time.as_secs_f64()
            );
        };
        for case in &self.cases {
            let ok = if case.success { "yes" } else { "NO" };
            row(
                &mut out,
                &case.name,
                ok.into(),
                case.tool_precision,
                case.tool_recall,
                case.argument_match,
                case.turns,
                case.tokens,
                case.time,
            );
            for failure in &case.failures {
                let _ = writeln!(out, "  - {failure}");
            }
        }
        let total = &self.summary;
        row(
            &mut out,
            "total",
            format!("{}/{}", total.succeeded, total.cases),
            total.tool_precision,
            total.tool_recall,
            total.argument_match,
            total.turns,
            total.tokens,
            total.time,
        );
        out
    }

    /// `Ok` when the totals meet `thresholds`, else an error naming each measure below its
    /// threshold, with the table: `report.check(&thresholds)?` or `.unwrap()` fails a test.
    pub fn check(&self, thresholds: &Thresholds) -> Result<(), ThresholdError> {
        let total = &self.summary;
        let mut below = Vec::new();
        let mut test = |name: &str, value: Option<f64>, least: Option<f64>| {
            if let Some(least) = least {
                let value = value.unwrap_or(0.0);
                if value < least {
                    below.push(format!("{name} {value:.3} is below {least:.3}"));
                }
            }
        };
        test(
            "success rate",
            Some(total.success_rate),
            thresholds.success_rate,
        );
        test(
            "tool precision",
            total.tool_precision,
            thresholds.tool_precision,
        );
        test("tool recall", total.tool_recall, thresholds.tool_recall);
        test(
            "argument match",
            total.argument_match,
            thresholds.argument_match,
        );
        if let Some(most) = thresholds.tokens.filter(|most| total.tokens > *most) {
            below.push(format!("{} tokens, more than {most}", total.tokens));
        }
        if below.is_empty() {
            Ok(())
        } else {
            Err(ThresholdError {
                below,
                table: self.table(),
            })
        }
    }
}

/// The least totals a [`Report`] must reach ([`Report::check`]); a measure not set is not held
/// to any.
///
/// ```
/// use phi_agent_eval::eval::Thresholds;
/// let thresholds = Thresholds::default().with_success_rate(0.9).with_tool_recall(0.95);
/// # let _ = thresholds;
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Thresholds {
    /// The least success rate.
    pub success_rate: Option<f64>,
    /// The least mean tool precision.
    pub tool_precision: Option<f64>,
    /// The least mean tool recall.
    pub tool_recall: Option<f64>,
    /// The least mean argument match.
    pub argument_match: Option<f64>,
    /// The most tokens over all cases.
    pub tokens: Option<u64>,
}

impl Thresholds {
    /// Holds the success rate to at least `least`.
    pub fn with_success_rate(mut self, least: f64) -> Self {
        self.success_rate = Some(least);
        self
    }

    /// Holds the mean tool precision to at least `least`.
    pub fn with_tool_precision(mut self, least: f64) -> Self {
        self.tool_precision = Some(least);
        self
    }

    /// Holds the mean tool recall to at least `least`.
    pub fn with_tool_recall(mut self, least: f64) -> Self {
        self.tool_recall = Some(least);
        self
    }

    /// Holds the mean argument match to at least `least`.
    pub fn with_argument_match(mut self, least: f64) -> Self {
        self.argument_match = Some(least);
        self
    }

    /// Holds the tokens over all cases to at most `most`.
    pub fn with_max_tokens(mut self, most: u64) -> Self {
        self.tokens = Some(most);
        self
    }
}

/// The totals that missed their [`Thresholds`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the evaluation missed its thresholds: {}\n{table}", below.join("; "))]
#[non_exhaustive]
pub struct ThresholdError {
    /// Each measure that missed, in words.
    pub below: Vec<String>,
    /// The report's table.
    pub table: String,
}

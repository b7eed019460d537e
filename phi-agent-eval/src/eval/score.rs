//! A case's scores, read from the run's own output (its tool call records, turns and usage).

use std::collections::BTreeSet;
use std::time::Duration;

use phi_agent::{AgentResult, RunOutput};
use serde::Serialize;

use super::case::Case;

/// How one case went.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CaseReport {
    /// The case's name.
    pub name: String,
    /// Whether every expectation held and the run ended with an answer.
    pub success: bool,
    /// Of the distinct tools called, the share that was expected (1 when none was called).
    /// `None` when the case names no tools.
    pub tool_precision: Option<f64>,
    /// Of the tools expected, the share that was called (1 when none was expected). `None` when
    /// the case names no tools.
    pub tool_recall: Option<f64>,
    /// Of the argument predicates, the share that held; `None` when the case has none.
    pub argument_match: Option<f64>,
    /// The tools called, in order, repeats kept.
    pub tools_called: Vec<String>,
    /// Model turns.
    pub turns: usize,
    /// Tokens read and written.
    pub tokens: u64,
    /// Wall-clock time of the run.
    #[serde(serialize_with = "seconds")]
    pub time: Duration,
    /// The answer, or the run's error.
    pub answer: String,
    /// Every expectation that did not hold, in words.
    pub failures: Vec<String>,
}

fn seconds<S: serde::Serializer>(time: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(time.as_secs_f64())
}

/// Scores `case` from the run's `result`, which took `time`.
pub(crate) fn score(case: &Case, result: &AgentResult<RunOutput>, time: Duration) -> CaseReport {
    let output = match result {
        Ok(output) => output,
        Err(error) => {
            return CaseReport {
                name: case.name.clone(),
                success: false,
                tool_precision: case.tools.as_ref().map(|_| 0.0),
                tool_recall: case.tools.as_ref().map(|_| 0.0),
                argument_match: (!case.arguments.is_empty()).then_some(0.0),
                tools_called: Vec::new(),
                turns: 0,
                tokens: 0,
                time,
                answer: error.to_string(),
                failures: vec![format!("the run failed: {error}")],
            };
        }
    };
    let mut failures = Vec::new();
    let called: Vec<String> = output
        .tool_calls
        .iter()
        .map(|call| call.name.clone())
        .collect();
    let (tool_precision, tool_recall) = match &case.tools {
        None => (None, None),
        Some(expected) => {
            let expected: BTreeSet<&str> = expected.iter().map(String::as_str).collect();
            let distinct: BTreeSet<&str> = called.iter().map(String::as_str).collect();
            let right = distinct.intersection(&expected).count() as f64;
            let share = |of: usize| if of == 0 { 1.0 } else { right / of as f64 };
            for tool in expected.difference(&distinct) {
                failures.push(format!("`{tool}` was not called"));
            }
            for tool in distinct.difference(&expected) {
                failures.push(format!("`{tool}` was called, unexpected"));
            }
            (Some(share(distinct.len())), Some(share(expected.len())))
        }
    };
    let mut held = 0;
    for check in &case.arguments {
        let holds = output
            .tool_calls
            .iter()
            .any(|call| call.name == check.tool && (check.test)(&call.arguments));
        if holds {
            held += 1;
        } else {
            failures.push(format!("no call of `{}` {}", check.tool, check.what));
        }
    }
    let argument_match =
        (!case.arguments.is_empty()).then(|| held as f64 / case.arguments.len() as f64);
    for check in &case.answer {
        if !(check.test)(&output.text) {
            failures.push(format!("the answer does not hold: {}", check.what));
        }
    }
    let tokens = output.usage.input_tokens + output.usage.output_tokens;
    if let Some(most) = case.max_turns.filter(|most| output.turns > *most) {
        failures.push(format!("{} turns, more than {most}", output.turns));
    }
    if let Some(most) = case.max_tokens.filter(|most| tokens > *most) {
        failures.push(format!("{tokens} tokens, more than {most}"));
    }
    CaseReport {
        name: case.name.clone(),
        success: failures.is_empty(),
        tool_precision,
        tool_recall,
        argument_match,
        tools_called: called,
        turns: output.turns,
        tokens,
        time,
        answer: output.text.clone(),
        failures,
    }
}

//! Evaluation: run an agent over a dataset of [`Case`]s and score what it did.
//!
//! The agent is any [`PhiAgent`], so any `LlmClient` (a [`ScriptedLlm`](phi_agent::llm::ScriptedLlm),
//! an adapter replaying a cassette, a real provider). What a run did is read from its own
//! [`RunOutput`](phi_agent::RunOutput) (its tool call records, turns and usage), not kept a
//! second time. The [`Report`] prints as a table, serializes to JSON, and fails a test that
//! misses its [`Thresholds`].

mod case;
mod report;
mod score;

use std::time::Instant;

use futures_util::StreamExt;
use phi_agent::PhiAgent;

pub use case::Case;
pub use report::{Report, Summary, ThresholdError, Thresholds};
pub use score::CaseReport;

/// Runs a dataset through an agent, a bounded number of cases at a time.
///
/// ```no_run
/// # async fn demo(agent: phi_agent::PhiAgent) -> Result<(), Box<dyn std::error::Error>> {
/// use phi_agent_eval::eval::{Case, Evaluator, Thresholds};
/// let cases = vec![Case::new("sum", "What is 6 plus 7?").expect_tools(["add"])];
/// let report = Evaluator::new(&agent).with_concurrency(4).run(&cases).await;
/// println!("{}", report.table());
/// report.check(&Thresholds::default().with_success_rate(1.0))?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct Evaluator<'a> {
    agent: &'a PhiAgent,
    concurrency: usize,
}

impl<'a> Evaluator<'a> {
    /// An evaluator of `agent`, one case at a time.
    pub fn new(agent: &'a PhiAgent) -> Self {
        Self {
            agent,
            concurrency: 1,
        }
    }

    /// Runs up to `cases` cases at once (at least one). A provider's rate limit is the usual
    /// bound.
    pub fn with_concurrency(mut self, cases: usize) -> Self {
        self.concurrency = cases.max(1);
        self
    }

    /// Runs every case and scores it; the report keeps the dataset's order.
    pub async fn run(&self, cases: &[Case]) -> Report {
        let reports = futures_util::stream::iter(cases.iter().map(|case| async move {
            let started = Instant::now();
            let result = self.agent.run(case.input.clone()).await;
            score::score(case, &result, started.elapsed())
        }))
        .buffered(self.concurrency)
        .collect()
        .await;
        Report::new(reports)
    }
}

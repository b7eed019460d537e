//! The settings of one run, beside the agent's own.

use crate::agent::typed::AnswerOptions;

/// The settings of one run, given with [`RunRequest::options`](crate::RunRequest::options); the
/// defaults suit most runs. A setting that only some runs read says so; a new per-run setting is
/// a field here, never a new run method. An [`AnswerOptions`] converts into the run's options
/// with the other settings at their defaults.
///
/// ```
/// use phi_agent::{AnswerOptions, RunOptions};
/// let options = RunOptions::default().with_answer(AnswerOptions::default().with_max_retries(0));
/// assert_eq!(options.answer.max_retries, 0);
/// assert_eq!(options, RunOptions::from(AnswerOptions::default().with_max_retries(0)));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunOptions {
    /// How a typed run's answer is asked for and judged (read by typed runs only).
    pub answer: AnswerOptions,
}

impl RunOptions {
    /// These options with `answer` for a typed run's answer.
    pub fn with_answer(mut self, answer: AnswerOptions) -> Self {
        self.answer = answer;
        self
    }
}

impl From<AnswerOptions> for RunOptions {
    fn from(answer: AnswerOptions) -> Self {
        RunOptions::default().with_answer(answer)
    }
}

//! Answering the questions a paused run's calls asked the user, and handing the answers to
//! the same calls when the run resumes.

use std::collections::HashMap;

use serde_json::Value;

use super::paused::{PausedRun, TurnCall};
use super::question::PendingQuestion;
use crate::context::Elicitation;
use crate::error::{AgentError, AgentResult};

impl PausedRun {
    /// The calls that asked the user a question and wait for the answer (answered or not
    /// yet), in call order.
    pub fn questions(&self) -> Vec<&PendingQuestion> {
        self.calls
            .iter()
            .filter_map(|call| match call {
                TurnCall::Asking(question) => Some(question),
                TurnCall::Ran(_) | TurnCall::Pending(_) => None,
            })
            .collect()
    }

    /// Answers the question of the call `id`: resuming runs the call again, and its
    /// [`ToolContext::elicit`](crate::ToolContext::elicit) returns `answer` at once. A later
    /// answer to the same question replaces this one.
    pub fn answer(&mut self, id: &str, answer: Elicitation<Value>) -> AgentResult<()> {
        let question = self.calls.iter_mut().find_map(|call| match call {
            TurnCall::Asking(question) if question.id == id => Some(question),
            _ => None,
        });
        match question {
            Some(question) => {
                question.answer = Some(answer);
                Ok(())
            }
            None => {
                let ids: Vec<String> = self
                    .questions()
                    .iter()
                    .map(|question| format!("`{}`", question.id))
                    .collect();
                Err(AgentError::Resume {
                    reason: format!(
                        "no call of the paused turn asked a question with the id `{id}`; the calls that asked are {}",
                        if ids.is_empty() {
                            "(none)".to_string()
                        } else {
                            ids.join(", ")
                        }
                    ),
                })
            }
        }
    }

    /// Refuses a question without an answer, or asked by a tool this agent lacks.
    pub(super) fn check_questions(&self, tool_exists: impl Fn(&str) -> bool) -> AgentResult<()> {
        let questions = self.questions();
        let unanswered: Vec<String> = questions
            .iter()
            .filter(|question| question.answer.is_none())
            .map(|question| format!("`{}` ({})", question.id, question.tool))
            .collect();
        if !unanswered.is_empty() {
            return Err(AgentError::Resume {
                reason: format!(
                    "the questions of calls {} are not answered yet; answer each with `PausedRun::answer` first",
                    unanswered.join(", ")
                ),
            });
        }
        match questions
            .iter()
            .find(|question| !tool_exists(&question.tool))
        {
            Some(question) => Err(AgentError::Resume {
                reason: format!(
                    "the call `{}` that asked a question is of the tool `{}`, which this agent does not have; resume on an agent with the same tools",
                    question.id, question.tool
                ),
            }),
            None => Ok(()),
        }
    }

    /// The answers of the paused turn's questions, by call id, for the calls to find when
    /// they run again.
    pub(super) fn answers(&self) -> HashMap<String, Elicitation<Value>> {
        self.questions()
            .into_iter()
            .filter_map(|question| Some((question.id.clone(), question.answer.clone()?)))
            .collect()
    }
}

//! The final answer of a typed run, as the loop sees it: what each turn offers for it, and how
//! each reply is judged. Judging says what the turn leaves; the run's state writes it.
//!
//! In tool mode every turn offers the final-answer tool beside the agent's tools, so the model
//! calls tools as it needs and answers by calling that one; no request carries a response
//! format (a response format on a turn with tools keeps many models from calling them). In
//! native mode a turn that offers no tools carries the answer schema as the provider's
//! structured output instead, and the answer is the reply's text.
//!
//! The final-answer call never runs as a tool: it is decoded here, with the same decoder and
//! validator as tool arguments, so a refused answer tells the model every mistake with its path.
//! A refused answer (a plain-text reply, a call or JSON text that does not decode) goes back to
//! the model, at most [`AnswerOptions::max_retries`](super::AnswerOptions) times; one refusal
//! more ends the run with [`AgentError::AnswerRejected`]. A refused final-answer call is also a
//! failed call for the run's retry budget ([`AgentConfig::max_repeated_failures`]): the very same
//! refused answer sent again and again ends the run as any repeated failing call does, if that
//! limit is the lower one.
//!
//! [`AgentConfig::max_repeated_failures`]: crate::AgentConfig::max_repeated_failures
//!
//! Judging reads only the model's reply, so a durable run replayed from its journal judges every
//! turn the same way: the answer needs no step of its own.

use std::any::Any;
use std::sync::Arc;

use serde_json::Value;

use crate::content::Content;
use crate::error::{AgentError, AgentResult, mistakes};
use crate::llm::{LlmResponse, Message, ToolCall, ToolSpec};
use crate::registry::ToolCallResult;

/// Decodes an answer object (the final-answer call's arguments) into the run's answer type, for
/// the final-answer tool named by the first argument.
pub(super) type DecodeAnswer = fn(&str, &Value) -> AgentResult<Box<dyn Any + Send>>;

/// A turn's tool list, and the same list with the answer tool after it.
type Offered = (Arc<[ToolSpec]>, Arc<[ToolSpec]>);

/// A typed run's answer: its tool, how it decodes, and what the run has refused so far.
// `pub` in this private module: the request's answer kinds name it in the traits that bound the
// request's public impls, and those may name only `pub` types. No path outside `agent` names it.
pub struct Answering {
    spec: ToolSpec,
    decode: DecodeAnswer,
    /// Whether the answer type is wrapped in `{"value": ..}` (its schema is not an object).
    wrapped: bool,
    /// Whether turns without tools send the schema as the provider's structured output.
    native: bool,
    max_retries: usize,
    refused: usize,
    /// The tool list last offered and the same list with the answer tool, keyed on the list's
    /// pointer (the reuse rule in `registry/shared_list.rs`).
    offered: Option<Offered>,
    value: Option<Box<dyn Any + Send>>,
}

/// What a reply means for a typed run, and what its turn leaves in the transcript.
pub(super) enum Judgement {
    /// Tool calls without the final answer: the turn goes on as in any run.
    NotAnswered,
    /// Accepted; `json` is the answer as compact JSON (the value itself, unwrapped).
    Answered {
        /// The answer as compact JSON.
        json: String,
        /// How the reply closes the turn.
        reply: Accepted,
    },
    /// A text reply refused: the reply and what the model is told (`feedback`) close the turn;
    /// the next turn begins.
    Again {
        /// The reply.
        text: String,
        /// What the model is told.
        feedback: String,
    },
    /// Every final-answer call of the turn refused, with their results (by call index); the
    /// turn's other calls run as usual.
    Refused(Vec<(usize, ToolCallResult)>),
    /// One refusal more than allowed: the run ends with [`AgentError::AnswerRejected`], its
    /// transcript ending with `said`.
    Rejected {
        /// The refused reply.
        said: Message,
        /// How many answers were refused.
        attempts: usize,
        /// The last answer, as the model sent it.
        last_attempt: String,
        /// What was wrong with it.
        last_error: String,
    },
}

/// An accepted answer, as its turn closes.
pub(super) enum Accepted {
    /// A text reply (native mode, or JSON text in tool mode).
    Text(String),
    /// A final-answer call: the reply's calls, each with its result (the answer's "received",
    /// the others "not run"), so a session's history stays a valid conversation.
    Calls {
        text: String,
        calls: Vec<ToolCall>,
        results: Vec<ToolCallResult>,
    },
}

impl Answering {
    pub(super) fn new(
        spec: ToolSpec,
        decode: DecodeAnswer,
        wrapped: bool,
        native: bool,
        max_retries: usize,
    ) -> Self {
        Self {
            spec,
            decode,
            wrapped,
            native,
            max_retries,
            refused: 0,
            offered: None,
            value: None,
        }
    }

    /// The decoded answer, once accepted.
    pub(super) fn take_value(&mut self) -> Option<Box<dyn Any + Send>> {
        self.value.take()
    }

    /// The tools and response format of a turn that would offer `tools`.
    pub(super) fn offer(&mut self, tools: Arc<[ToolSpec]>) -> (Arc<[ToolSpec]>, Option<ToolSpec>) {
        if self.native && tools.is_empty() {
            return (tools, Some(self.spec.clone()));
        }
        if let Some((base, with)) = &self.offered
            && Arc::ptr_eq(base, &tools)
        {
            return (with.clone(), None);
        }
        let mut list = Vec::with_capacity(tools.len() + 1);
        list.extend(tools.iter().cloned());
        list.push(self.spec.clone());
        let with: Arc<[ToolSpec]> = Arc::from(list);
        self.offered = Some((tools, with.clone()));
        (with, None)
    }

    /// Judges one reply; past the refusals allowed, [`Judgement::Rejected`].
    pub(super) fn judge(&mut self, response: &mut LlmResponse) -> Judgement {
        if response.tool_calls.is_empty() {
            let text = std::mem::take(&mut response.text);
            return match self.read_text(&text) {
                Ok((value, json)) => {
                    self.value = Some(value);
                    Judgement::Answered {
                        json,
                        reply: Accepted::Text(text),
                    }
                }
                Err(feedback) => match self.count_refusal() {
                    Some(attempts) => Judgement::Rejected {
                        said: Message::assistant(text.clone()),
                        attempts,
                        last_attempt: text,
                        last_error: feedback,
                    },
                    None => Judgement::Again { text, feedback },
                },
            };
        }
        self.judge_calls(response)
    }

    /// Judges a reply with tool calls: the first final-answer call that decodes is the answer.
    fn judge_calls(&mut self, response: &mut LlmResponse) -> Judgement {
        let name = self.spec.name;
        let mut refused = Vec::new();
        for (index, call) in response.tool_calls.iter().enumerate() {
            if call.name != name {
                continue;
            }
            match (self.decode)(name, &call.arguments) {
                Ok(value) => {
                    self.value = Some(value);
                    let json = self.answer_json(&call.arguments);
                    return Judgement::Answered {
                        json,
                        reply: self.accept_call(response, index),
                    };
                }
                Err(error) => refused.push((index, ToolCallResult::error(&error))),
            }
        }
        let Some((last, result)) = refused.last() else {
            return Judgement::NotAnswered;
        };
        let last_attempt = response.tool_calls[*last].arguments.to_string();
        let last_error = result.to_model_text();
        match self.count_refusal() {
            Some(attempts) => Judgement::Rejected {
                said: Message::Assistant {
                    text: response.text.clone(),
                    tool_calls: response.tool_calls.clone(),
                },
                attempts,
                last_attempt,
                last_error,
            },
            None => Judgement::Refused(refused),
        }
    }

    /// Counts one refused answer; past the limit, the number of attempts that ends the run.
    fn count_refusal(&mut self) -> Option<usize> {
        self.refused += 1;
        if self.refused <= self.max_retries {
            return None;
        }
        tracing::warn!(
            attempts = self.refused,
            "the model's answer was refused too often; run stopped"
        );
        Some(self.refused)
    }

    /// The final-answer tool's name.
    pub(super) fn tool_name(&self) -> &'static str {
        self.spec.name
    }

    /// The answers refused so far.
    pub(super) fn refused(&self) -> usize {
        self.refused
    }

    /// These answers, as a resumed run's: `refused` answers refused before the pause.
    pub(super) fn resumed_with(mut self, refused: usize) -> Self {
        self.refused = refused;
        self
    }

    /// A text reply read as the answer: JSON (in a code fence or not) that decodes. Otherwise
    /// what the model is told.
    fn read_text(&self, text: &str) -> Result<(Box<dyn Any + Send>, String), String> {
        let json = unfenced(text);
        let parsed = serde_json::from_str::<Value>(json);
        let not_called = || mistakes::answer_not_called(self.spec.name);
        match parsed {
            Ok(value @ Value::Object(_)) => match (self.decode)(self.spec.name, &value) {
                Ok(decoded) => Ok((decoded, self.answer_json(&value))),
                Err(error) if self.native => {
                    Err(mistakes::answer_mistakes(&mistakes::mistake_lines(&error)))
                }
                Err(error) => Err(format!("{}\n{}", not_called(), error)),
            },
            Ok(_) if self.native => Err(mistakes::answer_mistakes(&mistakes::mistake_lines(
                &AgentError::InvalidArguments {
                    tool: String::new(),
                    path: crate::error::ROOT_PATH.into(),
                    message: "expected a JSON object".into(),
                },
            ))),
            Err(error) if self.native => Err(mistakes::answer_not_json(&error.to_string())),
            _ => Err(not_called()),
        }
    }

    /// The answer itself as compact JSON: the object, or the wrapped value.
    fn answer_json(&self, object: &Value) -> String {
        let value = if self.wrapped {
            object.get("value").unwrap_or(&Value::Null)
        } else {
            object
        };
        value.to_string()
    }

    /// The turn whose call `index` gave the accepted answer: the reply, the answer's result
    /// and a "not run" result for each other call.
    fn accept_call(&self, response: &mut LlmResponse, index: usize) -> Accepted {
        let calls = std::mem::take(&mut response.tool_calls);
        let results = (0..calls.len())
            .map(|position| {
                let (text, is_error) = if position == index {
                    (mistakes::answer_accepted().to_string(), false)
                } else {
                    (mistakes::not_run_after_answer(self.spec.name), true)
                };
                ToolCallResult {
                    content: vec![Content::text(text)],
                    is_error,
                }
            })
            .collect();
        Accepted::Calls {
            text: std::mem::take(&mut response.text),
            calls,
            results,
        }
    }
}

/// `text` without the Markdown code fence a model may put around JSON.
fn unfenced(text: &str) -> &str {
    let text = text.trim();
    let Some(inner) = text.strip_prefix("```") else {
        return text;
    };
    let Some(inner) = inner.strip_suffix("```") else {
        return text;
    };
    // The fence's language tag (`json`), if any, ends at the first line break.
    match inner.split_once('\n') {
        Some((tag, body)) if !tag.trim().contains(['{', '[']) => body.trim(),
        _ => inner.trim(),
    }
}

#[cfg(test)]
mod tests {
    use super::unfenced;

    #[test]
    fn a_fenced_reply_is_read_without_its_fence() {
        assert_eq!(unfenced("```json\n{\"a\": 1}\n```"), "{\"a\": 1}");
        assert_eq!(unfenced("```\n{\"a\": 1}\n```"), "{\"a\": 1}");
        assert_eq!(unfenced("  {\"a\": 1} "), "{\"a\": 1}");
        assert_eq!(unfenced("```{\"a\": 1}```"), "{\"a\": 1}");
        assert_eq!(unfenced("```json {\"a\": 1}"), "```json {\"a\": 1}");
    }
}

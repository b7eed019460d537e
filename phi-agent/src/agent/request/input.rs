//! What a run starts from: the user's message, or a paused run to go on with.

use std::borrow::Cow;

use crate::agent::paused::PausedRun;

/// What a run starts from: a message of the user's (any string) or a [`PausedRun`] whose
/// pending calls are decided. [`PhiAgent::prompt`](crate::PhiAgent::prompt) and
/// [`AgentSession::prompt`](crate::AgentSession::prompt) take either, so a session resumes a
/// paused run as it takes a message: `session.prompt(paused)`.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInput(pub(super) Input);

/// The two starts of a run.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Input {
    /// A fresh run, answering this message.
    Prompt(String),
    /// A paused run, resumed (boxed: a paused run carries its whole transcript).
    Resume(Box<PausedRun>),
}

impl From<String> for RunInput {
    fn from(text: String) -> Self {
        RunInput(Input::Prompt(text))
    }
}

impl From<&str> for RunInput {
    fn from(text: &str) -> Self {
        RunInput(Input::Prompt(text.to_owned()))
    }
}

impl From<&String> for RunInput {
    fn from(text: &String) -> Self {
        RunInput(Input::Prompt(text.clone()))
    }
}

impl From<Box<str>> for RunInput {
    fn from(text: Box<str>) -> Self {
        RunInput(Input::Prompt(text.into()))
    }
}

impl From<Cow<'_, str>> for RunInput {
    fn from(text: Cow<'_, str>) -> Self {
        RunInput(Input::Prompt(text.into_owned()))
    }
}

impl From<PausedRun> for RunInput {
    fn from(paused: PausedRun) -> Self {
        RunInput(Input::Resume(Box::new(paused)))
    }
}

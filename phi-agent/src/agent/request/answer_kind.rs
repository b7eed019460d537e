//! A request's shape as types: its answer kind ([`Plain`] or [`Typed`]) and its mode (the plan's
//! [`Inline`] or [`Pausing`]) decide what awaiting it returns, so a run that cannot pause has no
//! paused outcome and a typed run's output holds its `T`, without a check at run time.
//!
//! | | [`Inline`] (default) | [`Pausing`] |
//! |---|---|---|
//! | [`Plain`] (default) | [`RunOutput`] | [`RunOutcome`] |
//! | [`Typed<T>`] | [`TypedOutput<T>`] | [`TypedOutcome<T>`] |

use std::marker::PhantomData;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::agent::answer::Answering;
use crate::agent::output::{RunOutcome, RunOutput};
use crate::agent::paused::PausedRun;
use crate::agent::phi::PhiAgent;
use crate::agent::plan::{Inline, Pausing, Policy};
use crate::agent::typed::{AnswerOptions, TypedOutcome, TypedOutput, answering, take_answer};
use crate::error::{AgentError, AgentResult};

/// The answer kind of a [`RunRequest`](crate::RunRequest) (the default): the model's text, in a
/// [`RunOutput`].
#[derive(Debug)]
pub struct Plain(());

/// The answer kind of a [`RunRequest`](crate::RunRequest) made with
/// [`typed::<T>()`](crate::RunRequest::typed): the answer decoded into a `T`, in a
/// [`TypedOutput<T>`].
pub struct Typed<T>(PhantomData<fn() -> T>);

impl<T> std::fmt::Debug for Typed<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Typed<{}>", std::any::type_name::<T>())
    }
}

/// What a run of this answer kind asks of the loop, and what it makes of the loop's outcome.
pub trait AnswerKind: Send + 'static {
    /// What an answered run returns.
    type Done: Send;
    /// What a run that may pause returns.
    type Outcome: Send;
    /// The typed answer the loop offers and judges, if any: for a run that resumes `resumed`,
    /// with the answers refused before it paused.
    fn answering(
        agent: &PhiAgent,
        options: &AnswerOptions,
        resumed: Option<&PausedRun>,
    ) -> AgentResult<Option<Answering>>;
    /// The output of a run that answered.
    fn done(run: RunOutput, answering: Option<Answering>) -> AgentResult<Self::Done>;
    /// The outcome of a run that may pause.
    fn outcome(outcome: RunOutcome, answering: Option<Answering>) -> AgentResult<Self::Outcome>;
}

impl AnswerKind for Plain {
    type Done = RunOutput;
    type Outcome = RunOutcome;
    fn answering(
        _: &PhiAgent,
        _: &AnswerOptions,
        _: Option<&PausedRun>,
    ) -> AgentResult<Option<Answering>> {
        Ok(None)
    }
    fn done(run: RunOutput, _: Option<Answering>) -> AgentResult<RunOutput> {
        Ok(run)
    }
    fn outcome(outcome: RunOutcome, _: Option<Answering>) -> AgentResult<RunOutcome> {
        Ok(outcome)
    }
}

impl<T> AnswerKind for Typed<T>
where
    T: DeserializeOwned + JsonSchema + Send + 'static,
{
    type Done = TypedOutput<T>;
    type Outcome = TypedOutcome<T>;
    fn answering(
        agent: &PhiAgent,
        options: &AnswerOptions,
        resumed: Option<&PausedRun>,
    ) -> AgentResult<Option<Answering>> {
        let refused = resumed
            .and_then(|paused| paused.answer.as_ref())
            .map_or(0, |note| note.refused);
        Ok(Some(answering::<T>(agent, options)?.resumed_with(refused)))
    }
    fn done(run: RunOutput, answering: Option<Answering>) -> AgentResult<TypedOutput<T>> {
        let mut answering = answering.ok_or_else(|| {
            AgentError::Internal("a typed run went without its answer's state".into())
        })?;
        Ok(TypedOutput {
            value: take_answer(&mut answering)?,
            run,
        })
    }
    fn outcome(outcome: RunOutcome, answering: Option<Answering>) -> AgentResult<TypedOutcome<T>> {
        Ok(match outcome {
            RunOutcome::Done(run) => TypedOutcome::Done(Self::done(run, answering)?),
            RunOutcome::Paused(paused) => TypedOutcome::Paused(paused),
        })
    }
}

/// What a run in this mode returns for the answer kind `A`.
pub trait OutputFor<A: AnswerKind>: Policy {
    /// What awaiting the request returns (inside [`AgentResult`]).
    type Output: Send;
    /// The output of the loop's `outcome`.
    fn output(outcome: Self::Outcome, answering: Option<Answering>) -> AgentResult<Self::Output>;
}

impl<A: AnswerKind> OutputFor<A> for Inline {
    type Output = A::Done;
    fn output(run: RunOutput, answering: Option<Answering>) -> AgentResult<A::Done> {
        A::done(run, answering)
    }
}

impl<A: AnswerKind> OutputFor<A> for Pausing {
    type Output = A::Outcome;
    fn output(outcome: RunOutcome, answering: Option<Answering>) -> AgentResult<A::Outcome> {
        A::outcome(outcome, answering)
    }
}

//! The agent: a model, its tools, and the loop between them.
//!
//! # A run: a plan and a few named steps
//!
//! A run is built once from its inputs and a **plan** (`plan.rs`), resolved before turn 1: the
//! approval policy (ask the approver inline, or pause; as a type, so a run that asks has no
//! paused outcome), the search mode (the session's `Auto` threshold decided there, on its first
//! run), early start (with its exclusions written once), and the answer mode (plain, or a typed
//! answer). Then a short loop (`run/mod.rs`) drives each turn through named steps:
//!
//! | step | owns |
//! |---|---|
//! | ask the model (`run/ask.rs`) | the tool list per search mode, the answer tool, the request, its span and step key, stream or complete, native search reveals, calls ready early; the reply's calls enter (defused) here |
//! | judge the reply (`answer.rs`) | a typed run's answer: accepted, refused, retried |
//! | settle the calls (`run/settle.rs`) | which calls need approval; asked inline or paused, the others run meanwhile |
//! | run the calls (`run/calls.rs`, `run/early.rs`) | each call as a step with its replay check; `search_tools` |
//! | close the turn (`run/state.rs`) | the only writer of the transcript and the records; the retry budget; finish and pause |
//!
//! The session's mutable part (`conversation.rs`: id, history, active tools, tool list, search
//! mode) is a value a run borrows; it changes only when the run is done.
//!
//! # One front door
//!
//! Every run starts as a [`RunRequest`]: `prompt(input)` on a [`PhiAgent`] (a fresh session) or
//! an [`AgentSession`] (that conversation), where `input` is a message or a decided
//! [`PausedRun`] to resume. `.typed::<T>()`, `.pausing()` and `.options(..)` change it (its type
//! says what it returns); awaiting it runs it, `.stream()` streams it. Eight public methods start
//! or resume a run:
//!
//! | method | what it is |
//! |---|---|
//! | [`PhiAgent::prompt`], [`AgentSession::prompt`] | the request |
//! | [`PhiAgent::resume`] | `prompt(paused).pausing()` |
//! | [`RunRequest::stream`] | the request as events, the last one holding its output |
//! | [`PhiAgent::run`], [`PhiAgent::start`], [`PhiAgent::run_stream`], [`PhiAgent::run_typed`] | `prompt(input)` awaited, `.pausing()` awaited, `.stream()`, `.typed::<T>()` awaited |
//!
//! A paused run resumes in a session with `session.prompt(paused)` (add `.pausing()` to let it
//! pause again); without `.pausing()`, the calls after the paused turn that need approval go to
//! the approver.

mod answer;
mod approval;
mod asking;
mod builder;
mod config;
mod context_policy;
mod conversation;
mod events;
mod loop_guard;
mod nested;
mod output;
mod paused;
mod phi;
mod plan;
mod prefix;
mod question;
mod record;
mod request;
mod result_store;
mod resume_store;
mod retry_budget;
mod run;
mod session;
mod skills;
mod steering;
mod step;
mod stream;
mod talk;
mod tool_list;
mod typed;

#[cfg(feature = "cedar")]
pub use approval::CedarPolicy;
pub use approval::{
    Approval, ApprovalPolicy, ApprovalRequest, Approver, Decided, DecisionRule, Remember,
    RememberedDecision, Verdict,
};
pub use builder::{AgentBuilder, base_agent_builder};
pub use config::AgentConfig;
pub use context_policy::ContextPolicy;
pub use events::{AgentEvent, AgentObserver};
pub use loop_guard::LoopDetection;
pub use output::{RunOutcome, RunOutput};
pub use paused::{PausedRun, PendingCall};
pub use phi::PhiAgent;
pub use plan::{Inline, Pausing};
pub use prefix::PrefixChange;
pub use question::PendingQuestion;
pub use record::ToolCallRecord;
pub use request::{Plain, RunInput, RunOptions, RunRequest, Typed};
pub use result_store::{MemoryResultStore, READ_RESULT_TOOL_NAME, ResultStore};
pub use resume_store::{FileResumeStore, MemoryResumeStore, ResumeStore};
pub use session::AgentSession;
pub use steering::Steering;
pub use step::{InProcess, JournalExecutor, StepExecutor, StepFuture, StepOutput, ToolStep};
pub use stream::{RunStream, StreamEvent};
pub use talk::{ElicitationHandler, ElicitationRequest};
pub use typed::{AnswerMode, AnswerOptions, TypedOutcome, TypedOutput};

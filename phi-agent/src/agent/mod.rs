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
//! # Which method does what
//!
//! Every method below exists on [`AgentSession`] (in that conversation) and on [`PhiAgent`]
//! (in a fresh session); typed runs go through [`Typed`] (`typed::<T>()`), whose `run` and
//! `stream` the `run_typed*` methods call.
//!
//! | | to the answer (approver asked) | may pause | resume a paused run |
//! |---|---|---|---|
//! | plain, awaited | `run` | `start` | `resume` |
//! | plain, streamed | `run_stream` | `start_stream` | `resume_stream` |
//! | typed, awaited | `run_typed`, `run_typed_with`, `typed().run` | `typed().start` | `typed().resume` |
//! | typed, streamed | `run_typed_stream`, `typed().stream` | `typed().start_stream` | `typed().resume_stream` |

mod answer;
mod approval;
mod asking;
mod builder;
mod config;
mod conversation;
mod events;
mod loop_guard;
mod nested;
mod output;
mod paused;
mod phi;
mod plan;
mod question;
mod record;
mod retry_budget;
mod run;
mod session;
mod step;
mod stream;
mod talk;
mod tool_list;
mod typed;
mod typed_run;

pub use approval::{Approval, ApprovalRequest, Approver};
pub use builder::{AgentBuilder, base_agent_builder};
pub use config::AgentConfig;
pub use events::{AgentEvent, AgentObserver};
pub use loop_guard::LoopDetection;
pub use output::{RunOutcome, RunOutput};
pub use paused::{PausedRun, PendingCall};
pub use phi::PhiAgent;
pub use question::PendingQuestion;
pub use record::ToolCallRecord;
pub use session::AgentSession;
pub use step::{InProcess, JournalExecutor, StepExecutor, StepFuture, StepOutput, ToolStep};
pub use stream::{RunStream, StreamEvent};
pub use talk::{ElicitationHandler, ElicitationRequest};
pub use typed::{AnswerMode, AnswerOptions, TypedOutcome, TypedOutput};
pub use typed_run::Typed;

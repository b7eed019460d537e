//! A run as a stream of owned events: [`RunStream`], fed by the loop of `run/` through a
//! [`Sink`] and driven by its consumer. The loop sends only the events of a run in progress
//! ([`LiveEvent`], which cannot hold an output); the stream adds the last one, which carries what
//! the run returns, typed as its request's output.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::Stream;
use tokio::sync::mpsc;

use super::approval::Approval;
use super::output::RunOutput;
use crate::context::{LogLevel, Progress};
use crate::error::AgentResult;
use crate::llm::{ToolCall, Usage};
use crate::registry::ToolCallResult;

/// Events a run may hold before its consumer takes them. The run waits when they are all
/// taken, so a slow consumer slows the run instead of piling events up in memory.
const BUFFER: usize = 32;

/// One step of a streamed run ([`RunRequest::stream`](crate::RunRequest::stream)), owned so that
/// it can be sent anywhere. `O` is what the run returns, as awaiting its request would: a plain
/// run's [`RunOutput`] (the default), a typed run's [`TypedOutput`](crate::TypedOutput), or
/// for a run that may pause the outcome ([`RunOutcome`](crate::RunOutcome),
/// [`TypedOutcome`](crate::TypedOutcome)).
///
/// In order, a turn yields: the model's [`TextDelta`](Self::TextDelta)s and, per call,
/// [`ToolCallStarted`](Self::ToolCallStarted), its
/// [`ToolArgumentsDelta`](Self::ToolArgumentsDelta)s (the model may interleave the pieces of
/// several calls) and [`ToolCallReady`](Self::ToolCallReady) as soon as the stream shows the
/// call whole (the end of its block, the start of the next call), at the latest when the reply
/// is complete; then the tools run ([`ApprovalRequested`](Self::ApprovalRequested) and
/// [`ApprovalResolved`](Self::ApprovalResolved) for a call that needs approval,
/// [`ToolStarted`](Self::ToolStarted), [`ToolFinished`](Self::ToolFinished)), possibly
/// [`ToolsFound`](Self::ToolsFound) for the turn's searches and
/// [`ToolsActivated`](Self::ToolsActivated), and [`TurnFinished`](Self::TurnFinished). With
/// [`AgentConfig::early_tool_start`](crate::AgentConfig::early_tool_start), a ready call that
/// needs no approval starts (and may finish) while the model still writes the turn. The last
/// event of a successful run is [`Finished`](Self::Finished) with the run's output; a run that
/// pauses sends an [`ApprovalRequested`](Self::ApprovalRequested) for each call it waits on
/// before it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StreamEvent<O = RunOutput> {
    /// More of the model's text in `turn`. The deltas of the last turn concatenate to
    /// [`RunOutput::text`].
    TextDelta {
        /// The turn's number, from 1.
        turn: usize,
        /// The next piece of text.
        text: String,
    },
    /// The model begins a tool call.
    ToolCallStarted {
        /// The turn's number.
        turn: usize,
        /// The call's place among the turn's calls, from 0.
        index: usize,
        /// The call's id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More of a call's arguments, as JSON text: the deltas of one call concatenate to JSON
    /// that parses to the arguments of its [`ToolCallReady`](Self::ToolCallReady) (a call
    /// without arguments streams `{}`). Should a model write arguments that are not JSON, the
    /// call's arguments are that text as a JSON string, as in a plain run, and the model is told.
    ToolArgumentsDelta {
        /// The turn's number.
        turn: usize,
        /// The call's place among the turn's calls.
        index: usize,
        /// The call's id.
        id: String,
        /// The next piece of the arguments' JSON text.
        fragment: String,
    },
    /// This call is whole: its arguments are complete (no delta of it follows) and parsed,
    /// exactly as the whole reply holds them. It runs next (or awaits approval); with early
    /// start, perhaps before the model has finished the turn.
    ToolCallReady {
        /// The turn's number.
        turn: usize,
        /// The call: id, name and parsed arguments.
        call: ToolCall,
    },
    /// A call that needs approval is put to the agent's [`Approver`](crate::Approver) (denied
    /// when there is none).
    ApprovalRequested {
        /// The turn's number.
        turn: usize,
        /// The call.
        call: ToolCall,
    },
    /// A call that needed approval was decided: by the agent's [`Approver`](crate::Approver),
    /// by the decision given to a paused run, or denied because no one could be asked. Comes
    /// after the call's [`ApprovalRequested`](Self::ApprovalRequested) (for a resumed run, in
    /// the run that paused) and before it runs.
    ApprovalResolved {
        /// The turn's number.
        turn: usize,
        /// The call as the model made it.
        call: ToolCall,
        /// The decision.
        approval: Approval,
    },
    /// A tool starts running.
    ToolStarted {
        /// The turn's number.
        turn: usize,
        /// The call as the model made it.
        call: ToolCall,
    },
    /// A tool finished, successfully or not.
    ToolFinished {
        /// The turn's number.
        turn: usize,
        /// The call as the model made it.
        call: ToolCall,
        /// What the model will read, and whether it is an error.
        result: ToolCallResult,
        /// How long the call took.
        duration: Duration,
    },
    /// A running call reported progress ([`ToolContext::progress`](crate::ToolContext::progress)),
    /// between its [`ToolStarted`](Self::ToolStarted) and [`ToolFinished`](Self::ToolFinished).
    ToolProgress {
        /// The turn's number.
        turn: usize,
        /// The provider's id of the call.
        call_id: String,
        /// What the call reported.
        progress: Progress,
    },
    /// A running call wrote a log message ([`ToolContext::log`](crate::ToolContext::log)),
    /// between its [`ToolStarted`](Self::ToolStarted) and [`ToolFinished`](Self::ToolFinished).
    ToolLog {
        /// The turn's number.
        turn: usize,
        /// The provider's id of the call.
        call_id: String,
        /// How serious the message is.
        level: LogLevel,
        /// The message: a string, or any JSON.
        data: serde_json::Value,
    },
    /// Deferred tools became visible; the model sees them from the next turn on.
    ToolsActivated {
        /// The turn after which they were activated (0: before the first turn).
        turn: usize,
        /// Their names, in registration order.
        names: Vec<&'static str>,
    },
    /// A tool search found tools: the model's `search_tools` (callable from the next turn on,
    /// announced by [`ToolsActivated`](Self::ToolsActivated) if they were hidden) or the
    /// provider's own search (callable at once).
    ToolsFound {
        /// The turn of the search.
        turn: usize,
        /// The model's query.
        query: String,
        /// Every tool the search returned, best first.
        names: Vec<&'static str>,
    },
    /// A person's message ([`Steering`](crate::Steering)) was taken in; the turn's model request
    /// carries it, after the previous turn's results.
    Steered {
        /// The turn whose request carries it.
        turn: usize,
        /// The message.
        text: String,
    },
    /// A turn is over: the model replied and the calls it made have their results.
    TurnFinished {
        /// The turn's number.
        turn: usize,
        /// Tokens the turn's model request used.
        usage: Usage,
    },
    /// The run is over, with what awaiting its request returns (for a run that may pause,
    /// perhaps [`Paused`](crate::RunOutcome::Paused): decide its calls and resume it); nothing
    /// follows.
    Finished(Box<O>),
}

/// An event of a run in progress, as the loop sends it: never the last one.
pub(super) type LiveEvent = StreamEvent<Infallible>;

impl LiveEvent {
    /// This event in a stream whose last event carries an `O`.
    fn widen<O>(self) -> StreamEvent<O> {
        match self {
            StreamEvent::TextDelta { turn, text } => StreamEvent::TextDelta { turn, text },
            StreamEvent::ToolCallStarted {
                turn,
                index,
                id,
                name,
            } => StreamEvent::ToolCallStarted {
                turn,
                index,
                id,
                name,
            },
            StreamEvent::ToolArgumentsDelta {
                turn,
                index,
                id,
                fragment,
            } => StreamEvent::ToolArgumentsDelta {
                turn,
                index,
                id,
                fragment,
            },
            StreamEvent::ToolCallReady { turn, call } => StreamEvent::ToolCallReady { turn, call },
            StreamEvent::ApprovalRequested { turn, call } => {
                StreamEvent::ApprovalRequested { turn, call }
            }
            StreamEvent::ApprovalResolved {
                turn,
                call,
                approval,
            } => StreamEvent::ApprovalResolved {
                turn,
                call,
                approval,
            },
            StreamEvent::ToolStarted { turn, call } => StreamEvent::ToolStarted { turn, call },
            StreamEvent::ToolFinished {
                turn,
                call,
                result,
                duration,
            } => StreamEvent::ToolFinished {
                turn,
                call,
                result,
                duration,
            },
            StreamEvent::ToolProgress {
                turn,
                call_id,
                progress,
            } => StreamEvent::ToolProgress {
                turn,
                call_id,
                progress,
            },
            StreamEvent::ToolLog {
                turn,
                call_id,
                level,
                data,
            } => StreamEvent::ToolLog {
                turn,
                call_id,
                level,
                data,
            },
            StreamEvent::ToolsActivated { turn, names } => {
                StreamEvent::ToolsActivated { turn, names }
            }
            StreamEvent::ToolsFound { turn, query, names } => {
                StreamEvent::ToolsFound { turn, query, names }
            }
            StreamEvent::Steered { turn, text } => StreamEvent::Steered { turn, text },
            StreamEvent::TurnFinished { turn, usage } => StreamEvent::TurnFinished { turn, usage },
            StreamEvent::Finished(never) => match *never {},
        }
    }
}

/// Where the loop puts its stream events; off for runs that are not streamed.
pub(super) struct Sink(Option<mpsc::Sender<LiveEvent>>);

impl Sink {
    pub(super) fn off() -> Self {
        Sink(None)
    }

    pub(super) fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// A handle on the stream for what the run's tools say while they run.
    pub(super) fn sender(&self) -> Option<mpsc::Sender<LiveEvent>> {
        self.0.clone()
    }

    /// Hands `event()` to the consumer, waiting while the buffer is full; builds nothing when
    /// off, so a plain run pays no copies.
    pub(super) async fn send(&self, event: impl FnOnce() -> LiveEvent) {
        if let Some(sender) = &self.0 {
            // The receiver lives as long as the run (both are owned by the stream), so a send
            // cannot fail while anyone listens.
            let _ = sender.send(event()).await;
        }
    }
}

type Run<'a, O> = Pin<Box<dyn Future<Output = AgentResult<O>> + Send + 'a>>;

/// A run in progress, as a [`Stream`] of [`StreamEvent`]s; made by
/// [`RunRequest::stream`](crate::RunRequest::stream) (and
/// [`PhiAgent::run_stream`](crate::PhiAgent::run_stream)). `O` is what the run returns, as
/// awaiting its request would.
///
/// The run advances only while the stream is polled, and holds at most a few events ahead of
/// its consumer. Its last item is `Ok(StreamEvent::Finished(output))` or the error that ended
/// the run; then the stream ends. Dropping it cancels the run: the model request is abandoned,
/// and running tools are dropped and see their
/// [`ToolContext::cancellation`](crate::ToolContext::cancellation) fire.
#[must_use = "a stream does nothing unless polled"]
pub struct RunStream<'a, O = RunOutput> {
    run: Option<Run<'a, O>>,
    events: mpsc::Receiver<LiveEvent>,
    /// The run's result, yielded once the events before it are taken.
    last: Option<AgentResult<O>>,
}

impl<'a, O> RunStream<'a, O> {
    /// A stream over the run `start` builds around its sink.
    pub(super) fn new<F>(start: impl FnOnce(Sink) -> F) -> Self
    where
        F: Future<Output = AgentResult<O>> + Send + 'a,
    {
        let (sender, events) = mpsc::channel(BUFFER);
        Self {
            // The only sender moves into the run, so the channel closes when the run is over.
            run: Some(Box::pin(start(Sink(Some(sender))))),
            events,
            last: None,
        }
    }

    /// The next event, or `None` after the last: [`StreamExt::next`](futures_util::StreamExt::next)
    /// without importing it, so a streamed run needs no `futures-util` in the caller's manifest.
    ///
    /// ```
    /// # use phi_agent::{base_agent_builder, AgentConfig, PhiAgent, StreamEvent};
    /// # use phi_agent::llm::{LlmResponse, ScriptedLlm};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> phi_agent::AgentResult<()> {
    /// let llm = ScriptedLlm::new([LlmResponse::text("hello")]);
    /// let agent = PhiAgent::build(base_agent_builder(llm), AgentConfig::default())?;
    /// let mut events = agent.run_stream("hi");
    /// let mut text = String::new();
    /// while let Some(event) = events.next().await {
    ///     if let StreamEvent::TextDelta { text: piece, .. } = event? {
    ///         text.push_str(&piece);
    ///     }
    /// }
    /// assert_eq!(text, "hello");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn next(&mut self) -> Option<AgentResult<StreamEvent<O>>> {
        futures_util::StreamExt::next(self).await
    }

    /// The run's result, yielded once the events before it are taken, as the last event.
    fn last(&mut self) -> Option<AgentResult<StreamEvent<O>>> {
        self.last
            .take()
            .map(|result| result.map(|output| StreamEvent::Finished(Box::new(output))))
    }
}

// The stream holds no `O` until the run is over, and never pins one: it moves freely.
impl<O> Unpin for RunStream<'_, O> {}

impl<O> Stream for RunStream<'_, O> {
    type Item = AgentResult<StreamEvent<O>>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            match this.events.poll_recv(cx) {
                Poll::Ready(Some(event)) => return Poll::Ready(Some(Ok(event.widen()))),
                Poll::Ready(None) => return Poll::Ready(this.last()),
                Poll::Pending => {}
            }
            // Every event sent so far is taken: the run may go on.
            let Some(run) = this.run.as_mut() else {
                return Poll::Ready(this.last());
            };
            match run.as_mut().poll(cx) {
                Poll::Ready(result) => {
                    this.last = Some(result);
                    // Dropping the run drops the sender: the loop drains what is left, then
                    // yields the result.
                    this.run = None;
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl<O> fmt::Debug for RunStream<'_, O> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunStream")
            .field("running", &self.run.is_some())
            .field("buffered", &self.events.len())
            .finish_non_exhaustive()
    }
}

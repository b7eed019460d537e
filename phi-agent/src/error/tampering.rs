//! What a resume found changed in a stored [`PausedRun`](crate::PausedRun) since a person decided
//! its calls or the agent signed it: the reason of [`AgentError::Tampered`](crate::AgentError::Tampered).

use std::fmt;

/// What changed in a stored paused run, found before anything of it ran.
///
/// Each variant names the call or the part of the stored run, so that whoever looks after the
/// storage can find what was edited.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Tampering {
    /// The decided call's id or tool name is not the one the person decided.
    Tool {
        /// The call's id, as stored now.
        call: String,
    },
    /// The decided call's arguments are not the ones the person was shown.
    Arguments {
        /// The call's id.
        call: String,
    },
    /// The program that made the decided call (code mode: the model's call that runs it again,
    /// its text, and the call's place in it) is not the one the person was shown; or, as it
    /// ran again, it made another call in that place.
    Program {
        /// The decided call's id.
        call: String,
    },
    /// A decision carries no record of what it was made on: it was written into the stored
    /// run rather than made with [`PausedRun::decide`](crate::PausedRun::decide) and the others.
    Unbound {
        /// The call's id.
        call: String,
    },
    /// A part of the run that the agent signed no longer matches its signature: `part` is the
    /// stored run's field (`transcript`: the history and the turns so far; `tool_calls`: the
    /// earlier calls; `calls/<i>`: the paused turn's `i`-th call, a result that ran or a pending
    /// call and what its program called before; `id`, `turn`, ...).
    Signed {
        /// The field of the stored run.
        part: String,
    },
    /// The agent has a signing key and the stored run carries no signature (written by an
    /// agent without the key, or stripped).
    Unsigned,
    /// The stored run is signed and this agent has no key to check it with: resume it on an
    /// agent built with the same [`AgentBuilder::signing_key`](crate::AgentBuilder::signing_key).
    NoKey,
}

impl fmt::Display for Tampering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tampering::Tool { call } => write!(
                f,
                "the call `{call}` is not the call that was decided (its id or tool changed since the decision)"
            ),
            Tampering::Arguments { call } => write!(
                f,
                "the arguments of the call `{call}` changed since it was decided"
            ),
            Tampering::Program { call } => write!(
                f,
                "the program that makes the call `{call}` changed since the call was decided"
            ),
            Tampering::Unbound { call } => write!(
                f,
                "the decision about the call `{call}` was not made on this paused run (decide with `PausedRun::approve` and the others, not by editing the stored JSON)"
            ),
            Tampering::Signed { part } => write!(
                f,
                "`{part}` of the stored run changed since the agent signed it"
            ),
            Tampering::Unsigned => write!(
                f,
                "the stored run is not signed, and this agent has a signing key"
            ),
            Tampering::NoKey => write!(
                f,
                "the stored run is signed, and this agent has no signing key to check it with; resume it on an agent built with the same `signing_key`"
            ),
        }
    }
}

//! The cancellation token of one call: its own, or made from its parent's on first use.

use std::sync::OnceLock;

use tokio_util::sync::CancellationToken;

/// The token of one call. A `CancellationToken` is a node of a tree behind a mutex: cloning one
/// or making a child locks it, so a call's token is made only when something asks for it, and a
/// call of a run does not even hold its parent (the run's token sits in the context's shared
/// part, see [`Parent::Run`]).
#[derive(Debug)]
pub(super) struct CallToken {
    parent: Parent,
    token: OnceLock<CancellationToken>,
}

/// What a call's token is made from when it is first asked for.
#[derive(Debug)]
enum Parent {
    /// Nothing: the token was given.
    None,
    /// This token, held by the call.
    Held(CancellationToken),
    /// The run's token, which the context's shared part holds: nothing to clone per call.
    Run,
}

impl CallToken {
    /// The given token.
    pub(super) fn own(token: CancellationToken) -> Self {
        Self {
            parent: Parent::None,
            token: OnceLock::from(token),
        }
    }

    /// A child of `parent`, made on first use.
    pub(super) fn under(parent: &CancellationToken) -> Self {
        Self {
            parent: Parent::Held(parent.clone()),
            token: OnceLock::new(),
        }
    }

    /// A child of the run's token, made on first use.
    pub(super) fn in_run() -> Self {
        Self {
            parent: Parent::Run,
            token: OnceLock::new(),
        }
    }

    /// The token, made now if it was not yet; `run` is the run's token, if the context has one.
    pub(super) fn token(&self, run: Option<&CancellationToken>) -> &CancellationToken {
        self.token.get_or_init(|| match (&self.parent, run) {
            (Parent::Held(parent), _) | (Parent::Run, Some(parent)) => parent.child_token(),
            // A context without a run has nothing to be cancelled with.
            (Parent::Run, None) | (Parent::None, _) => CancellationToken::new(),
        })
    }

    /// A token not made yet is cancelled exactly when its parent is: only the call's own token
    /// can be cancelled apart from the parent, and cancelling it makes it.
    pub(super) fn is_cancelled(&self, run: Option<&CancellationToken>) -> bool {
        match (self.token.get(), &self.parent) {
            (Some(token), _) => token.is_cancelled(),
            (None, Parent::Held(parent)) => parent.is_cancelled(),
            (None, Parent::Run) => run.is_some_and(CancellationToken::is_cancelled),
            (None, Parent::None) => false,
        }
    }

    /// A copy that shares the call's token (so a timeout that cancels it reaches the copy, which
    /// a blocking tool holds): the token is made now if it was not yet.
    pub(super) fn share(&self, run: Option<&CancellationToken>) -> Self {
        Self::own(self.token(run).clone())
    }
}

//! The admission of a limited tool's calls ([`ToolLimits::concurrency`] and
//! [`ToolLimits::rate`]), keyed by the call's session id: an agent's sessions each have their
//! own, and an MCP server, whose calls all share the server's context, has one for the server.
//!
//! The rate is a sliding window kept as the instants of the last `calls` admissions rather
//! than `governor`'s GCRA: GCRA spreads a rate evenly after a burst, so `"10/s"` would admit an
//! 11th call 100 ms after the first ten, while the window admits none until a second has
//! passed since the first, which is what `"10/s"` reads as to a person and to the model. The
//! window also reads tokio's clock, so a test with paused time drives it.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::error::AgentError;
use crate::tool::{Rate, ToolLimits};

/// How many sessions' state a tool keeps before it drops that of sessions with no call running
/// and none in their window: the map stays as large as the sessions in use, not all that were.
const PRUNE_AT: usize = 256;

/// One limited tool's admission state, shared by every clone of its registry entry.
pub(super) struct Limiter {
    limits: ToolLimits,
    sessions: Mutex<HashMap<Box<str>, Slot>>,
}

/// One session's state for one tool.
struct Slot {
    /// The calls that may run at once; `None` when the tool sets no bound.
    permits: Option<Arc<Semaphore>>,
    /// The instants of the last admissions, oldest first, at most the rate's `calls`.
    recent: VecDeque<Instant>,
}

/// What an admitted call holds while it runs: its place among the calls at once, if the tool
/// bounds them.
pub(super) struct Admitted(#[allow(dead_code)] Option<OwnedSemaphorePermit>);

impl Limiter {
    /// The limiter of `limits`; `None` when they admit every call (no bound, no rate), so that
    /// a tool without limits costs its calls nothing.
    pub(super) fn of(limits: ToolLimits) -> Option<Arc<Self>> {
        limits.admits().then(|| {
            Arc::new(Self {
                limits,
                sessions: Mutex::default(),
            })
        })
    }

    /// Admits a call of `tool` in `session`: refused at once past the rate (with when to
    /// retry), else once fewer than the bound of its calls run in the session.
    pub(super) async fn admit(&self, tool: &str, session: &str) -> Result<Admitted, AgentError> {
        let permits = {
            let mut sessions = self
                .sessions
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let now = Instant::now();
            if !sessions.contains_key(session) && sessions.len() >= PRUNE_AT {
                self.prune(&mut sessions, now);
            }
            let slot = sessions.entry(Box::from(session)).or_insert_with(|| Slot {
                permits: self
                    .limits
                    .concurrency
                    .map(|calls| Arc::new(Semaphore::new(calls.get()))),
                recent: VecDeque::new(),
            });
            if let Some(rate) = self.limits.rate {
                count(&mut slot.recent, rate, now).map_err(|wait| AgentError::RateLimited {
                    tool: tool.to_string(),
                    rate: rate.to_string(),
                    retry_after_ms: u64::try_from(wait.as_nanos().div_ceil(1_000_000))
                        .unwrap_or(u64::MAX),
                })?;
            }
            slot.permits.clone()
        };
        match permits {
            // Never closed: the semaphore is ours and nothing closes it.
            Some(permits) => Ok(Admitted(permits.acquire_owned().await.ok())),
            None => Ok(Admitted(None)),
        }
    }

    /// Drops the state of sessions with no call running and no admission in their window.
    fn prune(&self, sessions: &mut HashMap<Box<str>, Slot>, now: Instant) {
        let window = self.limits.rate.map(|rate| rate.per());
        let bound = self.limits.concurrency.map(|calls| calls.get());
        sessions.retain(|_, slot| {
            let running = match (&slot.permits, bound) {
                (Some(permits), Some(bound)) => permits.available_permits() < bound,
                _ => false,
            };
            let counting = match (slot.recent.back(), window) {
                (Some(&last), Some(window)) => now.duration_since(last) < window,
                _ => false,
            };
            running || counting
        });
    }
}

/// Counts an admission at `now` in the window `recent` of `rate`; `Err(wait)` when the window
/// is full, `wait` being how long until its oldest admission leaves it.
fn count(
    recent: &mut VecDeque<Instant>,
    rate: Rate,
    now: Instant,
) -> Result<(), std::time::Duration> {
    let per = rate.per();
    if recent.len() >= rate.calls() as usize
        && let Some(&oldest) = recent.front()
    {
        let age = now.duration_since(oldest);
        if age < per {
            return Err(per - age);
        }
        recent.pop_front();
    }
    recent.push_back(now);
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::num::{NonZeroU32, NonZeroUsize};
    use std::time::Duration;

    use super::*;

    fn limiter(limits: ToolLimits) -> Arc<Limiter> {
        Limiter::of(limits).expect("limits that admit")
    }

    #[test]
    fn no_limits_no_limiter() {
        assert!(Limiter::of(ToolLimits::default()).is_none());
        assert!(Limiter::of(ToolLimits::default().sequential()).is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn the_window_slides() {
        let rate = Rate::per_second(NonZeroU32::new(3).unwrap());
        let limiter = limiter(ToolLimits::default().with_rate(rate));
        for _ in 0..3 {
            limiter.admit("t", "a").await.expect("within the rate");
            tokio::time::advance(Duration::from_millis(100)).await;
        }
        let Err(AgentError::RateLimited { retry_after_ms, .. }) = limiter.admit("t", "a").await
        else {
            panic!("the fourth call within a second was admitted");
        };
        assert_eq!(
            retry_after_ms, 700,
            "the first call leaves the window at 1 s"
        );
        limiter
            .admit("t", "b")
            .await
            .expect("another session has its own window");
        tokio::time::advance(Duration::from_millis(700)).await;
        limiter
            .admit("t", "a")
            .await
            .expect("the first call left the window");
        assert!(limiter.admit("t", "a").await.is_err(), "the second has not");
    }

    #[tokio::test(start_paused = true)]
    async fn idle_sessions_are_pruned() {
        let limits = ToolLimits::default()
            .with_rate(Rate::per_second(NonZeroU32::new(1).unwrap()))
            .with_concurrency(NonZeroUsize::new(1).unwrap());
        let limiter = limiter(limits);
        let held = limiter.admit("t", "busy").await.expect("admitted");
        for session in 0..PRUNE_AT {
            drop(limiter.admit("t", &session.to_string()).await);
        }
        tokio::time::advance(Duration::from_secs(2)).await;
        drop(limiter.admit("t", "new").await);
        let sessions = limiter.sessions.lock().unwrap();
        assert_eq!(
            sessions.len(),
            2,
            "the busy session and the new one are kept"
        );
        assert!(sessions.contains_key("busy") && sessions.contains_key("new"));
        drop(held);
    }
}

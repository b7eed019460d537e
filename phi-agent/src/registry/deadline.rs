//! A timeout that costs nothing for tools that finish without waiting.
//!
//! `tokio::time::timeout` reads the clock and the runtime's timer handle up front, on every call.
//! Most tool calls complete on their first poll, so this future arms its timer only when the tool
//! first returns `Pending`; the limit counts from that moment. The first poll is synchronous work
//! that no timer could interrupt anyway.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::Sleep;

/// The inner future did not finish within its limit.
pub(crate) struct Elapsed;

/// Runs `future` with a limit of `limit`, arming the timer only once the future waits.
pub(crate) fn with_deadline<F: Future + Unpin>(limit: Duration, future: F) -> Deadline<F> {
    Deadline {
        future,
        limit,
        timer: None,
    }
}

/// See [`with_deadline`].
pub(crate) struct Deadline<F> {
    future: F,
    limit: Duration,
    timer: Option<Pin<Box<Sleep>>>,
}

impl<F: Future + Unpin> Future for Deadline<F> {
    type Output = Result<F::Output, Elapsed>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        if let Poll::Ready(output) = Pin::new(&mut this.future).poll(cx) {
            return Poll::Ready(Ok(output));
        }
        let limit = this.limit;
        let timer = this
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        timer.as_mut().poll(cx).map(|()| Err(Elapsed))
    }
}

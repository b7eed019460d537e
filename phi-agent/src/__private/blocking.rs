//! Running a non-async `#[phi_tool]` fn without blocking the async workers.

/// Runs a non-async tool fn on tokio's blocking pool, so it cannot stall the async workers.
///
/// A panic in `f` is resumed in the awaiting task, where the registry's panic guard turns it into
/// [`AgentError::ToolPanicked`](crate::AgentError::ToolPanicked).
pub async fn run_blocking<F, R>(f: F) -> R
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(value) => value,
        Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        Err(_) => std::panic::panic_any("the blocking task of the tool was cancelled".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use futures_util::FutureExt;

    use super::*;

    #[tokio::test]
    async fn a_blocking_panic_resumes_in_the_awaiting_task() {
        assert_eq!(run_blocking(|| 6 * 7).await, 42);
        let caught = std::panic::AssertUnwindSafe(run_blocking(|| -> u8 { panic!("boom") }))
            .catch_unwind()
            .await
            .expect_err("the panic reaches the caller");
        assert_eq!(caught.downcast_ref::<&str>(), Some(&"boom"));
    }
}

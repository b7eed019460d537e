//! Where an agent marks the paused runs it resumed, so that each resumes once: the
//! [`ResumeStore`] trait and its two implementations, in memory and in a directory.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;

use crate::error::{AgentError, AgentResult};

/// Marks paused runs resumed, once each, atomically: the agent marks a
/// [`PausedRun`](crate::PausedRun) (by its [`id`](crate::PausedRun::id)) after checking it and
/// before any of it runs, and refuses a run already marked with
/// [`AgentError::AlreadyResumed`]. Set it with
/// [`AgentBuilder::resume_store`](crate::AgentBuilder::resume_store); the default is a
/// [`MemoryResumeStore`] of the agent's own.
///
/// An implementation marks `run` only if it is not marked yet, in one atomic step (two
/// resumes racing, in two tasks or two processes, must not both see it unmarked): a database's
/// `INSERT` under a unique key, a compare-and-set, a file created with `create_new`.
///
/// A run is marked before it runs, so a resume that fails later (the model's service down) is
/// not resumed again: resuming is at most once. What a tool did before such a failure, it did;
/// give its side effects the call's idempotency key
/// ([`PendingCall::idempotency_key`](crate::PendingCall::idempotency_key)).
///
/// ```
/// use phi_agent::{MemoryResumeStore, ResumeStore};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> phi_agent::AgentResult<()> {
/// let store = MemoryResumeStore::default();
/// assert!(store.mark_resumed("run-1").await?, "the first resume goes ahead");
/// assert!(!store.mark_resumed("run-1").await?, "the second is refused");
/// # Ok(())
/// # }
/// ```
#[async_trait]
pub trait ResumeStore: Send + Sync {
    /// Marks the paused run `run` resumed: `Ok(true)` when it was not marked before (the
    /// resume goes ahead), `Ok(false)` when it was (the resume is refused). An error refuses
    /// the resume as well.
    async fn mark_resumed(&self, run: &str) -> AgentResult<bool>;
}

/// A [`ResumeStore`] in the process's memory: each run resumes once on the agents that share
/// it (the agent's default, shared by its clones and sessions), and again after a restart or
/// on another process. The ids it keeps grow with every resume, about 40 bytes each.
#[derive(Debug, Default)]
pub struct MemoryResumeStore {
    resumed: Mutex<HashSet<String>>,
}

#[async_trait]
impl ResumeStore for MemoryResumeStore {
    async fn mark_resumed(&self, run: &str) -> AgentResult<bool> {
        let mut resumed = self.resumed.lock().unwrap_or_else(PoisonError::into_inner);
        Ok(resumed.insert(run.to_string()))
    }
}

/// A [`ResumeStore`] in a directory: resuming run `id` creates the file `<dir>/<id>`, which
/// fails if it exists (`create_new`, one atomic step of the file system), so each run resumes
/// once across processes and restarts that share the directory. Run ids are checked before
/// they become file names (letters, digits, `-` and `_`, at most 128).
///
/// ```
/// use phi_agent::{FileResumeStore, ResumeStore};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> phi_agent::AgentResult<()> {
/// let dir = std::env::temp_dir().join(format!("phi-resumed-doc-{}", std::process::id()));
/// let store = FileResumeStore::new(&dir);
/// assert!(store.mark_resumed("run-1").await?);
/// assert!(!FileResumeStore::new(&dir).mark_resumed("run-1").await?, "another store, same directory");
/// assert!(store.mark_resumed("../escape").await.is_err());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct FileResumeStore {
    dir: PathBuf,
}

impl FileResumeStore {
    /// The store in `dir`, created on the first resume if need be.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }
}

#[async_trait]
impl ResumeStore for FileResumeStore {
    async fn mark_resumed(&self, run: &str) -> AgentResult<bool> {
        if !is_file_safe(run) {
            return Err(AgentError::Resume {
                reason: format!(
                    "the paused run's id `{run}` is not one phi-agent writes (letters, digits, `-` and `_`); the state is damaged"
                ),
            });
        }
        let path = self.dir.join(run);
        let dir = self.dir.clone();
        let created = tokio::task::spawn_blocking(move || {
            std::fs::create_dir_all(&dir)?;
            let file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path);
            match file {
                Ok(file) => file.sync_all().map(|()| true),
                Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
                Err(error) => Err(error),
            }
        })
        .await;
        match created {
            Ok(Ok(created)) => Ok(created),
            Ok(Err(error)) => Err(AgentError::Resume {
                reason: format!(
                    "could not mark the run resumed in `{}`: {error}",
                    self.dir.display()
                ),
            }),
            Err(error) => Err(AgentError::Resume {
                reason: format!("could not mark the run resumed: {error}"),
            }),
        }
    }
}

/// Whether `id` may name a file: what [`PausedRun`](crate::PausedRun)'s ids are made of.
pub(super) fn is_file_safe(id: &str) -> bool {
    (1..=128).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

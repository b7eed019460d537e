//! Where the models are: `PHI_AGENT_EMBED_MODEL`, the wordllama package directory that
//! `scripts/install-embed-model.sh` prints, and `PHI_AGENT_SENTENCE_MODEL`, the all-MiniLM-L6-v2
//! directory that `scripts/install-sentence-model.sh` prints, and `PHI_AGENT_TOOL_MODEL`, the static
//! model trained for tool search that `scripts/install-tool-search-model.sh` builds from the first
//! (`train/train.py`; `.ci/run` sets all three). Outside CI a
//! missing model skips what needs it, with a message; in CI (`CI` set) it fails, so that the
//! hybrid tests cannot silently not run.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use phi_agent_embed::{SentenceEmbedder, StaticEmbedder};

use crate::sets::HeldOut;

/// The directory in `var`, or `None` (with the reason printed) when it is unset outside CI.
///
/// # Panics
///
/// When it is unset in CI.
fn dir(var: &str, script: &str) -> Option<PathBuf> {
    let Some(dir) = std::env::var_os(var).map(PathBuf::from) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "{var} is not set, and CI must run the model's tests: export {var}=\"$({script})\""
        );
        eprintln!("skipped: no model (export {var}=\"$({script})\" to run this test)");
        return None;
    };
    Some(dir)
}

/// The static model, or `None` when it is not installed outside CI.
///
/// # Panics
///
/// When it is not installed in CI, or does not load.
pub fn model() -> Option<StaticEmbedder> {
    let dir = dir("PHI_AGENT_EMBED_MODEL", "scripts/install-embed-model.sh")?;
    Some(StaticEmbedder::load(&dir).unwrap_or_else(|error| panic!("{error}")))
}

/// The static model trained for tool search (`train/train.py`), or `None` when it is not built
/// outside CI.
///
/// # Panics
///
/// When it is not built in CI, or does not load.
pub fn trained_model() -> Option<StaticEmbedder> {
    let dir = dir(
        "PHI_AGENT_TOOL_MODEL",
        "scripts/install-tool-search-model.sh",
    )?;
    Some(StaticEmbedder::load(&dir).unwrap_or_else(|error| panic!("{error}")))
}

/// The tuning questions a fusion for the trained model may be chosen on: of a set it was
/// trained on (one its `validation.json` names), the validation slice; of a set it never saw
/// (LiveMCPBench), the whole tuning part, so that a fusion that helps the trained sets cannot
/// quietly cost the unseen one.
#[derive(Debug, Default)]
pub struct UnseenByTraining {
    trained_sets: HashSet<String>,
    held: HashSet<String>,
}

impl UnseenByTraining {
    /// Read from the trained model's `validation.json`; keeps every question when the model is
    /// not built.
    ///
    /// # Panics
    ///
    /// As [`validation_questions`].
    pub fn load() -> Self {
        let file = validation_file();
        Self {
            trained_sets: file.keys().cloned().collect(),
            held: file.into_values().flatten().collect(),
        }
    }

    /// Drops from `set` the questions the trained model was trained on.
    pub fn keep(&self, set: &mut HeldOut) {
        if self.trained_sets.contains(&set.name) {
            set.queries.retain(|q| self.held.contains(&q.text));
        }
    }
}

/// The tuning questions the trained model was not trained on, where a fusion for it may be
/// chosen. Empty when the model is not built.
///
/// # Panics
///
/// When the file is missing or malformed in a built model (rebuild it with the script).
pub fn validation_questions() -> HashSet<String> {
    validation_file().into_values().flatten().collect()
}

/// The trained model's `validation.json`: per set it was trained on, the questions' texts it kept
/// aside.
fn validation_file() -> HashMap<String, Vec<String>> {
    let Some(dir) = std::env::var_os("PHI_AGENT_TOOL_MODEL").map(PathBuf::from) else {
        return HashMap::new();
    };
    let path = dir.join("validation.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The sentence-transformer, or `None` when it is not installed outside CI.
///
/// # Panics
///
/// When it is not installed in CI, or does not load.
pub fn sentence_model() -> Option<SentenceEmbedder> {
    let dir = dir(
        "PHI_AGENT_SENTENCE_MODEL",
        "scripts/install-sentence-model.sh",
    )?;
    Some(SentenceEmbedder::load(&dir).unwrap_or_else(|error| panic!("{error}")))
}

/// The sentence model run on every core: the tables embed thousands of tool texts.
pub fn on_every_core(model: SentenceEmbedder) -> SentenceEmbedder {
    model.with_threads(std::thread::available_parallelism().map_or(1, usize::from))
}

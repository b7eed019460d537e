//! Where the tests find the models: `PHI_AGENT_EMBED_MODEL`, the wordllama package directory that
//! `scripts/install-embed-model.sh` prints, and `PHI_AGENT_SENTENCE_MODEL`, the all-MiniLM-L6-v2
//! directory that `scripts/install-sentence-model.sh` prints (`.ci/run` sets both). Outside CI a
//! missing model skips a test with a message; in CI (`CI` set) it fails, so that the tests
//! cannot silently not run.

// Each test target uses one or both loaders.
#![allow(dead_code)]

use std::path::PathBuf;

use phi_agent_embed::{SentenceEmbedder, StaticEmbedder};

/// The directory in `var`, or `None` (with the reason printed) when it is unset outside CI.
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
pub fn model() -> Option<StaticEmbedder> {
    let dir = dir("PHI_AGENT_EMBED_MODEL", "scripts/install-embed-model.sh")?;
    Some(StaticEmbedder::load(&dir).unwrap_or_else(|error| panic!("{error}")))
}

/// The sentence-transformer, or `None` when it is not installed outside CI.
pub fn sentence_model() -> Option<SentenceEmbedder> {
    let dir = dir(
        "PHI_AGENT_SENTENCE_MODEL",
        "scripts/install-sentence-model.sh",
    )?;
    Some(SentenceEmbedder::load(&dir).unwrap_or_else(|error| panic!("{error}")))
}

/// Checks `tokenize` against a fixture of `[text, ids]` pairs written by the reference
/// `tokenizers` library (at least `at_least` of them), listing every text that differs.
pub fn assert_tokenizes_as_reference(
    fixture: &str,
    at_least: usize,
    tokenize: impl Fn(&str) -> Vec<u32>,
) {
    let cases: Vec<(String, Vec<u32>)> = serde_json::from_str(fixture).unwrap();
    assert!(cases.len() > at_least);
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(text, ids)| {
            let ours = tokenize(text);
            (&ours != ids).then(|| format!("{text:?}\n  ours {ours:?}\n  reference {ids:?}"))
        })
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of {} texts differ:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

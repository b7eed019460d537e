//! Where the tests find the model: `PHI_AGENT_EMBED_MODEL`, the wordllama package directory that
//! `scripts/install-embed-model.sh` prints (`.ci/run` sets it). Outside CI a missing model skips a
//! test with a message; in CI (`CI` set) it fails, so that the tests cannot silently not run.

use std::path::PathBuf;

use phi_agent_embed::StaticEmbedder;

/// The model, or `None` (with the reason printed) when it is not installed outside CI.
pub fn model() -> Option<StaticEmbedder> {
    let Some(dir) = std::env::var_os("PHI_AGENT_EMBED_MODEL").map(PathBuf::from) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "PHI_AGENT_EMBED_MODEL is not set, and CI must run the model's tests: \
             export PHI_AGENT_EMBED_MODEL=\"$(scripts/install-embed-model.sh)\""
        );
        eprintln!(
            "skipped: no model (export PHI_AGENT_EMBED_MODEL=\"$(scripts/install-embed-model.sh)\" to run this test)"
        );
        return None;
    };
    Some(StaticEmbedder::load(&dir).unwrap_or_else(|error| panic!("{error}")))
}

//! The static model loaded from the wordllama package: tokens as the reference library gives
//! them, vectors that put alike texts together, and load errors that name the file.

mod common;

use phi_agent::search::{Embedder, HybridConfig};
use phi_agent_embed::{FUSION_KEY, LoadError, StaticEmbedder};

/// Token ids the `tokenizers` library gives for 107 texts (held-out queries and tool texts, CJK,
/// Thai, emoji, literal special tokens), written by `scripts/embed-tokenizer-fixture.py`.
#[test]
fn tokenizes_as_the_reference_library() {
    let Some(model) = common::model() else { return };
    common::assert_tokenizes_as_reference(include_str!("tokenizer_ids.json"), 100, |text| {
        model.tokenize(text)
    });
}

#[tokio::test]
async fn alike_texts_are_nearer_than_unlike_ones() {
    let Some(model) = common::model() else { return };
    assert_eq!(model.dimensions(), 256);
    assert_eq!(model.model(), "l2_supercat_256");
    let vectors = model
        .embed(&[
            "will it rain in Paris tomorrow",
            "get the weather forecast for a city",
            "transfer money to a bank account",
            "",
        ])
        .await
        .unwrap();
    let cosine = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    let norm = cosine(&vectors[0], &vectors[0]);
    assert!((norm - 1.0).abs() < 1e-4, "unit length: {norm}");
    let (weather, money) = (
        cosine(&vectors[0], &vectors[1]),
        cosine(&vectors[0], &vectors[2]),
    );
    assert!(weather > money + 0.05, "weather {weather}, money {money}");
    assert!(
        vectors[3].iter().all(|v| *v == 0.0),
        "no tokens, no direction"
    );
}

#[test]
fn load_errors_name_the_file_and_the_problem() {
    let dir = std::env::temp_dir().join(format!("phi-agent-embed-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let error = StaticEmbedder::load(&dir).unwrap_err();
    assert!(
        matches!(&error, LoadError::Format { message, .. } if message.contains("0 `.safetensors`")),
        "{error}"
    );
    assert!(StaticEmbedder::load(dir.join("missing")).is_err());

    let weights = dir.join("table.safetensors");
    let tokenizer = dir.join("tokenizer.json");
    std::fs::write(&weights, b"not a safetensors file").unwrap();
    std::fs::write(&tokenizer, br#"{"model": {"type": "Unigram"}}"#).unwrap();
    let error = StaticEmbedder::from_files(&weights, &tokenizer).unwrap_err();
    assert!(error.to_string().contains("Unigram"), "{error}");
    assert!(error.to_string().contains("tokenizer.json"), "{error}");

    std::fs::write(
        &tokenizer,
        br#"{"model": {"vocab": {"a": 0}, "merges": []}}"#,
    )
    .unwrap();
    let error = StaticEmbedder::from_files(&weights, &tokenizer).unwrap_err();
    assert!(
        error.to_string().contains("not a safetensors file"),
        "{error}"
    );

    // A table of 2 tokens × 3 dimensions in f32 loads, and embeds "a" as its row.
    let header = br#"{"t":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}"#;
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header);
    for value in [3.0f32, 4.0, 0.0, 1.0, 0.0, 0.0] {
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    std::fs::write(&weights, &bytes).unwrap();
    let model = StaticEmbedder::from_files(&weights, &tokenizer).unwrap();
    assert_eq!(model.embed_one("a"), [0.6, 0.8, 0.0]);
    assert_eq!(model.model(), "table");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A table of 2 tokens × 3 dimensions in f32, with `metadata` (a JSON object) in its header.
fn table_file(metadata: Option<&str>) -> Vec<u8> {
    let tensor = r#""t":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}"#;
    let header = match metadata {
        Some(metadata) => format!(r#"{{"__metadata__":{metadata},{tensor}}}"#),
        None => format!("{{{tensor}}}"),
    };
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header.as_bytes());
    for value in [3.0f32, 4.0, 0.0, 1.0, 0.0, 0.0] {
        bytes.extend_from_slice(&value.to_le_bytes());
    }
    bytes
}

#[test]
fn the_weights_name_the_fusion_they_were_tuned_with() {
    let dir = std::env::temp_dir().join(format!("phi-agent-embed-fusion-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (weights, tokenizer) = (dir.join("table.safetensors"), dir.join("tokenizer.json"));
    std::fs::write(
        &tokenizer,
        br#"{"model": {"vocab": {"a": 0}, "merges": []}}"#,
    )
    .unwrap();
    let fusion = |metadata: Option<&str>| {
        std::fs::write(&weights, table_file(metadata)).unwrap();
        StaticEmbedder::from_files(&weights, &tokenizer).map(|model| model.fusion())
    };
    assert_eq!(fusion(None).unwrap(), HybridConfig::static_model());
    assert_eq!(
        fusion(Some(r#"{"phi_agent.fusion":"tool_search_model"}"#)).unwrap(),
        HybridConfig::tool_search_model()
    );
    assert_eq!(
        fusion(Some(r#"{"phi_agent.fusion":"static_model","other":"x"}"#)).unwrap(),
        HybridConfig::static_model()
    );
    // A name this version does not know is refused with what it knows, not guessed.
    let error = fusion(Some(r#"{"phi_agent.fusion":"newer_model"}"#)).unwrap_err();
    assert!(
        error.to_string().contains("newer_model")
            && error.to_string().contains("tool_search_model"),
        "{error}"
    );
    assert_eq!(FUSION_KEY, "phi_agent.fusion");
    std::fs::remove_dir_all(&dir).unwrap();
}

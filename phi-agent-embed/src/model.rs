//! A static embedding model: one vector per token in a table, a text's vector the mean of its
//! tokens' rows. No network, no attention layers: embedding a tool's text is a tokenizer pass
//! and a few hundred additions, so a registry of thousands of tools embeds in well under a
//! second on one core.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use phi_agent::AgentResult;
use phi_agent::search::{Embedder, HybridConfig};
use safetensors::SafeTensors;

use crate::table::Table;
use crate::tokenizer::Bpe;

/// Why a model could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// A file could not be read (or a directory listed).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// A file was read but is not what a model needs.
    #[error("{}: {message}", path.display())]
    Format {
        /// The file or directory.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
}

/// A static token-embedding model run in-process, such as the one the PyPI package `wordllama`
/// ships inside its wheel (`wordllama/weights/l2_supercat_256.safetensors` and
/// `wordllama/tokenizers/l2_supercat_tokenizer_config.json`: LLaMA 2's tokenizer, 32,000 tokens
/// of 256 dimensions).
///
/// Its fusion with the words is [`HybridConfig::static_model`] (the [`Embedder::fusion`]
/// default), unless the weights file names another in its metadata under [`FUSION_KEY`]: the
/// model trained for tool search (`bench/tool-search/train/train.py`) names
/// [`HybridConfig::tool_search_model`], the fusion chosen for it.
///
/// ```no_run
/// use std::sync::Arc;
/// use phi_agent::registry::ToolRegistry;
/// use phi_agent::search::SemanticSearch;
/// use phi_agent_embed::StaticEmbedder;
/// # async fn run(registry: ToolRegistry) -> Result<(), Box<dyn std::error::Error>> {
/// // The package's directory: .../site-packages/wordllama
/// let embedder = Arc::new(StaticEmbedder::load("/opt/venv/lib/python3.11/site-packages/wordllama")?);
/// let search = SemanticSearch::new(embedder).with_cache_file("target/tool-embeddings.bin");
/// // An agent's `search_tools`: `AgentBuilder::semantic_search(search)`. A harness of its own:
/// let index = search.build_index(&registry).await?;
/// let hits = index.search("send an email", 5).await?;
/// # Ok(())
/// # }
/// ```
pub struct StaticEmbedder {
    name: String,
    fusion: HybridConfig,
    tokenizer: Bpe,
    /// Row-major, `rows × dimensions`, in the weights file's precision.
    table: Table,
    rows: usize,
    dimensions: usize,
}

impl std::fmt::Debug for StaticEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaticEmbedder")
            .field("name", &self.name)
            .field("rows", &self.rows)
            .field("dimensions", &self.dimensions)
            .finish_non_exhaustive()
    }
}

impl StaticEmbedder {
    /// Loads the model in `dir`: its one `.safetensors` file and its one tokenizer file (a
    /// `.json` whose name has `tokenizer` in it), looked for in `dir` and in its `weights/` and
    /// `tokenizers/` folders (a wordllama package's layout).
    pub fn load(dir: impl AsRef<Path>) -> Result<Self, LoadError> {
        let dir = dir.as_ref();
        let mut weights = Vec::new();
        let mut tokenizers = Vec::new();
        for folder in [
            dir.to_path_buf(),
            dir.join("weights"),
            dir.join("tokenizers"),
        ] {
            let entries = match std::fs::read_dir(&folder) {
                Ok(entries) => entries,
                Err(_) if folder != dir => continue,
                Err(source) => {
                    return Err(LoadError::Io {
                        path: folder,
                        source,
                    });
                }
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().to_lowercase();
                if name.ends_with(".safetensors") {
                    weights.push(path);
                } else if name.ends_with(".json") && name.contains("tokenizer") {
                    tokenizers.push(path);
                }
            }
        }
        let one = |mut found: Vec<PathBuf>, what: &str| match found.len() {
            1 => Ok(found.remove(0)),
            n => {
                found.sort();
                Err(LoadError::Format {
                    path: dir.to_path_buf(),
                    message: format!(
                        "{n} {what} files (expected one; name both with from_files): {found:?}"
                    ),
                })
            }
        };
        let weights = one(weights, "`.safetensors`")?;
        let tokenizer = one(tokenizers, "tokenizer `.json`")?;
        Self::from_files(weights, tokenizer)
    }

    /// Loads the embedding table in `weights` (safetensors: one two-dimensional tensor of f32,
    /// f16 or bf16, one row per token) and the tokenizer in `tokenizer` (a Hugging Face
    /// `tokenizer.json` with a BPE model; others are refused). The model's name is the weights
    /// file's stem.
    pub fn from_files(
        weights: impl AsRef<Path>,
        tokenizer: impl AsRef<Path>,
    ) -> Result<Self, LoadError> {
        let (weights, tokenizer_path) = (weights.as_ref(), tokenizer.as_ref());
        let read = |path: &Path| {
            std::fs::read(path).map_err(|source| LoadError::Io {
                path: path.to_path_buf(),
                source,
            })
        };
        let format = |path: &Path, message: String| LoadError::Format {
            path: path.to_path_buf(),
            message,
        };
        let json: serde_json::Value = serde_json::from_slice(&read(tokenizer_path)?)
            .map_err(|error| format(tokenizer_path, error.to_string()))?;
        let tokenizer = Bpe::from_json(&json)
            .map_err(|message| format(tokenizer_path, format!("tokenizer: {message}")))?;

        let bytes = read(weights)?;
        let tensors = SafeTensors::deserialize(&bytes)
            .map_err(|error| format(weights, format!("not a safetensors file: {error}")))?;
        let names = tensors.names();
        let [name] = names.as_slice() else {
            return Err(format(
                weights,
                format!("{} tensors (expected one embedding table)", names.len()),
            ));
        };
        let tensor = tensors
            .tensor(name)
            .map_err(|error| format(weights, error.to_string()))?;
        let &[rows, dimensions] = tensor.shape() else {
            return Err(format(
                weights,
                format!(
                    "a tensor of shape {:?} (expected rows × dimensions)",
                    tensor.shape()
                ),
            ));
        };
        let data = tensor.data();
        let Some(table) = Table::new(tensor.dtype(), data) else {
            return Err(format(
                weights,
                format!("{:?} values (expected a float)", tensor.dtype()),
            ));
        };
        if rows == 0 || dimensions == 0 || table.len() != rows * dimensions {
            return Err(format(weights, "an empty or cut-short table".into()));
        }
        let fusion = named_fusion(&bytes).map_err(|message| format(weights, message))?;
        let name = weights.file_stem().map_or_else(
            || "static".into(),
            |stem| stem.to_string_lossy().into_owned(),
        );
        Ok(Self {
            name,
            fusion,
            tokenizer,
            table,
            rows,
            dimensions,
        })
    }

    /// Length of every vector.
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// The token ids of `text`, as the model sees it (no special tokens added).
    pub fn tokenize(&self, text: &str) -> Vec<u32> {
        let mut ids = Vec::new();
        self.tokenizer.encode(text, &mut ids);
        ids
    }

    /// The unit vector of one text: the mean of its tokens' rows, normalized (all zeros for a
    /// text without tokens).
    pub fn embed_one(&self, text: &str) -> Vec<f32> {
        let mut vector = vec![0f32; self.dimensions];
        let ids = self.tokenize(text);
        for &id in &ids {
            // Ids past the table (an added token the table has no row for) take the last row,
            // as the package's own inference clamps them.
            let row = (id as usize).min(self.rows - 1) * self.dimensions;
            self.table.add_to(row, &mut vector);
        }
        let norm = vector.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 && norm.is_finite() {
            vector.iter_mut().for_each(|v| *v /= norm);
        }
        vector
    }

    /// Bytes the model holds on the heap (its table, mostly, in the precision of its file: 2
    /// bytes a value for wordllama's f16).
    pub fn heap_bytes(&self) -> usize {
        self.table.heap_bytes()
    }
}

#[async_trait]
impl Embedder for StaticEmbedder {
    fn model(&self) -> &str {
        &self.name
    }

    async fn embed(&self, texts: &[&str]) -> AgentResult<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|text| self.embed_one(text)).collect())
    }

    /// Batches cost nothing extra here; a bigger one only means fewer calls.
    fn max_batch(&self) -> usize {
        256
    }

    /// [`HybridConfig::static_model`], or the fusion the weights file names ([`FUSION_KEY`]).
    fn fusion(&self) -> HybridConfig {
        self.fusion
    }
}

/// The key of a weights file's safetensors metadata that names the fusion its table was tuned
/// with: `static_model` or `tool_search_model` ([`HybridConfig`]'s presets of those names).
pub const FUSION_KEY: &str = "phi_agent.fusion";

/// The fusion a weights file names under [`FUSION_KEY`], [`HybridConfig::static_model`] when it
/// names none; a name phi-agent does not know is refused, not guessed.
fn named_fusion(bytes: &[u8]) -> Result<HybridConfig, String> {
    let (_, header) = SafeTensors::read_metadata(bytes)
        .map_err(|error| format!("not a safetensors file: {error}"))?;
    match header.metadata().as_ref().and_then(|m| m.get(FUSION_KEY)) {
        None => Ok(HybridConfig::static_model()),
        Some(name) if name == "static_model" => Ok(HybridConfig::static_model()),
        Some(name) if name == "tool_search_model" => Ok(HybridConfig::tool_search_model()),
        Some(name) => Err(format!(
            "{FUSION_KEY} names the fusion {name:?}; known: static_model, tool_search_model"
        )),
    }
}

//! Tool vectors kept on disk between runs, keyed by a hash of the model and one of the tool's text:
//! a tool whose text changes gets a new key, so its old vector is never used again. One file holds
//! the vectors of every model that used it: saving prunes only the models used since opening.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The first bytes of a cache file: the format and its version.
const MAGIC: &[u8] = b"phi-agent embeddings 2\n";

/// Version 1's first bytes: its keys do not say their model, so its vectors cannot be kept apart
/// by model; such a file is read as empty (its vectors are computed again) and replaced on save.
const MAGIC_1: &[u8] = b"phi-agent embeddings 1\n";

/// Where one vector is kept: a hash of the model's name and one of the text it embeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Key {
    model: u64,
    text: u64,
}

/// Vectors by key, loaded from and saved to one file.
///
/// ```no_run
/// use phi_agent::search::EmbeddingCache;
/// let cache = EmbeddingCache::open("target/tool-embeddings.bin")?;
/// // ... SemanticIndex::build(&registry, &embedder, &mut cache).await? ...
/// cache.save()?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct EmbeddingCache {
    path: Option<PathBuf>,
    vectors: HashMap<Key, Vec<f32>>,
    /// Keys looked up or stored since opening: of the models used since then,
    /// [`save`](Self::save) keeps only these, so the vectors of tools that are gone do not pile
    /// up. The vectors of a model not used since opening (another agent's setting) are all kept.
    used: HashSet<Key>,
}

impl EmbeddingCache {
    /// A cache held in memory only.
    pub fn in_memory() -> Self {
        Self::default()
    }

    /// The cache stored at `path`: its vectors if the file exists and reads as a cache, none if
    /// it does not exist. A file that is not a cache, or is cut short, is an error rather than
    /// silently replaced.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let vectors = match fs::read(&path) {
            Ok(bytes) => decode(&bytes).ok_or_else(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{} is not a phi-agent embedding cache (or is cut short); remove it to start afresh",
                        path.display()
                    ),
                )
            })?,
            Err(error) if error.kind() == io::ErrorKind::NotFound => HashMap::new(),
            Err(error) => return Err(error),
        };
        Ok(Self {
            path: Some(path),
            vectors,
            used: Default::default(),
        })
    }

    /// Writes to the file it was opened from (through a temporary file renamed over it, so a
    /// crash never leaves half a cache): of each model used since opening, the vectors used;
    /// of every other model, all its vectors. A cache held in memory has nothing to do.
    pub fn save(&self) -> io::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let models: HashSet<u64> = self.used.iter().map(|key| key.model).collect();
        let mut keys: Vec<&Key> = self
            .vectors
            .keys()
            .filter(|key| self.used.contains(key) || !models.contains(&key.model))
            .collect();
        keys.sort();
        let mut bytes = MAGIC.to_vec();
        for key in keys {
            let vector = &self.vectors[key];
            bytes.extend_from_slice(&key.model.to_le_bytes());
            bytes.extend_from_slice(&key.text.to_le_bytes());
            bytes.extend_from_slice(&(vector.len() as u32).to_le_bytes());
            for value in vector {
                bytes.extend_from_slice(&value.to_le_bytes());
            }
        }
        let temporary = path.with_extension("tmp");
        let mut file = fs::File::create(&temporary)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        fs::rename(&temporary, path)
    }

    /// Number of vectors held.
    pub fn len(&self) -> usize {
        self.vectors.len()
    }

    /// Whether no vector is held.
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    pub(super) fn get(&mut self, key: Key) -> Option<&[f32]> {
        let vector = self.vectors.get(&key)?;
        self.used.insert(key);
        Some(vector)
    }

    pub(super) fn insert(&mut self, key: Key, vector: Vec<f32>) {
        self.used.insert(key);
        self.vectors.insert(key, vector);
    }
}

/// The key of `text` embedded by `model`.
pub(super) fn key(model: &str, text: &str) -> Key {
    Key {
        model: fnv1a(model.as_bytes()),
        text: fnv1a(text.as_bytes()),
    }
}

/// 64-bit FNV-1a, which is stable across builds and platforms (std's hasher is not promised to
/// be).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

fn decode(bytes: &[u8]) -> Option<HashMap<Key, Vec<f32>>> {
    if bytes.starts_with(MAGIC_1) {
        return Some(HashMap::new());
    }
    let mut rest = bytes.strip_prefix(MAGIC)?;
    let mut vectors = HashMap::new();
    while !rest.is_empty() {
        let (model, tail) = rest.split_first_chunk::<8>()?;
        let (text, tail) = tail.split_first_chunk::<8>()?;
        let (length, tail) = tail.split_first_chunk::<4>()?;
        let length = u32::from_le_bytes(*length) as usize;
        let size = length.checked_mul(4)?;
        if tail.len() < size {
            return None;
        }
        let (values, tail) = tail.split_at(size);
        let vector = values
            .chunks_exact(4)
            .map(|chunk| f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]))
            .collect();
        let key = Key {
            model: u64::from_le_bytes(*model),
            text: u64::from_le_bytes(*text),
        };
        vectors.insert(key, vector);
        rest = tail;
    }
    Some(vectors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_by_model_and_text_and_files_round_trip() {
        assert_ne!(key("a", "text"), key("b", "text"));
        assert_ne!(key("a", "text"), key("a", "text!"));
        assert_eq!(key("a", "text"), key("a", "text"));
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&3u64.to_le_bytes());
        bytes.extend_from_slice(&7u64.to_le_bytes());
        bytes.extend_from_slice(&2u32.to_le_bytes());
        bytes.extend_from_slice(&1.0f32.to_le_bytes());
        bytes.extend_from_slice(&(-2.5f32).to_le_bytes());
        let seven = Key { model: 3, text: 7 };
        assert_eq!(decode(&bytes).unwrap()[&seven], [1.0, -2.5]);
        assert!(decode(&bytes[..bytes.len() - 1]).is_none(), "cut short");
        assert!(decode(b"something else").is_none());
        assert!(decode(b"phi-agent embeddings 1\n\x01").unwrap().is_empty());
    }
}

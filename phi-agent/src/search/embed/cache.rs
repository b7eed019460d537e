//! Tool vectors kept on disk between runs, keyed by a hash of the model and the tool's text: a
//! tool whose text changes gets a new key, so its old vector is never used again.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The first bytes of a cache file: the format and its version.
const MAGIC: &[u8] = b"phi-agent embeddings 1\n";

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
    vectors: HashMap<u64, Vec<f32>>,
    /// Keys looked up or stored since opening: [`save`](Self::save) keeps only these, so the
    /// vectors of tools that are gone do not pile up.
    used: std::collections::HashSet<u64>,
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

    /// Writes the vectors used since opening to the file it was opened from (through a
    /// temporary file renamed over it, so a crash never leaves half a cache). A cache held in
    /// memory has nothing to do.
    pub fn save(&self) -> io::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let mut bytes = MAGIC.to_vec();
        let mut keys: Vec<&u64> = self.used.iter().collect();
        keys.sort();
        for key in keys {
            let Some(vector) = self.vectors.get(key) else {
                continue;
            };
            bytes.extend_from_slice(&key.to_le_bytes());
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

    pub(super) fn get(&mut self, key: u64) -> Option<&[f32]> {
        let vector = self.vectors.get(&key)?;
        self.used.insert(key);
        Some(vector)
    }

    pub(super) fn insert(&mut self, key: u64, vector: Vec<f32>) {
        self.used.insert(key);
        self.vectors.insert(key, vector);
    }
}

/// The key of `text` embedded by `model`: 64-bit FNV-1a over both, which is stable across
/// builds and platforms (std's hasher is not promised to be).
pub(super) fn key(model: &str, text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in model.bytes().chain([0]).chain(text.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

fn decode(bytes: &[u8]) -> Option<HashMap<u64, Vec<f32>>> {
    let mut rest = bytes.strip_prefix(MAGIC)?;
    let mut vectors = HashMap::new();
    while !rest.is_empty() {
        let (key, tail) = rest.split_first_chunk::<8>()?;
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
        vectors.insert(u64::from_le_bytes(*key), vector);
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
        let mut cache = EmbeddingCache::in_memory();
        cache.insert(7, vec![1.0, -2.5]);
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&7u64.to_le_bytes());
        bytes.extend_from_slice(&2u32.to_le_bytes());
        bytes.extend_from_slice(&1.0f32.to_le_bytes());
        bytes.extend_from_slice(&(-2.5f32).to_le_bytes());
        assert_eq!(decode(&bytes).unwrap()[&7], [1.0, -2.5]);
        assert!(decode(&bytes[..bytes.len() - 1]).is_none(), "cut short");
        assert!(decode(b"something else").is_none());
    }
}

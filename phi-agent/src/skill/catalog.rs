//! [`SkillCatalog`]: the skills an agent offers, by name, in the order they were added.

use std::sync::Arc;

use super::definition::Skill;
use super::error::SkillError;

/// The skills an agent offers ([`AgentBuilder::skills`](crate::AgentBuilder::skills)): each
/// listed to the model in one line, loaded on demand. Names are unique; order is the order of
/// adding (a folder's skills: by folder name), so the listing's bytes are the same every run.
///
/// ```
/// use phi_agent::skill::{Skill, SkillCatalog};
///
/// let mut catalog = SkillCatalog::new();
/// catalog.add(Skill::new("csv", "Clean and reshape CSV files.", "Read the header first.")?)?;
/// assert!(catalog.add(Skill::new("csv", "Another.", "")?).is_err());
/// assert_eq!(catalog.get("csv").map(|s| s.description()), Some("Clean and reshape CSV files."));
/// # Ok::<(), phi_agent::skill::SkillError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct SkillCatalog {
    skills: Vec<Arc<Skill>>,
}

impl SkillCatalog {
    /// An empty catalogue.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `skill`; refused when the catalogue has a skill of that name.
    pub fn add(&mut self, skill: Skill) -> Result<(), SkillError> {
        if self.get(skill.name()).is_some() {
            return Err(SkillError::Duplicate {
                name: skill.name().to_string(),
            });
        }
        self.skills.push(Arc::new(skill));
        Ok(())
    }

    /// The catalogue with `skill` added; see [`add`](Self::add).
    pub fn with(mut self, skill: Skill) -> Result<Self, SkillError> {
        self.add(skill)?;
        Ok(self)
    }

    /// Every skill in `folder`: each of its folders that holds a `SKILL.md`, in order of folder
    /// name ([`Skill::from_dir`]); other entries are passed over. One malformed skill fails the
    /// whole catalogue, naming its file, so that a mistake is not silently dropped.
    #[cfg(feature = "skills")]
    #[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
    pub fn from_dir(folder: impl AsRef<std::path::Path>) -> Result<Self, SkillError> {
        let folder = folder.as_ref();
        let io = |source| SkillError::Io {
            path: folder.to_path_buf(),
            source,
        };
        let mut folders: Vec<std::path::PathBuf> = std::fs::read_dir(folder)
            .map_err(io)?
            .flatten()
            .map(|entry| entry.path())
            .filter(|path| path.join(super::SKILL_FILE).is_file())
            .collect();
        folders.sort();
        let mut catalog = Self::new();
        for skill in folders {
            catalog.add(Skill::from_dir(&skill)?)?;
        }
        Ok(catalog)
    }

    /// The skill named `name`.
    pub fn get(&self, name: &str) -> Option<&Arc<Skill>> {
        self.skills.iter().find(|skill| skill.name() == name)
    }

    /// The skills, in the order they were added.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Arc<Skill>> {
        self.skills.iter()
    }

    /// How many skills the catalogue holds.
    pub fn len(&self) -> usize {
        self.skills.len()
    }

    /// Whether the catalogue holds no skill.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }
}

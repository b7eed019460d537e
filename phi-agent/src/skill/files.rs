//! A skill's files, read only from inside the skill: a path is relative, has no `..`, and,
//! for a skill on disk, resolves (symbolic links followed) to a file under the skill's folder.
//!
//! The model chooses the path (`read_skill_file`), so it is untrusted input: a path that leaves
//! the folder is refused before anything is opened, and the resolved path is checked again so
//! that a link inside the folder cannot point out of it.

use std::collections::BTreeMap;
use std::fs;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use super::error::SkillError;

/// The most bytes one read of a skill's file returns: a skill's references are documents for
/// the model to read, and a larger file would fill its context.
pub const MAX_SKILL_FILE_BYTES: u64 = 256 * 1024;

/// How deep, and how many files, a folder's listing goes: a skill is a handful of files, and a
/// folder that holds more (a checkout by mistake) is listed in part, not walked whole.
const MAX_LISTED_DEPTH: usize = 4;
const MAX_LISTED_FILES: usize = 200;

/// A skill's files besides its instructions: given in code, or in its folder on disk.
#[derive(Debug, Clone, Default)]
pub(super) struct SkillFiles {
    /// Files given in code, by their normalized relative path.
    pub(super) memory: BTreeMap<String, String>,
    /// The skill's folder, resolved (no symbolic link in it).
    pub(super) folder: Option<PathBuf>,
}

/// `path` as a relative path inside the skill, `/`-separated, with `.` parts dropped; refused
/// when it is absolute or has a `..`.
pub(crate) fn normalize(path: &str) -> Result<String, SkillError> {
    let outside = || SkillError::OutsideSkill {
        path: path.to_string(),
    };
    // Windows separators too: the same path must mean the same file on every system.
    let mut parts = Vec::new();
    for component in Path::new(&path.replace('\\', "/")).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str().ok_or_else(outside)?.to_string()),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                return Err(outside());
            }
        }
    }
    Ok(parts.join("/"))
}

impl SkillFiles {
    /// The text of the file at `path` of skill `skill`.
    pub(super) fn read(&self, skill: &str, path: &str) -> Result<String, SkillError> {
        let relative = normalize(path)?;
        if let Some(text) = self.memory.get(&relative) {
            return Ok(text.clone());
        }
        let missing = || SkillError::NoSuchFile {
            skill: skill.to_string(),
            path: path.to_string(),
            files: self.list(),
        };
        let Some(root) = &self.folder else {
            return Err(missing());
        };
        if relative.is_empty() {
            return Err(missing());
        }
        let resolved = match root.join(&relative).canonicalize() {
            Ok(resolved) => resolved,
            Err(error) if error.kind() == ErrorKind::NotFound => return Err(missing()),
            Err(source) => {
                return Err(SkillError::Io {
                    path: root.join(&relative),
                    source,
                });
            }
        };
        // `root` is resolved too, so a link anywhere on the way shows here. (A link swapped in
        // between this check and the read below is the folder's owner's doing, not the model's:
        // the model only names paths.)
        if !resolved.starts_with(root) {
            return Err(SkillError::OutsideSkill {
                path: path.to_string(),
            });
        }
        let io = |source| SkillError::Io {
            path: resolved.clone(),
            source,
        };
        let metadata = fs::metadata(&resolved).map_err(io)?;
        if !metadata.is_file() {
            return Err(missing());
        }
        if metadata.len() > MAX_SKILL_FILE_BYTES {
            return Err(SkillError::TooLarge {
                path: path.to_string(),
                size: metadata.len(),
                limit: MAX_SKILL_FILE_BYTES,
            });
        }
        let bytes = fs::read(&resolved).map_err(io)?;
        String::from_utf8(bytes).map_err(|_| SkillError::NotText {
            path: path.to_string(),
        })
    }

    /// The relative paths of the skill's files, sorted: those given in code, and the regular
    /// files of its folder but its `SKILL.md` (symbolic links are not listed).
    pub(super) fn list(&self) -> Vec<String> {
        let mut files: Vec<String> = self.memory.keys().cloned().collect();
        if let Some(root) = &self.folder {
            walk(root, "", 0, &mut files);
        }
        files.sort();
        files.dedup();
        files
    }
}

fn walk(folder: &Path, prefix: &str, depth: usize, files: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(folder) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|entry| entry.file_name());
    for entry in entries {
        if files.len() >= MAX_LISTED_FILES {
            return;
        }
        let (Ok(kind), Some(name)) = (
            entry.file_type(),
            entry.file_name().to_str().map(String::from),
        ) else {
            continue;
        };
        // Hidden entries (`.git`, editor files) are no part of what a skill offers.
        if name.starts_with('.') {
            continue;
        }
        let path = format!("{prefix}{name}");
        if kind.is_file() && path != "SKILL.md" {
            files.push(path);
        } else if kind.is_dir() && depth + 1 < MAX_LISTED_DEPTH {
            walk(&entry.path(), &format!("{path}/"), depth + 1, files);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_and_stay_inside() {
        assert_eq!(normalize("./refs/forms.md").unwrap(), "refs/forms.md");
        assert_eq!(normalize("refs\\forms.md").unwrap(), "refs/forms.md");
        for escape in ["../secret", "refs/../../x", "/etc/passwd", "..\\x"] {
            let error = normalize(escape).unwrap_err();
            assert!(
                matches!(error, SkillError::OutsideSkill { .. }),
                "{escape}: {error}"
            );
        }
    }
}

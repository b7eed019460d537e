//! What can go wrong with a skill: loading it, naming it, reading one of its files.

use std::path::PathBuf;

/// A skill that could not be loaded or built, or a file of it that could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// A skill's name breaks the naming rule of the Agent Skills format.
    #[error(
        "invalid skill name `{name}`: {reason}; use 1 to 64 characters from `a-z 0-9 -`, no hyphen at either end and no two in a row"
    )]
    InvalidName {
        /// The rejected name.
        name: String,
        /// Which part of the rule it breaks.
        reason: &'static str,
    },

    /// A skill's description is empty or longer than the format allows.
    #[error(
        "skill `{name}` has {reason}; write one to {max} characters saying what it does and when to use it"
    )]
    InvalidDescription {
        /// The skill.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
        /// The most characters a description may have.
        max: usize,
    },

    /// Two skills of one catalogue share a name.
    #[error("skill `{name}` is in the catalogue twice; rename one of them")]
    Duplicate {
        /// The name both claim.
        name: String,
    },

    /// A file or folder could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// What was read.
        path: PathBuf,
        /// Why it failed.
        source: std::io::Error,
    },

    /// A `SKILL.md` is not frontmatter and Markdown as the format says.
    #[error("{}: {message}", path.display())]
    Format {
        /// The `SKILL.md`.
        path: PathBuf,
        /// What is wrong, and how to fix it.
        message: String,
    },

    /// A path handed to a skill's file reader leaves the skill's folder (`..`, an absolute
    /// path, or a symbolic link that points outside).
    #[error(
        "`{path}` is outside the skill's folder; name a file inside it by a relative path without `..`"
    )]
    OutsideSkill {
        /// The path asked for.
        path: String,
    },

    /// The skill has no file at that path.
    #[error("skill `{skill}` has no file `{path}`{}", list_files(.files))]
    NoSuchFile {
        /// The skill.
        skill: String,
        /// The path asked for.
        path: String,
        /// The files it has, to choose from.
        files: Vec<String>,
    },

    /// The file is larger than a read may return.
    #[error("`{path}` is {size} bytes, more than the {limit} a read returns")]
    TooLarge {
        /// The path asked for.
        path: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },

    /// A skill's instructions or file could not be fetched from where it is served, or did not
    /// match what was listed (size, digest, frontmatter): it is not used.
    #[error("cannot use skill `{skill}`: {message}")]
    Fetch {
        /// The skill.
        skill: String,
        /// What went wrong.
        message: String,
    },

    /// The file is not UTF-8 text.
    #[error("`{path}` is not UTF-8 text; only text files of a skill can be read")]
    NotText {
        /// The path asked for.
        path: String,
    },
}

fn list_files(files: &[String]) -> String {
    match files {
        [] => "; it has no files besides its instructions".to_string(),
        files => format!("; its files: {}", files.join(", ")),
    }
}

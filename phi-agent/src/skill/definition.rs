//! [`Skill`]: a named set of instructions for one kind of task, the tools it brings, and the
//! files it points to.

use std::path::Path;

use serde_json::{Map, Value};

use super::error::SkillError;
use super::files::{SkillFiles, normalize};
use super::name::{check_description, validate_skill_name};
use super::source::SkillSource;

/// A skill: instructions for one kind of task, offered to the model by one line (its name and
/// description) and loaded when the task needs it (progressive disclosure). Loading one adds its
/// instructions to the conversation and activates the tools it names; its files are read one at
/// a time, on demand.
///
/// Built in code, or read from a folder holding a `SKILL.md` ([`Skill::from_dir`], feature
/// `skills`), in the Agent Skills format that MCP's skills extension serves.
///
/// ```
/// use phi_agent::skill::Skill;
///
/// let skill = Skill::new(
///     "pdf-forms",
///     "Fill in PDF forms: read a form's fields, then write the values in.",
///     "1. List the fields with `pdf_fields`.\n2. Fill them with `pdf_fill`.",
/// )?
/// .with_tools(["pdf_fields", "pdf_fill"])
/// .with_file("reference/field-types.md", "Text, check box, radio group, choice.")?;
/// assert_eq!(skill.tools(), ["pdf_fields", "pdf_fill"]);
/// assert_eq!(skill.read_file("reference/field-types.md")?, "Text, check box, radio group, choice.");
/// assert!(skill.read_file("../secrets.txt").is_err());
/// # Ok::<(), phi_agent::skill::SkillError>(())
/// ```
#[derive(Clone)]
pub struct Skill {
    name: String,
    description: String,
    instructions: String,
    tools: Vec<String>,
    files: SkillFiles,
    /// The `SKILL.md` it was read from, and its frontmatter as JSON: served as they are, so
    /// that a client's check of the file against the listed frontmatter holds.
    pub(super) source: Option<(String, Map<String, Value>)>,
    /// Where the instructions and files are fetched from, and the files it lists.
    pub(super) remote: Option<(std::sync::Arc<dyn SkillSource>, Vec<String>)>,
}

impl Skill {
    /// A skill named `name` (the Agent Skills rule: see
    /// [`validate_skill_name`](super::validate_skill_name)) that `description` says when to use
    /// (1 to 1024 characters), with `instructions` for the model (Markdown).
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        instructions: impl Into<String>,
    ) -> Result<Self, SkillError> {
        let (name, description) = (name.into(), description.into());
        validate_skill_name(&name)?;
        check_description(&name, &description)?;
        Ok(Self {
            name,
            description,
            instructions: instructions.into(),
            tools: Vec::new(),
            files: SkillFiles::default(),
            source: None,
            remote: None,
        })
    }

    /// The tools this skill brings, by name: Deferred tools of the agent that stay hidden until
    /// the skill is loaded. Replaces any named before.
    pub fn with_tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools = tools.into_iter().map(Into::into).collect();
        self
    }

    /// Adds a file that the model may read (`read_skill_file`) at `path`, relative to the
    /// skill; refused when the path is absolute or has a `..`.
    pub fn with_file(
        mut self,
        path: impl AsRef<str>,
        text: impl Into<String>,
    ) -> Result<Self, SkillError> {
        let path = normalize(path.as_ref())?;
        if path.is_empty() {
            return Err(SkillError::NoSuchFile {
                skill: self.name.clone(),
                path,
                files: Vec::new(),
            });
        }
        self.files.memory.insert(path, text.into());
        Ok(self)
    }

    /// Serves the files of `folder` (besides any given in code): a read resolves its path,
    /// symbolic links followed, and refuses one that ends outside the folder.
    pub fn with_folder(mut self, folder: impl AsRef<Path>) -> Result<Self, SkillError> {
        let folder = folder.as_ref();
        let resolved = folder.canonicalize().map_err(|source| SkillError::Io {
            path: folder.to_path_buf(),
            source,
        })?;
        self.files.folder = Some(resolved);
        Ok(self)
    }

    /// The skill's name, which `load_skill` takes.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the skill is for and when to use it: the one line the model sees before loading it.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// What the model reads when it loads the skill; empty for a skill whose instructions are
    /// fetched when it is loaded ([`Skill::remote`], [`load`](Self::load)).
    pub fn instructions(&self) -> &str {
        &self.instructions
    }

    /// The names of the tools the skill brings.
    pub fn tools(&self) -> &[String] {
        &self.tools
    }

    /// The skill's folder on disk, resolved, when it has one.
    pub fn folder(&self) -> Option<&Path> {
        self.files.folder.as_deref()
    }

    /// The relative paths of the files the model may read, sorted.
    pub fn files(&self) -> Vec<String> {
        let mut files = self.files.list();
        if let Some((_, listed)) = &self.remote {
            files.extend(listed.iter().cloned());
            files.sort();
            files.dedup();
        }
        files
    }

    /// The skill's frontmatter as JSON: every field of the `SKILL.md` it was read from, or, for
    /// a skill built in code, `name`, `description` and (when it brings tools)
    /// `allowed-tools`, space-separated.
    pub fn frontmatter(&self) -> Map<String, Value> {
        if let Some((_, front)) = &self.source {
            return front.clone();
        }
        let mut front = Map::new();
        front.insert("name".into(), Value::from(self.name.as_str()));
        front.insert("description".into(), Value::from(self.description.as_str()));
        if !self.tools.is_empty() {
            front.insert("allowed-tools".into(), Value::from(self.tools.join(" ")));
        }
        front
    }

    /// The skill as a `SKILL.md`: the file it was read from, byte for byte, or, for a skill
    /// built in code, its [`frontmatter`](Self::frontmatter) (each value written as a JSON
    /// string, which YAML reads as the same string) and its instructions.
    pub fn skill_md(&self) -> String {
        if let Some((text, _)) = &self.source {
            return text.clone();
        }
        let mut text = String::from("---\n");
        for (key, value) in self.frontmatter() {
            text.push_str(&format!("{key}: {value}\n"));
        }
        text.push_str("---\n");
        text.push_str(&self.instructions);
        text
    }

    /// The text of the file at `path`, relative to the skill. Refused when the path leaves the
    /// skill's folder (an absolute path, a `..`, or a symbolic link resolving outside), names no
    /// file, is larger than [`MAX_SKILL_FILE_BYTES`](super::MAX_SKILL_FILE_BYTES), or is not
    /// UTF-8 text.
    pub fn read_file(&self, path: &str) -> Result<String, SkillError> {
        self.files.read(&self.name, path)
    }
}

impl std::fmt::Debug for Skill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Skill")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("tools", &self.tools)
            .field("folder", &self.files.folder)
            .field("remote", &self.remote.is_some())
            .finish_non_exhaustive()
    }
}

//! A skill read from its folder: `SKILL.md` is YAML frontmatter between `---` lines (the
//! skill's `name`, `description` and, optionally, the `allowed-tools` it brings), then the
//! instructions in Markdown. The folder's other files are the skill's files.

use std::path::Path;

use serde::Deserialize;

use super::definition::Skill;
use super::error::SkillError;

/// The file that makes a folder a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// The fields of the frontmatter that phi-agent reads; the format's others (`license`,
/// `compatibility`, `metadata`) are allowed and left alone.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct Frontmatter {
    name: String,
    description: String,
    #[serde(default)]
    allowed_tools: Option<ToolNames>,
}

/// `allowed-tools`: the format's space-separated string, or a YAML list.
#[derive(Deserialize)]
#[serde(untagged)]
enum ToolNames {
    Spaced(String),
    List(Vec<String>),
}

impl ToolNames {
    fn names(self) -> Vec<String> {
        match self {
            ToolNames::Spaced(text) => text.split_whitespace().map(String::from).collect(),
            ToolNames::List(names) => names,
        }
    }
}

impl Skill {
    /// Reads the skill in `folder`: its `SKILL.md` (frontmatter and instructions), its other
    /// files served by [`read_file`](Self::read_file). The frontmatter's `name` must be the
    /// folder's name, as the format requires.
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use phi_agent::skill::Skill;
    ///
    /// let folder = std::env::temp_dir().join(format!("doc-skill-{}", std::process::id())).join("pdf-forms");
    /// std::fs::create_dir_all(&folder)?;
    /// std::fs::write(folder.join("SKILL.md"), "---\nname: pdf-forms\ndescription: Fill in PDF forms.\nallowed-tools: pdf_fields pdf_fill\n---\nList the fields first.\n")?;
    /// let skill = Skill::from_dir(&folder)?;
    /// assert_eq!(skill.tools(), ["pdf_fields", "pdf_fill"]);
    /// assert_eq!(skill.instructions(), "List the fields first.\n");
    /// # Ok(())
    /// # }
    /// ```
    pub fn from_dir(folder: impl AsRef<Path>) -> Result<Self, SkillError> {
        let folder = folder.as_ref();
        let path = folder.join(SKILL_FILE);
        let text = std::fs::read_to_string(&path).map_err(|source| SkillError::Io {
            path: path.clone(),
            source,
        })?;
        let skill = Self::parse(&text).map_err(|message| SkillError::Format {
            path: path.clone(),
            message,
        })?;
        let folder_name = folder
            .canonicalize()
            .ok()
            .and_then(|f| f.file_name().and_then(|n| n.to_str()).map(String::from));
        if folder_name.as_deref() != Some(skill.name()) {
            return Err(SkillError::Format {
                path,
                message: format!(
                    "the skill is named `{}` but its folder is `{}`; the format wants them equal: rename one",
                    skill.name(),
                    folder_name.unwrap_or_default()
                ),
            });
        }
        skill.with_folder(folder)
    }

    /// A skill from the text of a `SKILL.md`; the error says what is wrong with it.
    fn parse(text: &str) -> Result<Self, String> {
        let (all, body) = read_skill_md(text)?;
        let front: Frontmatter = serde_json::from_value(serde_json::Value::Object(all.clone()))
            .map_err(|error| format!("its frontmatter is not what the format says: {error}"))?;
        let mut skill = Skill::new(front.name, front.description, body)
            .map_err(|error| error.to_string())?
            .with_tools(
                front
                    .allowed_tools
                    .map(ToolNames::names)
                    .unwrap_or_default(),
            );
        skill.source = Some((text.to_string(), all));
        Ok(skill)
    }
}

/// The frontmatter of a `SKILL.md` as JSON, and the instructions after it; the error says what
/// is wrong with it.
pub(crate) fn read_skill_md(
    text: &str,
) -> Result<(serde_json::Map<String, serde_json::Value>, &str), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (yaml, body) = split(text).ok_or_else(|| {
        "a SKILL.md starts with YAML frontmatter between two `---` lines (name, description), then the instructions".to_string()
    })?;
    let all: serde_json::Value = yaml_serde::from_str(yaml)
        .map_err(|error| format!("its frontmatter is not what the format says: {error}"))?;
    match all {
        serde_json::Value::Object(all) => Ok((all, body)),
        _ => Err("its frontmatter is not a mapping of fields (name, description)".into()),
    }
}

/// The frontmatter and the body of `text`, or `None` when it does not open with a `---` line
/// closed by another.
fn split(text: &str) -> Option<(&str, &str)> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let body = &rest[at + line.len()..];
            return Some((&rest[..at], body));
        }
        at += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_and_body_are_split() {
        let skill = Skill::parse(
            "---\nname: csv\ndescription: Clean CSV files.\nallowed-tools: [csv_read, csv_write]\nlicense: MIT\n---\n# Steps\nRead, then write.\n",
        )
        .unwrap();
        assert_eq!(skill.name(), "csv");
        assert_eq!(skill.tools(), ["csv_read", "csv_write"]);
        assert_eq!(skill.instructions(), "# Steps\nRead, then write.\n");
    }

    #[test]
    fn a_malformed_skill_md_says_what_is_wrong() {
        let no_front = Skill::parse("# Just Markdown").unwrap_err();
        assert!(no_front.contains("frontmatter"), "{no_front}");
        let unclosed = Skill::parse("---\nname: a\n").unwrap_err();
        assert!(unclosed.contains("`---`"), "{unclosed}");
        let missing = Skill::parse("---\nname: a\n---\nbody").unwrap_err();
        assert!(missing.contains("description"), "{missing}");
        let bad_name = Skill::parse("---\nname: Big\ndescription: x\n---\n").unwrap_err();
        assert!(bad_name.contains("invalid skill name"), "{bad_name}");
        let not_yaml = Skill::parse("---\n: : :\n---\n").unwrap_err();
        assert!(not_yaml.contains("frontmatter"), "{not_yaml}");
    }
}

//! The two tools through which a model uses skills: `load_skill` (its description lists each
//! skill in one line; its result is the skill's instructions) and `read_skill_file`.
//!
//! Both are plain tools; what loading does to the session (the skill's tools activated, appended
//! to the tool list) is the agent's, which reads the successful `load_skill` calls of a turn.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::catalog::SkillCatalog;
use super::definition::Skill;
use crate::content::Content;
use crate::context::ToolContext;
use crate::error::{AgentError, AgentResult};
use crate::tool::{Tool, static_text};

/// The name of the tool that loads a skill.
pub const LOAD_SKILL_TOOL_NAME: &str = "load_skill";

/// The name of the tool that reads one of a skill's files.
pub const READ_SKILL_FILE_TOOL_NAME: &str = "read_skill_file";

/// `load_skill`: the catalogue in its description, one line per skill; its result the skill's
/// instructions, the tools it brings and its files.
pub(crate) struct LoadSkill {
    catalog: Arc<SkillCatalog>,
    description: &'static str,
}

impl LoadSkill {
    pub(crate) fn new(catalog: Arc<SkillCatalog>) -> Self {
        let mut description = String::from(
            "Load a skill: instructions for one kind of task, and the tools it brings. When the task \
             matches a skill below, load it first; its instructions come back as the result, and its \
             tools are callable from your next turn on. Skills:",
        );
        for skill in catalog.iter() {
            description.push_str(&format!(
                "\n- {}: {}",
                skill.name(),
                one_line(skill.description())
            ));
        }
        Self {
            catalog,
            // Interned: an agent built again with the same skills keeps no second copy.
            description: static_text(description),
        }
    }
}

/// `description` on one line: the listing gives each skill exactly one.
fn one_line(description: &str) -> String {
    description.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The skill named by `arguments[key]`, or the error the model reads.
fn named<'a>(
    catalog: &'a SkillCatalog,
    arguments: &Value,
    key: &str,
) -> AgentResult<&'a Arc<Skill>> {
    let name = arguments[key].as_str().ok_or_else(|| {
        AgentError::tool(format!("`{key}` must be the name of a skill, as listed in `{LOAD_SKILL_TOOL_NAME}`'s description"))
    })?;
    if let Some(skill) = catalog.get(name) {
        return Ok(skill);
    }
    let names: Vec<&str> = catalog.iter().map(|skill| skill.name()).collect();
    let hint = match crate::error::mistakes::closest(name, names.iter().copied()) {
        Some(candidate) => format!("; did you mean `{candidate}`?"),
        None => ".".to_string(),
    };
    Err(AgentError::tool(format!(
        "there is no skill `{name}`{hint} The skills: {}",
        names.join(", ")
    )))
}

/// What the model reads when it loads `skill`.
pub(crate) fn loaded_text(skill: &Skill, instructions: &str) -> String {
    let mut text = format!(
        "Skill `{}` loaded. Follow its instructions:\n\n{}",
        skill.name(),
        instructions.trim_end()
    );
    if !skill.tools().is_empty() {
        text.push_str(&format!(
            "\n\nTools of this skill, callable from your next turn on: {}",
            skill.tools().join(", ")
        ));
    }
    let files = skill.files();
    if !files.is_empty() {
        text.push_str(&format!(
            "\n\nFiles of this skill (read one with `{READ_SKILL_FILE_TOOL_NAME}` when the instructions point to it): {}",
            files.join(", ")
        ));
    }
    text
}

#[async_trait]
impl Tool for LoadSkill {
    fn name(&self) -> &'static str {
        LOAD_SKILL_TOOL_NAME
    }

    fn description(&self) -> &'static str {
        self.description
    }

    fn schema(&self) -> Value {
        let names: Vec<&str> = self.catalog.iter().map(|skill| skill.name()).collect();
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "enum": names, "description": "The skill's name"}
            },
            "required": ["name"]
        })
    }

    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        let skill = named(&self.catalog, args, "name")?;
        let instructions = skill
            .load()
            .await
            .map_err(|error| AgentError::tool(error.to_string()))?;
        Ok(vec![Content::text(loaded_text(skill, &instructions))])
    }
}

/// `read_skill_file`: one file of a skill, by a path inside the skill's folder only.
pub(crate) struct ReadSkillFile(pub(crate) Arc<SkillCatalog>);

#[async_trait]
impl Tool for ReadSkillFile {
    fn name(&self) -> &'static str {
        READ_SKILL_FILE_TOOL_NAME
    }

    fn description(&self) -> &'static str {
        "Read one file of a skill (a reference or template its instructions point to), by its path relative to the skill's folder"
    }

    fn schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "skill": {"type": "string", "description": "The skill's name"},
                "path": {"type": "string", "description": "The file's path inside the skill, e.g. `reference/forms.md`"}
            },
            "required": ["skill", "path"]
        })
    }

    async fn call(&self, args: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        let skill = named(&self.0, args, "skill")?;
        let path = args["path"].as_str().ok_or_else(|| {
            AgentError::tool(
                "`path` must be a file's path inside the skill, e.g. `reference/forms.md`",
            )
        })?;
        let text = skill
            .fetch_file(path)
            .await
            .map_err(|error| AgentError::tool(error.to_string()))?;
        Ok(vec![Content::text(text)])
    }
}

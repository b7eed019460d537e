//! Skills whose instructions and files are fetched when the model needs them, not held: the
//! skills an MCP server serves ([`McpClient::skills`](crate::mcp::McpClient::skills)), or any
//! other store a program implements [`SkillSource`] for.

use std::sync::Arc;

use super::definition::Skill;
use super::error::SkillError;
use super::source::SkillSource;

impl Skill {
    /// A skill whose instructions and files `source` fetches when the model loads it and reads
    /// them; `files` are the paths it lists to the model. Named and described as
    /// [`Skill::new`] requires.
    pub fn remote(
        name: impl Into<String>,
        description: impl Into<String>,
        files: Vec<String>,
        source: Arc<dyn SkillSource>,
    ) -> Result<Self, SkillError> {
        let mut skill = Skill::new(name, description, "")?;
        skill.remote = Some((source, files));
        Ok(skill)
    }

    /// The instructions, as the model reads them on loading the skill: those held, or those
    /// its [`SkillSource`] fetches.
    pub async fn load(&self) -> Result<String, SkillError> {
        match &self.remote {
            Some((source, _)) => source.instructions().await,
            None => Ok(self.instructions().to_string()),
        }
    }

    /// [`read_file`](Self::read_file) without blocking the async workers, or the file its
    /// [`SkillSource`] fetches.
    pub async fn fetch_file(self: &Arc<Self>, path: &str) -> Result<String, SkillError> {
        if let Some((source, _)) = &self.remote {
            return source.read_file(path).await;
        }
        let (skill, path) = (self.clone(), path.to_string());
        tokio::task::spawn_blocking(move || skill.read_file(&path))
            .await
            .map_err(|error| SkillError::Fetch {
                skill: self.name().to_string(),
                message: error.to_string(),
            })?
    }
}

//! [`SkillSource`]: where the instructions and files of a skill fetched on demand come from.

use async_trait::async_trait;

use super::error::SkillError;

/// Where a skill's instructions and files come from when they are fetched on demand
/// ([`Skill::remote`](crate::skill::Skill::remote)). Nothing is fetched before the model loads the skill: listing a skill
/// costs its one line only.
#[async_trait]
pub trait SkillSource: Send + Sync + 'static {
    /// The skill's instructions, fetched and checked (a server's skill: against the digest,
    /// size and frontmatter it listed); an error is what the model reads instead.
    async fn instructions(&self) -> Result<String, SkillError>;

    /// The text of the skill's file at `path`, relative to the skill.
    async fn read_file(&self, path: &str) -> Result<String, SkillError>;
}

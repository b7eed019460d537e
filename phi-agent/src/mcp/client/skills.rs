//! A server's skills (SEP-2640) imported as a [`SkillCatalog`]: `skills/list` gives each
//! skill's entry, and nothing more is read until the model loads a skill. Then its `SKILL.md`
//! is read and checked against the entry (size, SHA-256 digest, and the frontmatter field by
//! field); content that fails a check is not used, and the skill's other files are not read.
//! A file the model reads later is checked against its digest in the same way.

use std::sync::{Arc, Weak};

use async_trait::async_trait;
use rmcp::model::{
    ReadResourceRequestParams, ResourceContents, Skill as SkillEntry, SkillResources,
};
use serde_json::Value;

use super::connection::Connection;
use super::mcp_client::McpClient;
use crate::error::AgentResult;
use crate::skill::{Skill, SkillCatalog, SkillError, SkillSource, read_skill_md};

impl McpClient {
    /// The skills the server serves over MCP's skills extension (SEP-2640), as a catalogue to
    /// give an agent ([`AgentBuilder::skills`](crate::AgentBuilder::skills)), alone or merged
    /// with others. Only the listing is read now: a skill's `SKILL.md` is read when the model
    /// loads it, and checked against the listing (size, digest, frontmatter) before the model
    /// sees it; its files are read, and checked, when the model reads them. Imported skills
    /// bring no tools (the server's tools are imported as tools). A server that does not
    /// declare the extension has none; an entry whose name breaks the format's rule is left out,
    /// with a warning.
    pub async fn skills(&self) -> AgentResult<SkillCatalog> {
        let connection = &self.imports.connection;
        let peer = connection.peer().await?;
        let declared = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.supports_skills());
        if !declared {
            return Ok(SkillCatalog::new());
        }
        let entries = peer
            .list_all_skills()
            .await
            .map_err(|error| connection.error(format!("skills/list failed: {error}")))?;
        let mut catalog = SkillCatalog::new();
        for entry in entries {
            let (name, description) = (
                entry.name().to_string(),
                entry.frontmatter.description.clone(),
            );
            let files = listed_files(&entry);
            let source = Arc::new(ServedSkill {
                connection: Arc::downgrade(connection),
                entry,
            });
            let added = Skill::remote(name.clone(), description, files, source)
                .and_then(|skill| catalog.add(skill));
            if let Err(error) = added {
                tracing::warn!(server = %connection.server, skill = %name, %error, "skill not imported");
            }
        }
        Ok(catalog)
    }
}

/// The paths of an entry's files besides its `SKILL.md`, relative to the skill.
fn listed_files(entry: &SkillEntry) -> Vec<String> {
    let base = base(&entry.uri);
    match &entry.resources {
        SkillResources::Files(files) => files
            .iter()
            .filter(|file| file.uri != entry.uri)
            .filter_map(|file| file.uri.strip_prefix(base).map(String::from))
            .collect(),
        _ => Vec::new(),
    }
}

/// The URI of the skill's folder, `/` included: its `SKILL.md`'s URI without the file name.
fn base(uri: &str) -> &str {
    uri.strip_suffix("SKILL.md").unwrap_or(uri)
}

/// A skill a server serves, read through the client's connection when the model needs it.
struct ServedSkill {
    connection: Weak<Connection>,
    entry: SkillEntry,
}

impl ServedSkill {
    fn refused(&self, message: impl Into<String>) -> SkillError {
        SkillError::Fetch {
            skill: self.entry.name().to_string(),
            message: message.into(),
        }
    }

    /// The text at `uri`, checked against the entry's size and digest for it (an entry of
    /// `"dynamic"` resources has none to check).
    async fn read_checked(&self, uri: &str) -> Result<String, SkillError> {
        let connection = self
            .connection
            .upgrade()
            .ok_or_else(|| self.refused("the MCP client was closed"))?;
        let peer = connection
            .peer()
            .await
            .map_err(|error| self.refused(error.to_string()))?;
        let result = peer
            .read_resource(ReadResourceRequestParams::new(uri))
            .await
            .map_err(|error| self.refused(format!("reading {uri} failed: {error}")))?;
        let text = result
            .contents
            .into_iter()
            .find_map(|contents| match contents {
                ResourceContents::TextResourceContents { text, .. } => Some(text),
                _ => None,
            })
            .ok_or_else(|| self.refused(format!("{uri} came back without text")))?;
        if let SkillResources::Files(files) = &self.entry.resources {
            let listed = files
                .iter()
                .find(|file| file.uri == uri)
                .ok_or_else(|| self.refused(format!("{uri} is not listed in the skill's entry")))?;
            listed
                .verify(text.as_bytes())
                .map_err(|error| self.refused(format!("{error}; the content is not used")))?;
        }
        Ok(text)
    }
}

#[async_trait]
impl SkillSource for ServedSkill {
    async fn instructions(&self) -> Result<String, SkillError> {
        let text = self.read_checked(&self.entry.uri).await?;
        let (front, body) = read_skill_md(&text)
            .map_err(|message| self.refused(format!("its SKILL.md: {message}")))?;
        let listed = match serde_json::to_value(&self.entry.frontmatter) {
            Ok(Value::Object(listed)) => listed,
            _ => return Err(self.refused("its listed frontmatter is not an object")),
        };
        let mut differ: Vec<&str> = front
            .keys()
            .chain(listed.keys())
            .filter(|key| front.get(*key) != listed.get(*key))
            .map(String::as_str)
            .collect();
        differ.sort_unstable();
        differ.dedup();
        if !differ.is_empty() {
            return Err(self.refused(format!(
                "its SKILL.md's frontmatter differs from the listed one in {}; the skill is not loaded",
                differ.join(", ")
            )));
        }
        Ok(body.to_string())
    }

    async fn read_file(&self, path: &str) -> Result<String, SkillError> {
        let relative = crate::skill::normalize_path(path)?;
        let uri = format!("{}{relative}", base(&self.entry.uri));
        if !listed_files(&self.entry).contains(&relative) {
            return Err(SkillError::NoSuchFile {
                skill: self.entry.name().to_string(),
                path: path.to_string(),
                files: listed_files(&self.entry),
            });
        }
        self.read_checked(&uri).await
    }
}

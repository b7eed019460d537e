//! Skills: instructions for one kind of task, with the tools they bring and the files they point
//! to, offered to the model one line each and loaded when a task needs one.
//!
//! A [`Skill`] is built in code ([`Skill::new`]) or read from a folder holding a `SKILL.md`
//! ([`Skill::from_dir`], feature `skills`: YAML frontmatter, then Markdown instructions, the
//! Agent Skills format that MCP's skills extension serves); a folder of such folders is a
//! [`SkillCatalog`] ([`SkillCatalog::from_dir`]).
//!
//! An agent given a catalogue ([`AgentBuilder::skills`](crate::AgentBuilder::skills)) offers two
//! more tools. `load_skill` lists every skill in its description, one line each; its result is the
//! skill's instructions, and the Deferred tools the skill names become active for the next
//! request, appended to the tool list. Nothing before them changes: not the system prompt, not
//! the earlier tools, not the conversation, so a provider's prompt cache of that prefix still
//! serves. `read_skill_file` reads one of a skill's files, by a path that must stay inside the
//! skill's folder. With tool search on, `search_tools` finds skills as well as tools.

mod catalog;
mod definition;
mod error;
mod files;
#[cfg(feature = "skills")]
mod frontmatter;
mod name;
mod remote;
mod source;
mod tools;

pub use catalog::SkillCatalog;
pub use definition::Skill;
pub use error::SkillError;
pub use files::MAX_SKILL_FILE_BYTES;
// For the MCP client's imported skills.
#[cfg(all(feature = "skills", feature = "mcp-client"))]
pub(crate) use files::normalize as normalize_path;
#[cfg(feature = "skills")]
#[cfg_attr(docsrs, doc(cfg(feature = "skills")))]
pub use frontmatter::SKILL_FILE;
#[cfg(all(feature = "skills", feature = "mcp-client"))]
pub(crate) use frontmatter::read_skill_md;
pub use name::{MAX_SKILL_DESCRIPTION_LEN, MAX_SKILL_NAME_LEN, validate_skill_name};
pub use source::SkillSource;
pub use tools::{LOAD_SKILL_TOOL_NAME, READ_SKILL_FILE_TOOL_NAME};
pub(crate) use tools::{LoadSkill, ReadSkillFile};

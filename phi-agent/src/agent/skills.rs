//! An agent's skills: the catalogue, the tools each skill brings (by registration index), and
//! the index `search_tools` ranks skills with. Loading is a step of closing a turn: the turn's
//! successful `load_skill` calls name the skills whose tools become active for the next request.

use std::sync::{Arc, OnceLock};

use crate::error::AgentResult;
use crate::llm::ToolCall;
use crate::registry::ToolRegistry;
use crate::search::SkillIndex;
use crate::skill::{LOAD_SKILL_TOOL_NAME, LoadSkill, ReadSkillFile, SkillCatalog};

/// Most skills one `search_tools` answer lists besides its tools.
const SKILLS_PER_SEARCH: usize = 3;

/// The skills of an agent, with what loading one needs.
pub(super) struct AgentSkills {
    catalog: Arc<SkillCatalog>,
    /// Per skill, in catalogue order: the registration indices of the tools it brings.
    tools: Vec<Vec<usize>>,
    /// Built on the first search.
    index: OnceLock<SkillIndex>,
}

impl AgentSkills {
    /// Holds each tool a skill names for loading (it must be a registered Deferred tool), then
    /// registers `load_skill` and `read_skill_file`.
    pub(super) fn register(
        catalog: SkillCatalog,
        registry: &mut ToolRegistry,
    ) -> AgentResult<Self> {
        let catalog = Arc::new(catalog);
        let mut tools = Vec::with_capacity(catalog.len());
        for skill in catalog.iter() {
            let indices = skill
                .tools()
                .iter()
                .map(|name| {
                    registry.hold_for_load(name).map_err(|error| {
                        crate::error::AgentError::Config(format!(
                            "skill `{}`: {error}",
                            skill.name()
                        ))
                    })
                })
                .collect::<AgentResult<Vec<usize>>>()?;
            tools.push(indices);
        }
        registry.register(LoadSkill::new(catalog.clone()))?;
        registry.register(ReadSkillFile(catalog.clone()))?;
        Ok(Self {
            catalog,
            tools,
            index: OnceLock::new(),
        })
    }

    /// The registration indices of the tools that a turn's successful `load_skill` calls bring,
    /// in call order; `calls` pairs each call with whether its result is an error.
    pub(super) fn loaded_by<'a>(
        &self,
        calls: impl IntoIterator<Item = (&'a ToolCall, bool)>,
    ) -> Vec<usize> {
        let mut indices = Vec::new();
        for (call, is_error) in calls {
            if is_error || call.name != LOAD_SKILL_TOOL_NAME {
                continue;
            }
            let Some(name) = call.arguments["name"].as_str() else {
                continue;
            };
            if let Some(at) = self.catalog.iter().position(|skill| skill.name() == name) {
                indices.extend_from_slice(&self.tools[at]);
            }
        }
        indices
    }

    /// The lines a `search_tools` answer adds for the skills that match `query`, if any does.
    pub(super) fn found_text(&self, query: &str) -> Option<String> {
        let index = self.index.get_or_init(|| {
            SkillIndex::build(
                self.catalog
                    .iter()
                    .map(|skill| (skill.name(), skill.description())),
            )
        });
        let hits = index.search(query, SKILLS_PER_SEARCH);
        if hits.is_empty() {
            return None;
        }
        let skills: Vec<_> = self.catalog.iter().collect();
        let mut text = format!(
            "Skills for this task (instructions and tools; load one with `{LOAD_SKILL_TOOL_NAME}`):"
        );
        for (at, _) in hits {
            let skill = skills[at];
            let description: Vec<&str> = skill.description().split_whitespace().collect();
            text.push_str(&format!("\n- {}: {}", skill.name(), description.join(" ")));
        }
        Some(text)
    }
}

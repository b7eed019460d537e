//! The held-out sets as files, and each as a registry of Deferred tools.

use std::path::PathBuf;

use async_trait::async_trait;
use phi_agent::registry::ToolRegistry;
use phi_agent::{AgentResult, Content, Tool, ToolContext, ToolExposure, ToolGroup, static_text};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The sets, by file name under `data/`.
pub const SETS: [&str; 5] = [
    "bfcl",
    "agentdojo",
    "nestful",
    "complexfuncbench",
    "livemcpbench",
];

/// One set: its catalogue and its queries.
#[derive(Debug, Deserialize)]
pub struct HeldOut {
    /// Its name in `SETS` (the data file's stem).
    #[serde(skip)]
    pub name: String,
    /// The catalogue, in registration order.
    pub tools: Vec<ToolText>,
    /// The queries, each with the tools it needs.
    pub queries: Vec<HeldOutQuery>,
}

/// A tool as the set describes it.
#[derive(Debug, Deserialize)]
pub struct ToolText {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its parameters: name and doc.
    pub params: Vec<(String, String)>,
    /// Its group (an MCP server): name and description.
    #[serde(default)]
    pub group: Option<(String, String)>,
}

/// A request and the tools it needs.
#[derive(Debug, Deserialize)]
pub struct HeldOutQuery {
    /// The request's text.
    pub text: String,
    /// The names of the tools it needs; `a|b` where either will do (two servers' tools of the
    /// one name the set's annotation gives).
    pub expected: Vec<String>,
    /// The set's own category of the request.
    pub kind: String,
    /// `tune` or `test`.
    pub part: String,
}

impl HeldOutQuery {
    /// The positions of the tools it needs, each as its alternatives.
    pub fn positions(&self, position: impl Fn(&str) -> usize) -> Vec<Vec<usize>> {
        self.expected
            .iter()
            .map(|e| e.split('|').map(&position).collect())
            .collect()
    }
}

/// Reads one set.
///
/// # Panics
///
/// With the path, if the file is missing or malformed: the data is committed beside this crate.
pub fn load(set: &str) -> HeldOut {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(format!("{set}.json"));
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let mut held_out: HeldOut =
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    held_out.name = set.to_string();
    held_out
}

/// Every set, with a registry of its tools.
pub fn every_set() -> Vec<(HeldOut, ToolRegistry)> {
    SETS.iter()
        .map(|name| {
            let set = load(name);
            let registry = registry(&set);
            (set, registry)
        })
        .collect()
}

/// A registry of the set's tools, in order, every one Deferred (registration index = position).
///
/// # Panics
///
/// If the set names a tool twice or a name the registry refuses (the data is committed).
pub fn registry(set: &HeldOut) -> ToolRegistry {
    let mut registry = ToolRegistry::default();
    for tool in &set.tools {
        let mut properties = Map::new();
        for (name, doc) in &tool.params {
            properties.insert(name.clone(), json!({"type": "string", "description": doc}));
        }
        let mut listed = Listed::deferred(
            static_text(&tool.name),
            static_text(&tool.description),
            json!({"type": "object", "properties": properties}),
        );
        listed.group = tool
            .group
            .as_ref()
            .map(|(name, description)| ToolGroup::new(name, description));
        registry
            .register(listed)
            .unwrap_or_else(|error| panic!("{}: {error}", tool.name));
    }
    registry
}

/// A catalogue's tool, Deferred: only searched, never run for real (a call answers
/// `ran <name>`).
pub struct Listed {
    name: &'static str,
    description: &'static str,
    schema: Value,
    group: Option<ToolGroup>,
}

impl Listed {
    /// A tool of this name, description and parameter schema.
    pub fn deferred(name: &'static str, description: &'static str, schema: Value) -> Self {
        Self {
            name,
            description,
            schema,
            group: None,
        }
    }
}

#[async_trait]
impl Tool for Listed {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn schema(&self) -> Value {
        self.schema.clone()
    }
    fn exposure(&self) -> ToolExposure {
        ToolExposure::Deferred
    }
    fn group(&self) -> Option<ToolGroup> {
        self.group.clone()
    }
    async fn call(&self, _: &Value, _: &ToolContext) -> AgentResult<Vec<Content>> {
        Ok(vec![Content::text(format!("ran {}", self.name))])
    }
}

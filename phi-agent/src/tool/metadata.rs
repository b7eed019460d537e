//! What a tool says about itself for people and clients: [`ToolMetadata`] (origin, version,
//! requirements) and [`ToolAnnotations`] (MCP's behaviour hints).

use serde::Serialize;

/// Machine-readable facts about a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolMetadata {
    /// The tool's name.
    pub name: String,
    /// The tool's description.
    pub description: String,
    /// Where the tool comes from (a crate name, `custom`, `mcp:<server>`).
    pub origin: String,
    /// The version of its origin.
    pub version: String,
    /// What the tool needs to work (`network`, `filesystem`, ...).
    pub requirements: Vec<String>,
}

/// A group of tools that belong together (one MCP server's, one toolset's), named and described
/// once for all of them ([`Tool::group`](super::Tool::group)): tool search reads its name and
/// description as context for each of its tools.
///
/// ```
/// use phi_agent::ToolGroup;
/// let group = ToolGroup::new("amap", "Maps of China: geocoding, routes, places and weather.");
/// assert_eq!(group.name, "amap");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct ToolGroup {
    /// The group's name (a server's name, a toolset's prefix).
    pub name: String,
    /// What its tools are for, in a sentence or two (may be empty).
    pub description: String,
}

impl ToolGroup {
    /// A group named `name`, described by `description`.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
        }
    }
}

impl ToolMetadata {
    /// The metadata of a tool written by hand: origin `custom`, version `unknown`, no
    /// requirements. This is what [`Tool::metadata`](super::Tool::metadata) returns unless a tool says more; set the
    /// fields to say more.
    ///
    /// ```
    /// use phi_agent::ToolMetadata;
    ///
    /// let metadata = ToolMetadata {
    ///     requirements: vec!["network".to_string()],
    ///     ..ToolMetadata::new("get_weather", "Get current weather for a city.")
    /// };
    /// assert_eq!(metadata.origin, "custom");
    /// assert_eq!(metadata.version, "unknown");
    /// ```
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        ToolMetadata {
            name: name.into(),
            description: description.into(),
            origin: "custom".to_string(),
            version: "unknown".to_string(),
            requirements: Vec::new(),
        }
    }
}

/// Hints about what a tool does, as MCP clients read them. `None` leaves the protocol default
/// (not read-only, destructive, not idempotent, open world).
///
/// `#[non_exhaustive]`: start from [`Default`] and set hints with the `with_*` setters.
///
/// ```
/// use phi_agent::ToolAnnotations;
/// let hints = ToolAnnotations::default().with_read_only(true);
/// assert_eq!(hints.read_only, Some(true));
/// assert_eq!(hints.destructive, None);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// The tool does not change its environment.
    pub read_only: Option<bool>,
    /// The tool may destroy or overwrite data (meaningful when not read-only).
    pub destructive: Option<bool>,
    /// Calling it twice with the same arguments has no further effect.
    pub idempotent: Option<bool>,
    /// The tool talks to an open world (the internet) rather than a closed domain.
    pub open_world: Option<bool>,
}

impl ToolAnnotations {
    /// These hints with [`read_only`](Self::read_only) set to `on`.
    pub fn with_read_only(mut self, on: bool) -> Self {
        self.read_only = Some(on);
        self
    }

    /// These hints with [`destructive`](Self::destructive) set to `on`.
    pub fn with_destructive(mut self, on: bool) -> Self {
        self.destructive = Some(on);
        self
    }

    /// These hints with [`idempotent`](Self::idempotent) set to `on`.
    pub fn with_idempotent(mut self, on: bool) -> Self {
        self.idempotent = Some(on);
        self
    }

    /// These hints with [`open_world`](Self::open_world) set to `on`.
    pub fn with_open_world(mut self, on: bool) -> Self {
        self.open_world = Some(on);
        self
    }
}

//! What a server says of itself at initialize, kept for its tools: its version, and what they
//! are for.

use rmcp::RoleClient;
use rmcp::service::Peer;

/// What a server said of itself when it was initialized: its version, and what its tools are
/// for (the group its tools are searched with).
#[derive(Debug, Clone, Default)]
pub(super) struct ServerAbout {
    /// The version it announced, if any.
    pub(super) version: Option<String>,
    /// Its description, else its title, else the first paragraph of its instructions (cut at
    /// [`MAX_ABOUT_CHARS`]); empty when it said none of these.
    pub(super) description: String,
}

/// Most characters of a server's instructions kept as its tools' group description: the first
/// paragraph says what the server is for; the rest is how to use it.
const MAX_ABOUT_CHARS: usize = 300;

/// What the server announced of itself.
pub(super) fn server_about(peer: &Peer<RoleClient>) -> ServerAbout {
    let Some(info) = peer.peer_info() else {
        return ServerAbout::default();
    };
    let implementation = info.server_info.as_ref();
    let said = implementation
        .and_then(|i| i.description.clone().or_else(|| i.title.clone()))
        .or_else(|| {
            let instructions = info.instructions.as_deref()?;
            let first = instructions.trim().split("\n\n").next()?;
            Some(first.chars().take(MAX_ABOUT_CHARS).collect())
        });
    ServerAbout {
        version: implementation.map(|i| i.version.clone()),
        description: said.unwrap_or_default().trim().to_string(),
    }
}

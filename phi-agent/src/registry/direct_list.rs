//! The one tool list shared by every session that sees exactly the Direct tools (see
//! `shared_list` for why, and for the rule every cache of a tool list follows): data only, held
//! by the registry and built by `shared_list`.

use std::fmt;
use std::sync::{Arc, OnceLock};

use super::spec::ToolSpec;

/// The list of the Direct tools, built on first use; emptied when a tool is registered.
#[derive(Clone, Default)]
pub(super) struct DirectList(pub(super) OnceLock<Arc<[ToolSpec]>>);

impl fmt::Debug for DirectList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "DirectList(built)"
        } else {
            "DirectList(not built)"
        })
    }
}

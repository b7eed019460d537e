//! What a tool is: the [`Tool`] trait (its data plus its call), the one value that holds every
//! property beyond the reference page's methods ([`ToolOptions`]), and the small types those
//! name.

mod approval;
mod contract;
mod exposure;
mod fast_path;
mod limits;
mod metadata;
mod options;
mod static_text;
mod task;

pub(crate) use approval::AskArgs;
pub use approval::{ApprovalRule, ToolApproval};
pub use contract::{FastPath, Tool};
pub use exposure::{ToolCallers, ToolExposure};
pub use fast_path::TypedCall;
pub use limits::{InvalidRate, Rate, ToolLimits};
pub use metadata::{ToolAnnotations, ToolGroup, ToolMetadata};
pub use options::ToolOptions;
pub use static_text::static_text;
pub use task::TaskSupport;

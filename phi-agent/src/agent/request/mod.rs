//! One front door for every run: a [`RunRequest`], made by `prompt` (on an agent or a session)
//! or `resume`, changed by its modifiers and run by awaiting it or by its `stream`. What it
//! returns follows from its modifiers, as types (`answer_kind.rs`).

mod answer_kind;
mod entry;
mod input;
mod options;
mod run_request;

pub use answer_kind::{Plain, Typed};
pub use input::RunInput;
pub use options::RunOptions;
pub use run_request::RunRequest;

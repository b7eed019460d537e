//! Procedural macros for [phi-agent](https://docs.rs/phi-agent).
//!
//! Use them through `phi_agent` (`phi_agent::phi_tool`, `phi_agent::tools!`); this crate is an
//! implementation detail and its version is pinned by `phi-agent`.

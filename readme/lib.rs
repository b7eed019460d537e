//! The README, as doc tests: every ```rust block of `README.md` is compiled (and run, unless
//! marked `no_run`) against the dependencies its "Your crate's `Cargo.toml`" section lists, and
//! nothing else (`tests/cargo_toml.rs` holds this crate to that list).
//!
//! `build.rs` puts each block's scaffolding, kept in an HTML comment just before it, around it
//! as hidden lines. Run them alone with `cargo test -p phi-agent-readme`.
#![doc = include_str!(concat!(env!("OUT_DIR"), "/README.md"))]

//! Testing an agent built on [phi-agent](phi_agent): record a provider's HTTP exchanges once
//! and replay them offline ([`cassette`]), and score what the agent did over a dataset of cases
//! ([`eval`]).
//!
//! A crate of its own, so that a program that does not test builds none of it.

pub mod cassette;
pub mod eval;

//! Compile-pass and compile-fail tests of phi-agent's macros live in `tests/`; this crate has no code.

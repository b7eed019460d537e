//! Integration tests, one binary for the whole group (fewer binaries link faster and take less
//! disk than one per file). The HTTP adapters against local fake servers (wiremock): faults,
//! retries, security, streamed replies (`gemini_responses`: the Gemini and Responses adapters);
//! and the interop entry points that `interop/run.sh` runs
//! against fakellm.

#[path = "../support/providers.rs"]
mod providers;

mod embeddings;
mod first_request;
mod gemini_responses;
mod http_faults;
mod input_examples;
mod interop;
mod mcp_header_dialects;
mod network_faults;
mod security;
mod streaming;
mod transport;
mod typed_answer;

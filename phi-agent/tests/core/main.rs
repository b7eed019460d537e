//! Integration tests, one binary for the whole group (fewer binaries link faster and take less
//! disk than one per file). Everything that runs in one process without a network: the registry
//! and dispatch, the agent loop on the scripted model (approval, paused and streamed runs included),
//! durable runs replayed from a journal, schemas and their conformance corpus, telemetry. The
//! reference page's snippets (`seed.rs`)
//! and the memory bound (`memory.rs`, which installs a counting global allocator) keep binaries
//! of their own.

mod adversarial_model;
mod agent_loop;
mod approval;
mod approval_integrity;
mod approval_scopes;
mod argument_mistakes;
mod argument_repair;
mod context_policy_props;
mod dispatch_props;
mod durable;
mod early_start;
mod faulty_tools;
mod input_examples;
mod long_sessions;
mod loop_detection;
mod nested_calls;
mod provider_state;
mod registry;
mod result_budgets;
mod run_props;
mod run_request;
mod schema_conformance;
mod schema_definitions;
mod schema_props;
mod skills;
mod streaming;
mod talk_back;
mod telemetry;
mod tool_limits;
mod tool_search;
mod tool_search_embed;
mod tool_search_groups;
mod tool_search_steps;
mod toolsets;
mod typed_answer;
mod typed_pause;

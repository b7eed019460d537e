//! Integration tests, one binary for the whole group (fewer binaries link faster and take less
//! disk than one per file). The MCP bridge over real transports: serving over stdio and
//! streamable HTTP, and importing a server's tools; sessions, malformed messages and load.

mod mcp_2026_wire;
mod mcp_apps;
mod mcp_client;
mod mcp_client_dpop;
mod mcp_client_grants;
mod mcp_client_http;
mod mcp_client_oauth;
mod mcp_client_param_headers;
mod mcp_client_raw;
mod mcp_client_reauth;
mod mcp_client_seam;
mod mcp_client_talk;
mod mcp_direct;
mod mcp_http;
mod mcp_load;
mod mcp_malformed;
mod mcp_param_headers;
mod mcp_server;
mod mcp_server_approval;
mod mcp_server_card;
mod mcp_server_input_keys;
mod mcp_server_rounds;
mod mcp_sessions;
mod mcp_skills;
mod mcp_sse_polling;
mod mcp_talk;
mod mcp_tasks;
mod mcp_tasks_ask_first;
mod mcp_two_eras;
mod raw;

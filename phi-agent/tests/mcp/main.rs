//! Integration tests, one binary for the whole group (fewer binaries link faster and take less
//! disk than one per file). The MCP bridge over real transports: serving over stdio and
//! streamable HTTP, and importing a server's tools.

mod mcp_client;
mod mcp_http;
mod mcp_server;

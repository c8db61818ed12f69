//! `/mcp`: the catalog as a Model Context Protocol server, for AI agents. Streamable HTTP with
//! `rmcp` (the protocol's official Rust SDK): `POST /mcp` carries one JSON-RPC message and is
//! answered with one JSON message.
//!
//! It is stateless: no `Mcp-Session-Id`, nothing kept between requests, so any server behind a
//! load balancer answers any request and there is no session table to cap or expire. `GET` and
//! `DELETE` (the server-sent stream and the end of a session) answer `405`.
//!
//! Each tool is one REST route (`tools`), and a tool call is one in-process request to the REST
//! routes (`relay`), so a tool answers exactly the route's JSON: its checks, limits, errors and
//! authorization are the route's own. The write tool works only with a bearer token that has
//! the `write` scope, sent as `Authorization` on the `/mcp` requests; it is listed to everyone,
//! so that agents learn it exists and what it needs, and refused as the REST route refuses.
//!
//! What a `/mcp` request meets (see `crate::router`): the cap on requests in progress and the
//! time limit (an answer's headers wait for the tool's result, so the limit covers the tool's
//! work), CORS, the access log, identity and the rate limit (one unit per `/mcp` request; the
//! relayed request is not counted again), and a body limit of its own ([`MCP_BODY_LIMIT`]).
//!
//! Layout:
//! - `tools` — the tools, their arguments and descriptions, and the server's instructions.
//! - `relay` — a tool call as a request to the REST routes, and its answer as the tool's result.

mod relay;
mod tools;

use std::sync::Arc;

use axum::Router;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::extract::JSON_BODY_LIMIT;
use crate::state::AppState;

/// Where the MCP server answers.
pub const MCP_PATH: &str = "/mcp";

/// The largest `/mcp` request body: a REST body of the largest size the API takes, with room
/// for the JSON-RPC envelope around it, so any write the REST route accepts fits a tool call.
pub const MCP_BODY_LIMIT: usize = JSON_BODY_LIMIT + (64 << 10);

/// `/mcp`, answering with tools that call `rest`: the REST routes with their identity and mirror
/// layers, and none of the outer ones (which the `/mcp` request itself meets).
pub(crate) fn router(rest: Router) -> Router<AppState> {
    let server = tools::Catalog::new(relay::Relay::new(rest));
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        .with_max_request_body_bytes(MCP_BODY_LIMIT)
        // The server is public, behind any host name: rmcp's default (loopback hosts only)
        // guards a local server that trusts whoever can reach it against DNS rebinding. Here
        // nothing is trusted by reaching it: writes need a bearer token, which a rebinding
        // page does not have (and a session cookie is never used by the tools).
        .disable_allowed_hosts();
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    Router::new().route_service(MCP_PATH, service)
}

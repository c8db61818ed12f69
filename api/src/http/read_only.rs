//! A mirror serves reads only: every other method is refused with `403` naming the primary,
//! where the write belongs. Nothing may write a mirror's catalog but its follower, and
//! workflow state written here (suggestions, accounts) would never reach the primary.

use axum::extract::Request;
use axum::http::Method;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::state::AppState;

const GIT_UPLOAD_PACK: &str = "/git/catalog.git/git-upload-pack";

/// On a mirror, the refusal of `req` if it writes (see [`super::identity::Identified`], which
/// asks before it looks at who sent the request).
pub fn refusal(state: &AppState, req: &Request) -> Option<Response> {
    let mirror = state.mirror.as_ref()?;
    let reads = [Method::GET, Method::HEAD, Method::OPTIONS];
    // A fetch from the git mirror and an OAI-PMH request by POST are POSTs that read. So is
    // every MCP request: its write tool's REST request meets this check itself, and is refused
    // here as any write is.
    let reading_post = [
        GIT_UPLOAD_PACK,
        crate::routes::oai::OAI_PATH,
        crate::routes::mcp::MCP_PATH,
    ]
    .contains(&req.uri().path());
    (!reads.contains(req.method()) && !reading_post).then(|| {
        ApiError::Forbidden(format!(
            "this server is a read-only mirror of {}: send writes there",
            mirror.primary()
        ))
        .into_response()
    })
}

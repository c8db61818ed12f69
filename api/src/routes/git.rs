//! `/git/catalog.git`: the git mirror, served for `git clone` and `git fetch` over git's smart
//! HTTP protocol by `git http-backend`, git's own CGI program.
//!
//! Only fetching is served: the advertisement (`GET info/refs?service=git-upload-pack`) and the
//! pack exchange (`POST git-upload-pack`). Pushes are refused here and by the repository's own
//! configuration; the catalog changes only through suggestions. A clone costs the server work
//! in proportion to the history, so backends run a few at a time ([`GIT_BACKENDS`]; past that
//! `429` with `Retry-After`), the request a client sends is capped after decompression
//! ([`GIT_REQUEST_LIMIT`]), and no exchange lasts longer than [`GIT_TRANSFER_LIMIT`].

use std::path::PathBuf;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use tokio::io::{
    AsyncBufReadExt as _, AsyncRead, AsyncReadExt as _, AsyncWriteExt as _, BufReader, ReadBuf,
};
use tokio::process::{Child, ChildStdout, Command};
use tokio::sync::OwnedSemaphorePermit;
use tower_http::decompression::RequestDecompressionLayer;

use crate::error::ApiError;
use crate::state::AppState;

/// Where the repository is served.
pub const GIT_PATH: &str = "/git/catalog.git";
/// Backends running at once.
pub const GIT_BACKENDS: usize = 4;
/// The largest request body (after gzip is undone) a fetch may send: its `want` and `have`
/// lines, which for one branch are a few kilobytes.
pub const GIT_REQUEST_LIMIT: usize = 1 << 20;
/// The longest one exchange may take, a whole clone's pack included.
pub const GIT_TRANSFER_LIMIT: Duration = Duration::from_secs(30 * 60);
/// The most header bytes a backend may write before its body.
const CGI_HEAD_LIMIT: usize = 16 << 10;

pub(crate) fn router() -> Router<AppState> {
    Router::new()
        .route(&format!("{GIT_PATH}/info/refs"), get(advertise))
        .route(&format!("{GIT_PATH}/git-upload-pack"), post(upload_pack))
        // Git clients gzip their requests; the cap applies to what they unpack to.
        .layer(RequestDecompressionLayer::new())
}

/// The git mirror as the routes serve it.
#[derive(Clone)]
pub struct GitServe {
    pub mirror: catalog_snapshots::GitMirror,
    /// The folder holding `catalog.git` (the backend's project root).
    pub root: PathBuf,
    pub slots: Arc<tokio::sync::Semaphore>,
}

impl GitServe {
    pub fn new(mirror: catalog_snapshots::GitMirror) -> GitServe {
        let root = mirror
            .dir()
            .parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default();
        GitServe {
            mirror,
            root,
            slots: Arc::new(tokio::sync::Semaphore::new(GIT_BACKENDS)),
        }
    }
}

async fn advertise(State(state): State<AppState>, req: Request) -> Result<Response, ApiError> {
    if req.uri().query() != Some("service=git-upload-pack") {
        return Err(ApiError::Forbidden(
            "only git's smart HTTP protocol for fetching is served here \
             (info/refs?service=git-upload-pack): clone with git 1.6.6 or later; \
             the catalog changes through suggestions, never by push"
                .into(),
        ));
    }
    backend(
        &state,
        "GET",
        "/catalog.git/info/refs",
        "service=git-upload-pack",
        req,
    )
    .await
}

async fn upload_pack(State(state): State<AppState>, req: Request) -> Result<Response, ApiError> {
    backend(&state, "POST", "/catalog.git/git-upload-pack", "", req).await
}

/// Runs `git http-backend` for one request and streams its answer.
async fn backend(
    state: &AppState,
    method: &str,
    path_info: &str,
    query: &str,
    req: Request,
) -> Result<Response, ApiError> {
    let git = state.git.clone().ok_or_else(|| {
        ApiError::NotFound(
            "this server keeps no git mirror (it is switched on with `catalog serve --git-mirror`)"
                .into(),
        )
    })?;
    let permit = git.slots.clone().try_acquire_owned().map_err(|_| ApiError::Throttled {
        message: format!(
            "the git mirror is serving {GIT_BACKENDS} clones or fetches already: try again shortly"
        ),
        retry_after_secs: 10,
    })?;
    let (parts, body) = req.into_parts();
    let body = to_bytes(body, GIT_REQUEST_LIMIT)
        .await
        .map_err(|_| ApiError::PayloadTooLarge {
            limit: GIT_REQUEST_LIMIT,
        })?;

    let mut cmd = Command::new("git");
    cmd.arg("http-backend")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        // Only the repository's own configuration counts.
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", &git.root)
        .env("GIT_PROJECT_ROOT", &git.root)
        .env("GIT_HTTP_EXPORT_ALL", "1")
        .env("REQUEST_METHOD", method)
        .env("PATH_INFO", path_info)
        .env("QUERY_STRING", query)
        .env("CONTENT_LENGTH", body.len().to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(ct) = header_text(&parts.headers, header::CONTENT_TYPE) {
        cmd.env("CONTENT_TYPE", ct);
    }
    // Protocol v2 is asked for with this header; its value is `key=value` pairs.
    if let Some(proto) = header_text(&parts.headers, HeaderName::from_static("git-protocol"))
        && proto.len() <= 64
        && proto
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"=:._-".contains(&b))
    {
        cmd.env("HTTP_GIT_PROTOCOL", proto);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| ApiError::Internal(format!("cannot run git http-backend: {e}")))?;
    feed(&mut child, body);
    log_complaints(&mut child);
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut reader = BufReader::new(stdout);
    let head = read_cgi_head(&mut reader).await?;
    let (status, headers) = parse_cgi_head(&head)?;
    let stream = Guarded {
        reader,
        _child: child,
        _permit: permit,
        deadline: Box::pin(tokio::time::sleep(GIT_TRANSFER_LIMIT)),
    };
    let mut res = Response::new(Body::from_stream(tokio_util::io::ReaderStream::new(stream)));
    *res.status_mut() = status;
    *res.headers_mut() = headers;
    Ok(res)
}

fn header_text(headers: &HeaderMap, name: HeaderName) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// Writes the request body to the backend's input on a task of its own, so a backend that
/// answers before reading it all cannot stall the answer.
fn feed(child: &mut Child, body: Bytes) {
    let mut stdin = child.stdin.take().expect("stdin is piped");
    tokio::spawn(async move {
        let _ = stdin.write_all(&body).await;
        let _ = stdin.shutdown().await;
    });
}

/// Logs what the backend says on its error stream (the first few kilobytes of it).
fn log_complaints(child: &mut Child) {
    let stderr = child.stderr.take().expect("stderr is piped");
    tokio::spawn(async move {
        let mut text = String::new();
        let _ = stderr.take(4096).read_to_string(&mut text).await;
        if !text.trim().is_empty() {
            tracing::warn!(said = %text.trim(), "git http-backend");
        }
    });
}

/// Reads the CGI header block, up to and including its blank line.
async fn read_cgi_head(reader: &mut BufReader<ChildStdout>) -> Result<Vec<u8>, ApiError> {
    let mut head = Vec::new();
    loop {
        let start = head.len();
        let n = reader
            .read_until(b'\n', &mut head)
            .await
            .map_err(|e| ApiError::Internal(format!("reading git http-backend: {e}")))?;
        if n == 0 {
            return Err(ApiError::Internal(
                "git http-backend ended before its headers".into(),
            ));
        }
        if head.len() > CGI_HEAD_LIMIT {
            return Err(ApiError::Internal(
                "git http-backend's headers are too long".into(),
            ));
        }
        if matches!(&head[start..], b"\n" | b"\r\n") {
            return Ok(head);
        }
    }
}

/// The status and headers of a CGI header block: `Status: 404 Not Found` sets the status
/// (200 without it), every other line is a header.
pub(crate) fn parse_cgi_head(head: &[u8]) -> Result<(StatusCode, HeaderMap), ApiError> {
    let bad = |why: &str| ApiError::Internal(format!("git http-backend wrote {why}"));
    let mut status = StatusCode::OK;
    let mut headers = HeaderMap::new();
    for line in head.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let colon = line
            .iter()
            .position(|&b| b == b':')
            .ok_or_else(|| bad("a header line without a colon"))?;
        let (name, value) = (&line[..colon], line[colon + 1..].trim_ascii());
        if name.eq_ignore_ascii_case(b"status") {
            let code = value
                .split(|&b| b == b' ')
                .next()
                .and_then(|c| std::str::from_utf8(c).ok())
                .and_then(|c| c.parse::<u16>().ok())
                .and_then(|c| StatusCode::from_u16(c).ok())
                .ok_or_else(|| bad("a status that is not one"))?;
            status = code;
            continue;
        }
        let name = HeaderName::from_bytes(name).map_err(|_| bad("a bad header name"))?;
        let value = HeaderValue::from_bytes(value).map_err(|_| bad("a bad header value"))?;
        headers.append(name, value);
    }
    Ok((status, headers))
}

/// The backend's output as the answer's body, holding the process (killed if the client goes
/// away first) and its place among the running backends until the last byte, and ending the
/// answer at [`GIT_TRANSFER_LIMIT`].
struct Guarded {
    reader: BufReader<ChildStdout>,
    _child: Child,
    _permit: OwnedSemaphorePermit,
    deadline: Pin<Box<tokio::time::Sleep>>,
}

impl AsyncRead for Guarded {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.deadline.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the git transfer took longer than its limit",
            )));
        }
        Pin::new(&mut self.reader).poll_read(cx, buf)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_cgi_head_gives_its_status_and_headers() {
        let (status, headers) = parse_cgi_head(
            b"Status: 403 Forbidden\r\nContent-Type: text/plain\r\nExpires: Fri, 01 Jan 1980 00:00:00 GMT\r\n\r\n",
        )
        .unwrap();
        assert_eq!(status, StatusCode::FORBIDDEN);
        assert_eq!(headers["content-type"], "text/plain");
        assert_eq!(headers.len(), 2);
        let (status, headers) =
            parse_cgi_head(b"Content-Type: application/x-git-upload-pack-result\n\n").unwrap();
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            headers["content-type"],
            "application/x-git-upload-pack-result"
        );
        assert!(parse_cgi_head(b"no colon here\r\n\r\n").is_err());
        assert!(parse_cgi_head(b"Status: nine\r\n\r\n").is_err());
    }

    proptest! {
        #[test]
        fn any_head_parses_or_is_refused_without_panicking(head in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = parse_cgi_head(&head);
        }

        #[test]
        fn well_formed_heads_keep_every_header(
            lines in proptest::collection::vec(("[A-Za-z][A-Za-z0-9-]{0,20}", "[ -~]{0,40}"), 0..8),
            code in 200u16..600,
        ) {
            prop_assume!(lines.iter().all(|(name, _)| !name.eq_ignore_ascii_case("status")));
            let mut head = format!("Status: {code} Whatever\r\n");
            for (name, value) in &lines {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
            head.push_str("\r\n");
            let (status, headers) = parse_cgi_head(head.as_bytes()).unwrap();
            prop_assert_eq!(status.as_u16(), code);
            prop_assert_eq!(headers.len(), lines.len());
        }
    }
}

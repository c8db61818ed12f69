//! One tool call is one request to the REST routes, made in process: the tool's arguments become
//! a path and a query string ([`Call`]), the request goes through the same router a client's
//! would (identity, the mirror's refusal of writes, the routes and their checks), and the answer's
//! JSON becomes the tool's result unchanged. So a tool answers exactly what the route answers,
//! errors included, and no limit or check is written twice.

use std::fmt::Write as _;
use std::net::{IpAddr, Ipv6Addr};
use std::time::Instant;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::http::request::Parts;
use axum::http::{Method, Request, header};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;
use tower::ServiceExt as _;

use crate::http::client_addr::ClientAddr;
use crate::http::identity::Relayed;

/// The largest REST answer a tool passes on (a commit page stops adding commits past 8 MiB, but
/// always holds one); none of the relayed routes comes close.
const ANSWER_LIMIT: usize = 64 << 20;

/// A REST request a tool makes: method, path and query, and a JSON body for a write.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Call {
    method: Method,
    path: String,
    query: String,
    body: Option<Value>,
}

impl Call {
    /// `GET` of `path` (already encoded: build it with [`segment`]).
    pub(crate) fn get(path: impl Into<String>) -> Call {
        Call {
            method: Method::GET,
            path: path.into(),
            query: String::new(),
            body: None,
        }
    }

    /// `POST` of `body` as JSON to `path`.
    pub(crate) fn post(path: impl Into<String>, body: Value) -> Call {
        Call {
            method: Method::POST,
            path: path.into(),
            query: String::new(),
            body: Some(body),
        }
    }

    /// Adds `name=value` to the query string when the argument was given; a tool's optional
    /// argument left out is a query parameter left out, so the route's default applies.
    pub(crate) fn param(mut self, name: &str, value: Option<impl ToString>) -> Call {
        if let Some(value) = value {
            self.query
                .push(if self.query.is_empty() { '?' } else { '&' });
            self.query.push_str(name);
            self.query.push('=');
            self.query.push_str(&encode(&value.to_string()));
        }
        self
    }

    /// The request's target: path and query.
    pub(crate) fn target(&self) -> String {
        format!("{}{}", self.path, self.query)
    }
}

/// One path segment, percent-encoded: an id given as `cat-x/children` or `cat-x?at=1` stays
/// one segment, which the route then refuses as an id (it never reaches another route).
pub(crate) fn segment(raw: &str) -> String {
    encode(raw)
}

/// Percent-encodes every byte but the unreserved ones (RFC 3986), so the route reads back exactly
/// the text given, whatever it holds (`&`, `=`, `+`, `#`, spaces, Hebrew).
fn encode(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for b in raw.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(char::from(b));
            }
            _ => {
                let _ = write!(out, "%{b:02X}");
            }
        }
    }
    out
}

/// The REST routes, with the layers a request to them meets inside the outer ones (see
/// `crate::router`): identity, a mirror's refusal of writes, body limits. The outer layers (the
/// cap on requests in progress and the time limit, CORS, the access log) were met by the `/mcp`
/// request that carried the tool call, and are not met twice.
#[derive(Clone)]
pub(crate) struct Relay {
    rest: Router,
}

impl Relay {
    pub(crate) fn new(rest: Router) -> Relay {
        Relay { rest }
    }

    /// Makes `call` as the caller of the `/mcp` request `outer`: with its `Authorization` header
    /// (and nothing else of its: a session cookie does not carry over, so only a bearer token
    /// writes through MCP) and counted against its address. The request is not counted against
    /// the caller's rate limit again: the `/mcp` request was counted once already, so one tool
    /// call costs one request, as the same question asked of the REST route would.
    pub(crate) async fn call(
        &self,
        tool: &'static str,
        outer: &Parts,
        call: Call,
    ) -> CallToolResult {
        let started = Instant::now();
        let addr = outer
            .extensions
            .get::<ClientAddr>()
            .map_or(IpAddr::V6(Ipv6Addr::UNSPECIFIED), |a| a.0);
        let mut req = Request::builder()
            .method(call.method.clone())
            .uri(call.target());
        if let Some(auth) = outer.headers.get(header::AUTHORIZATION) {
            req = req.header(header::AUTHORIZATION, auth.clone());
        }
        let body = match &call.body {
            Some(json) => {
                req = req.header(header::CONTENT_TYPE, "application/json");
                Body::from(json.to_string())
            }
            None => Body::empty(),
        };
        let mut req = match req.body(body) {
            Ok(req) => req,
            Err(e) => return internal(&format!("request {}: {e}", call.path)),
        };
        req.extensions_mut().insert(Relayed { addr });
        let res = match self.rest.clone().oneshot(req).await {
            Ok(res) => res,
            Err(never) => match never {},
        };
        let status = res.status();
        let bytes = match to_bytes(res.into_body(), ANSWER_LIMIT).await {
            Ok(b) => b,
            Err(e) => return internal(&format!("answer of {}: {e}", call.path)),
        };
        // The access log has the `/mcp` request; this line says what it asked of which route
        // (the path only, as the access log does: queries carry search words and cursors).
        tracing::info!(
            target: "catalog::mcp",
            tool,
            method = %call.method,
            path = call.path,
            status = status.as_u16(),
            ms = format_args!("{:.1}", started.elapsed().as_secs_f64() * 1000.0),
            "tool call"
        );
        answer(status.is_success(), &bytes)
    }
}

/// The route's answer as the tool's result: the JSON as text, and as structured content when it
/// is an object; an error answer (`{ error, message, detail? }`) is a tool error carrying it.
pub(crate) fn answer(success: bool, body: &[u8]) -> CallToolResult {
    let text = String::from_utf8_lossy(body).into_owned();
    let structured = serde_json::from_slice::<Value>(body)
        .ok()
        .filter(Value::is_object);
    let mut result = if success {
        CallToolResult::success(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::error(vec![ContentBlock::text(text)])
    };
    result.structured_content = structured;
    result
}

/// A failure of the relay itself (never of the route): the API's `500 internal` shape.
fn internal(cause: &str) -> CallToolResult {
    tracing::error!(target: "catalog::mcp", cause, "tool call failed");
    answer(false, br#"{"error":"internal","message":"internal error"}"#)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_arguments_left_out_are_parameters_left_out() {
        let none: Option<u32> = None;
        let call = Call::get("/v1/search")
            .param("q", Some("תניא"))
            .param("type", none)
            .param("limit", Some(5));
        assert_eq!(
            call.target(),
            "/v1/search?q=%D7%AA%D7%A0%D7%99%D7%90&limit=5"
        );
        assert_eq!(
            Call::get("/v1/commits").param("since", none).target(),
            "/v1/commits"
        );
        assert_eq!(
            Call::get("/v1/commits")
                .param("limit", none)
                .param("since", Some(0))
                .target(),
            "/v1/commits?since=0"
        );
    }

    #[test]
    fn values_are_escaped_so_they_cannot_add_parameters() {
        let call = Call::get("/v1/dates/parse").param("q", Some("19 Kislev&limit=1+2#x=\"y\""));
        assert_eq!(
            call.target(),
            "/v1/dates/parse?q=19%20Kislev%26limit%3D1%2B2%23x%3D%22y%22"
        );
        // Cursors are base64url and stay as they are.
        let call = Call::get("/v1/commits").param("cursor", Some("AbC-_z09"));
        assert_eq!(call.target(), "/v1/commits?cursor=AbC-_z09");
    }

    #[test]
    fn an_id_is_one_path_segment_whatever_it_holds() {
        assert_eq!(segment("cat-7k2m9q4x"), "cat-7k2m9q4x");
        assert_eq!(segment("cat-x/children"), "cat-x%2Fchildren");
        assert_eq!(segment("cat-x?at=1"), "cat-x%3Fat%3D1");
        assert_eq!(segment("../.."), "..%2F..");
        assert_eq!(segment(""), "");
    }

    #[test]
    fn a_post_carries_its_body_and_no_query() {
        let call = Call::post("/v1/suggestions/quick", serde_json::json!({ "title": "t" }));
        assert_eq!(call.method, Method::POST);
        assert_eq!(call.target(), "/v1/suggestions/quick");
        assert_eq!(call.body, Some(serde_json::json!({ "title": "t" })));
    }

    #[test]
    fn answers_become_results_and_errors_tool_errors() {
        let ok = answer(true, br#"{"results":[]}"#);
        assert_eq!(ok.is_error, Some(false));
        assert_eq!(
            ok.structured_content,
            Some(serde_json::json!({ "results": [] }))
        );
        let err = answer(
            false,
            br#"{"error":"not-found","message":"no item cat-zzzzzzzz"}"#,
        );
        assert_eq!(err.is_error, Some(true));
        assert_eq!(
            err.structured_content.as_ref().map(|v| &v["error"]),
            Some(&serde_json::json!("not-found"))
        );
        let text = match &err.content[..] {
            [block] => block.as_text().map(|t| t.text.clone()),
            _ => None,
        };
        assert_eq!(
            text.as_deref(),
            Some(r#"{"error":"not-found","message":"no item cat-zzzzzzzz"}"#)
        );
        // Not an object: text only.
        assert_eq!(answer(true, b"[1]").structured_content, None);
        assert_eq!(answer(true, b"").structured_content, None);
    }
}

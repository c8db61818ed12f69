//! A thin HTTP client for the tests: every answer is kept whole (status,
//! headers, bytes) so tests can compare bodies byte for byte and read headers, and every JSON
//! answer is checked against the served OpenAPI document (`conformance`).

use std::time::Duration;

use reqwest::Method;
use reqwest::header::HeaderMap;
use serde_json::Value;

use super::conformance;

#[derive(Clone, Debug)]
pub enum Auth {
    Bearer(String),
    /// A whole `Authorization` header value, for malformed-credential tests.
    Raw(String),
    /// The value of the `__Host-cat_session` cookie.
    Session(String),
}

#[derive(Clone)]
pub struct Api {
    pub base: String,
    http: reqwest::Client,
    auth: Option<Auth>,
}

/// One answer, read to the end.
#[derive(Debug, Clone)]
pub struct Reply {
    pub method: Method,
    pub path: String,
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "{} {} answered {} with a body that is not JSON ({e}): {}",
                self.method,
                self.path,
                self.status,
                self.text()
            )
        })
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
    }

    /// Every value of a header that may repeat, joined by commas.
    pub fn header_all(&self, name: &str) -> String {
        self.headers
            .get_all(name)
            .iter()
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Asserts the status and returns the answer for chaining.
    #[track_caller]
    pub fn expect(self, status: u16) -> Reply {
        assert_eq!(
            self.status,
            status,
            "{} {} answered {} (wanted {status}): {}",
            self.method,
            self.path,
            self.status,
            self.text()
        );
        self
    }

    /// Asserts a 2xx status (routes whose success code the spec leaves open).
    #[track_caller]
    pub fn expect_ok(self) -> Reply {
        assert!(
            (200..300).contains(&self.status),
            "{} {} answered {}: {}",
            self.method,
            self.path,
            self.status,
            self.text()
        );
        self
    }

    /// Asserts the error shape `{ error, message }` with this status and code,
    /// and returns the message.
    #[track_caller]
    pub fn expect_error(&self, status: u16, code: &str) -> String {
        assert_eq!(
            self.status,
            status,
            "{} {} answered {} (wanted {status} {code}): {}",
            self.method,
            self.path,
            self.status,
            self.text()
        );
        let ct = self.header("content-type").unwrap_or_default();
        assert!(
            ct.starts_with("application/json"),
            "{} {}: error answered with content-type {ct:?}: {}",
            self.method,
            self.path,
            self.text()
        );
        let v = self.json();
        assert_eq!(
            v["error"].as_str(),
            Some(code),
            "{} {}: wrong error code in {v}",
            self.method,
            self.path
        );
        let message = v["message"].as_str().unwrap_or_else(|| {
            panic!(
                "{} {}: error without a message string: {v}",
                self.method, self.path
            )
        });
        assert!(
            !message.trim().is_empty(),
            "{} {}: empty error message",
            self.method,
            self.path
        );
        message.to_string()
    }

    /// The `next` cursor of a paged answer (`None` on the last page).
    pub fn next_cursor(&self) -> Option<String> {
        match &self.json()["next"] {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => panic!(
                "{} {}: `next` is neither null nor a string: {other}",
                self.method, self.path
            ),
        }
    }
}

impl Api {
    pub fn new(base: &str, auth: Option<Auth>) -> Api {
        let http = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(60))
            .build()
            .expect("http client");
        Api {
            base: base.to_string(),
            http,
            auth,
        }
    }

    /// The same server with other credentials (shares the connection pool).
    pub fn with_auth(&self, auth: Option<Auth>) -> Api {
        Api {
            base: self.base.clone(),
            http: self.http.clone(),
            auth,
        }
    }

    /// The check every answer of this client passes (the served OpenAPI document).
    pub async fn conformance(&self) -> &'static conformance::Conformance {
        conformance::checker(&self.http, &self.base).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(Method::GET, path, &[], None).await
    }

    /// GET that must answer 200 JSON; returns the JSON.
    pub async fn get_json(&self, path: &str) -> Value {
        self.get(path).await.expect(200).json()
    }

    pub async fn get_with(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        self.send(Method::GET, path, headers, None).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Reply {
        let bytes = serde_json::to_vec(body).expect("json body");
        self.send(
            Method::POST,
            path,
            &[("content-type", "application/json")],
            Some(bytes),
        )
        .await
    }

    pub async fn patch(&self, path: &str, body: &Value) -> Reply {
        let bytes = serde_json::to_vec(body).expect("json body");
        self.send(
            Method::PATCH,
            path,
            &[("content-type", "application/json")],
            Some(bytes),
        )
        .await
    }

    pub async fn post_empty(&self, path: &str) -> Reply {
        self.send(Method::POST, path, &[], None).await
    }

    pub async fn post_raw(&self, path: &str, content_type: &str, body: Vec<u8>) -> Reply {
        self.send(
            Method::POST,
            path,
            &[("content-type", content_type)],
            Some(body),
        )
        .await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        self.send(Method::DELETE, path, &[], None).await
    }

    pub async fn send(
        &self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> Reply {
        self.try_send(method.clone(), path, headers, body)
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: request failed: {e}"))
    }

    /// Like `send`, but a failed connection is an `Err` (used while killing servers).
    pub async fn try_send(
        &self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> Result<Reply, reqwest::Error> {
        let mut req = self
            .http
            .request(method.clone(), format!("{}{path}", self.base));
        match &self.auth {
            Some(Auth::Bearer(t)) => req = req.bearer_auth(t),
            Some(Auth::Raw(v)) => req = req.header("authorization", v),
            Some(Auth::Session(s)) => req = req.header("cookie", format!("__Host-cat_session={s}")),
            None => {}
        }
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        if let Some(body) = body {
            req = req.body(body);
        }
        let resp = req.send().await?;
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let body = resp.bytes().await?.to_vec();
        let reply = Reply {
            method,
            path: path.to_string(),
            status,
            headers,
            body,
        };
        self.conformance().await.check(&reply);
        Ok(reply)
    }
}

/// Percent-encodes a query value (ids, cursors and paths are mostly safe, but
/// `/`, `,` and `+` are not everywhere).
pub fn enc(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char);
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

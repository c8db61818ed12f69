//! Who is calling: credentials are read once per request by [`Identified`], the service in front
//! of the routes, which also charges the request to the right rate-limit bucket. Handlers state
//! what they need with the typed extractors [`Reader`], [`SignedIn`], [`WriteAccess`] and
//! [`SiteSession`].

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::task::{Context, Poll};

use axum::extract::{ConnectInfo, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, Method, header};
use axum::response::{IntoResponse, Response};
use catalog_workflow::Principal;
use tower::Service;

use crate::error::ApiError;
use crate::http::client_addr::{self, ClientAddr};
use crate::http::{AnswerFuture, answered, read_only};
use crate::ratelimit::{Budget, Client};
use crate::state::AppState;

/// The site's session cookie.
pub const SESSION_COOKIE: &str = "__Host-cat_session";

/// What the caller presented.
#[derive(Clone, Debug)]
enum Credential {
    None,
    Token,
    /// The session secret, kept so logout can end exactly this session.
    Session(String),
}

/// The outcome of [`identify`], stored in the request's extensions.
#[derive(Clone, Debug)]
struct Identity {
    principal: Option<Principal>,
    credential: Credential,
}

/// Marks a request the MCP server makes to the REST routes for one tool call, on behalf of the
/// `/mcp` request that carried it. Only code in this process can set it (extensions never come
/// from the wire).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Relayed {
    /// The address the `/mcp` request was counted against.
    pub(crate) addr: IpAddr,
}

/// The routes `S` behind identity: on a mirror a write is refused first (see [`read_only`]), then
/// every request is identified and counted by [`identify`]. A service of its own rather than a
/// `from_fn` layer, which would cost every request a clone of the routes, a boxed service and a
/// boxed future; this costs the future.
#[derive(Clone)]
pub struct Identified<S> {
    state: AppState,
    inner: S,
}

impl<S> Identified<S> {
    pub fn new(state: AppState, inner: S) -> Self {
        Identified { state, inner }
    }
}

impl<S> Service<Request> for Identified<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = AnswerFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        if let Some(refusal) = read_only::refusal(&self.state, &req) {
            return Box::pin(std::future::ready(Ok(refusal)));
        }
        // The service polled ready is the one that answers; its clone waits for the next call.
        let ready = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, ready);
        let state = self.state.clone();
        Box::pin(async move { Ok(identify(state, req, inner).await) })
    }
}

/// Reads `Authorization` (which wins) or the session cookie, authenticates it, and counts the
/// request: a signed-in caller against its account's bucket, anyone else against its address's.
/// A credential that does not authenticate is a 401: never silently anonymous. A session write
/// from another site's page is a 403 (see [`cross_site`]).
///
/// A [`Relayed`] request is authenticated the same way but not counted: the `/mcp` request that
/// carried the tool call was counted already, so one tool call costs one request.
async fn identify<S>(state: AppState, mut req: Request, mut inner: S) -> Response
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    let relayed = req.extensions().get::<Relayed>().copied();
    let addr = match relayed {
        Some(r) => r.addr,
        None => client_addr::resolve(
            req.extensions().get::<ConnectInfo<SocketAddr>>(),
            req.headers(),
            state.settings.trusted_proxy,
        ),
    };
    req.extensions_mut().insert(ClientAddr(addr));
    let anonymous = Client::addr(addr);
    // A refusal costs a request too, except a relayed one (counted as its `/mcp` request).
    let refuse = |state: &AppState, client: Client, refusal: Response| {
        if relayed.is_some() {
            refusal
        } else {
            charge_then(state, client, refusal)
        }
    };
    let presented = match presented(req.headers()) {
        Ok(p) => p,
        Err(e) => return refuse(&state, anonymous, e.into_response()),
    };
    let identity = match presented {
        Presented::None => Identity {
            principal: None,
            credential: Credential::None,
        },
        Presented::Bearer(token) if token.is_empty() => {
            let e = ApiError::Unauthorized("the bearer token is empty".into());
            return refuse(&state, anonymous, e.into_response());
        }
        Presented::Bearer(token) => {
            let identity = state.workflow.identity().clone();
            match crate::blocking(move || identity.authenticate_token(&token)).await {
                Ok(p) => Identity {
                    principal: Some(p),
                    credential: Credential::Token,
                },
                Err(e) => return refuse(&state, anonymous, e.into_response()),
            }
        }
        Presented::Cookie(secret) => {
            let identity = state.workflow.identity().clone();
            let s = secret.clone();
            match tokio::task::spawn_blocking(move || identity.authenticate_session(&s)).await {
                Ok(Ok(p)) => Identity {
                    principal: Some(p),
                    credential: Credential::Session(secret),
                },
                // Browsers keep sending a cookie after its session ended; reading stays open
                // to them, and routes that need a session answer 401 on their own.
                Ok(Err(catalog_identity::Error::Unauthorized(_))) => Identity {
                    principal: None,
                    credential: Credential::None,
                },
                Ok(Err(e)) => {
                    let res = ApiError::from(e).into_response();
                    return refuse(&state, anonymous, res);
                }
                Err(e) => {
                    let res = ApiError::from(e).into_response();
                    return refuse(&state, anonymous, res);
                }
            }
        }
    };
    let client = match &identity.principal {
        Some(p) => Client::Account(p.account.0),
        None => anonymous,
    };
    if matches!(identity.credential, Credential::Session(_))
        && !is_safe(req.method())
        && cross_site(req.headers())
    {
        let e = ApiError::Forbidden(
            "a session cookie cannot be used from another site's page: \
             send a token in Authorization instead"
                .into(),
        );
        return refuse(&state, client, e.into_response());
    }
    if relayed.is_some() {
        req.extensions_mut().insert(identity);
        return answered(inner.call(req)).await;
    }
    let budget = match state.rate_limits.check(&client) {
        Ok(b) => b,
        Err(over) => {
            let mut res = ApiError::RateLimited {
                retry_after_secs: over.retry_after_secs,
            }
            .into_response();
            policy_headers(&state, &client, res.headers_mut(), None);
            return res;
        }
    };
    req.extensions_mut().insert(identity);
    let mut res = answered(inner.call(req)).await;
    policy_headers(&state, &client, res.headers_mut(), Some(budget));
    res
}

fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Whether the browser says the request comes from another site's page: `Sec-Fetch-Site:
/// cross-site`, or (from browsers without it) an `Origin` whose host is not this one. A
/// sibling host of the same site (`same-site`) may write, as the site's own pages may live on
/// one. Clients other than browsers send neither header and are not affected.
pub(crate) fn cross_site(headers: &HeaderMap) -> bool {
    if let Some(site) = headers.get("sec-fetch-site") {
        return site.as_bytes().eq_ignore_ascii_case(b"cross-site");
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return false;
    };
    let Ok(origin) = origin.to_str() else {
        return true;
    };
    let origin_host = origin
        .split_once("://")
        .map_or("", |(_, rest)| rest)
        .trim_end_matches('/');
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    // `Origin: null` (a sandboxed page, a redirect) never matches a host.
    origin_host.is_empty() || !origin_host.eq_ignore_ascii_case(host)
}

/// Refusals still cost a request: a client guessing tokens is limited like anyone else.
fn charge_then(state: &AppState, client: Client, refusal: Response) -> Response {
    match state.rate_limits.check(&client) {
        Ok(budget) => {
            let mut res = refusal;
            policy_headers(state, &client, res.headers_mut(), Some(budget));
            res
        }
        Err(over) => {
            let mut res = ApiError::RateLimited {
                retry_after_secs: over.retry_after_secs,
            }
            .into_response();
            policy_headers(state, &client, res.headers_mut(), None);
            res
        }
    }
}

/// `RateLimit-Policy` names the caller's own bucket; `RateLimit` what is left of it.
fn policy_headers(
    state: &AppState,
    client: &Client,
    headers: &mut HeaderMap,
    budget: Option<Budget>,
) {
    headers.insert(RATELIMIT_POLICY, state.rate_limits.policy(client).clone());
    if let Some(b) = budget {
        headers.insert(RATELIMIT, b.header());
    }
}

const RATELIMIT_POLICY: HeaderName = HeaderName::from_static("ratelimit-policy");
const RATELIMIT: HeaderName = HeaderName::from_static("ratelimit");

#[derive(Debug, PartialEq)]
enum Presented {
    None,
    Bearer(String),
    Cookie(String),
}

fn presented(headers: &HeaderMap) -> Result<Presented, ApiError> {
    if let Some(auth) = headers.get(header::AUTHORIZATION) {
        let text = auth
            .to_str()
            .map_err(|_| ApiError::Unauthorized("authorization header is not text".into()))?;
        let (scheme, rest) = text.trim().split_once(' ').unwrap_or((text.trim(), ""));
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(ApiError::Unauthorized(format!(
                "authorization scheme {} is not supported: send Bearer catp_…",
                catalog_schemas::quote(scheme)
            )));
        }
        return Ok(Presented::Bearer(rest.trim().to_owned()));
    }
    Ok(session_cookie(headers).map_or(Presented::None, Presented::Cookie))
}

fn session_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == SESSION_COOKIE)
        .map(|(_, value)| value.trim().to_owned())
}

fn identity(parts: &Parts) -> Result<&Identity, ApiError> {
    parts
        .extensions
        .get::<Identity>()
        .ok_or_else(|| ApiError::Internal("identify middleware is not installed".into()))
}

/// Anyone; the principal when signed in.
pub struct Reader(pub Option<Principal>);

impl<S: Send + Sync> FromRequestParts<S> for Reader {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        Ok(Reader(identity(parts)?.principal.clone()))
    }
}

/// Someone signed in: a session or a token of either scope (routes marked A).
pub struct SignedIn(pub Principal);

impl<S: Send + Sync> FromRequestParts<S> for SignedIn {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        match &identity(parts)?.principal {
            Some(p) => Ok(SignedIn(p.clone())),
            None => Err(ApiError::Unauthorized(
                "sign in or send a token to read this".into(),
            )),
        }
    }
}

/// A session, or a token with the write scope.
pub struct WriteAccess(pub Principal);

impl<S: Send + Sync> FromRequestParts<S> for WriteAccess {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        match &identity(parts)?.principal {
            None => Err(ApiError::Unauthorized(
                "sign in or send a token with the write scope".into(),
            )),
            Some(p) => {
                p.require_write()?;
                Ok(WriteAccess(p.clone()))
            }
        }
    }
}

/// Only the site's own session cookie; an API token is refused.
pub struct SiteSession {
    pub principal: Principal,
    pub secret: String,
}

impl<S: Send + Sync> FromRequestParts<S> for SiteSession {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let id = identity(parts)?;
        match (&id.principal, &id.credential) {
            (Some(p), Credential::Session(secret)) => Ok(SiteSession {
                principal: p.clone(),
                secret: secret.clone(),
            }),
            (Some(_), _) | (None, Credential::Token) => Err(ApiError::Forbidden(
                "only the site's own session may do this, not an api token".into(),
            )),
            (None, _) => Err(ApiError::Unauthorized("sign in on the site first".into())),
        }
    }
}

/// The `Set-Cookie` value that starts (or, with `None`, ends) a session.
pub fn session_cookie_header(secret: Option<&str>) -> String {
    match secret {
        Some(s) => format!("{SESSION_COOKIE}={s}; HttpOnly; Secure; SameSite=Lax; Path=/"),
        None => format!("{SESSION_COOKIE}=; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=0"),
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(k.clone(), HeaderValue::from_str(v).expect("header"));
        }
        h
    }

    #[test]
    fn bearer_wins_over_cookie() {
        let h = headers(&[
            (header::AUTHORIZATION, "Bearer catp_abc"),
            (header::COOKIE, "__Host-cat_session=s1"),
        ]);
        assert_eq!(
            presented(&h).ok(),
            Some(Presented::Bearer("catp_abc".into()))
        );
    }

    #[test]
    fn cookie_found_among_others() {
        let h = headers(&[(header::COOKIE, "a=1; __Host-cat_session=s1; b=2")]);
        assert_eq!(presented(&h).ok(), Some(Presented::Cookie("s1".into())));
        let h = headers(&[(header::COOKIE, "cat_session=s1")]);
        assert_eq!(presented(&h).ok(), Some(Presented::None));
    }

    #[test]
    fn other_schemes_are_refused() {
        let h = headers(&[(header::AUTHORIZATION, "Basic dXNlcjpwYXNz")]);
        let err = presented(&h).expect_err("basic auth");
        assert!(err.to_string().contains("Basic"), "{err}");
        let h = headers(&[(header::AUTHORIZATION, "bearer  catp_x ")]);
        assert_eq!(presented(&h).ok(), Some(Presented::Bearer("catp_x".into())));
    }

    #[test]
    fn cross_site_is_read_from_fetch_metadata_then_origin() {
        let h = |pairs: &[(header::HeaderName, &str)]| cross_site(&headers(pairs));
        let fetch = header::HeaderName::from_static("sec-fetch-site");
        assert!(h(&[(fetch.clone(), "cross-site")]));
        assert!(!h(&[(fetch.clone(), "same-site")]));
        assert!(!h(&[
            (fetch, "same-origin"),
            (header::ORIGIN, "https://evil.example")
        ]));
        assert!(h(&[
            (header::ORIGIN, "https://evil.example"),
            (header::HOST, "catalog.example")
        ]));
        assert!(!h(&[
            (header::ORIGIN, "https://catalog.example"),
            (header::HOST, "catalog.example")
        ]));
        assert!(h(&[
            (header::ORIGIN, "null"),
            (header::HOST, "catalog.example")
        ]));
        assert!(!h(&[(header::HOST, "catalog.example")]));
    }

    #[test]
    fn cookie_header_is_host_only_and_secure() {
        let c = session_cookie_header(Some("abc"));
        assert_eq!(
            c,
            "__Host-cat_session=abc; HttpOnly; Secure; SameSite=Lax; Path=/"
        );
        assert!(session_cookie_header(None).contains("Max-Age=0"));
    }
}

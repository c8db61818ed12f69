//! The one service every request meets before routing: the cap on requests in progress and the
//! time limit ([`guards`]), ETags, revalidation and caching headers ([`conditional`]), CORS
//! (tower-http's layer, inside), and on the way out the headers that keep browsers from guessing
//! an answer's type or framing it and the access-log line ([`edge`]).
//!
//! One hand-written service rather than a stack of `from_fn` layers: each such layer costs every
//! request a clone of everything below it, a boxed service and a boxed future, and on a GET of one
//! item the stack cost as much CPU as the read itself. This costs one boxed future.

use std::convert::Infallible;
use std::task::{Context, Poll};
use std::time::Instant;

use axum::extract::Request;
use axum::http::Method;
use axum::response::Response;
use tower::{Layer, Service};
use tower_http::cors::Cors;

use crate::http::{AnswerFuture, conditional, cors, edge, guards};
use crate::state::AppState;

/// See the module's doc. hyper's adapter clones it for every request, so it holds nothing costly
/// to clone.
#[derive(Clone)]
pub struct Front<S> {
    state: AppState,
    inner: Cors<S>,
}

impl<S> Front<S> {
    /// Wraps `routes` (routed, with their own inner layers).
    pub fn new(state: AppState, routes: S) -> Self {
        Front {
            state,
            inner: cors::layer().layer(routes),
        }
    }
}

impl<S> Service<Request> for Front<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = AnswerFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // A router is always ready; asking keeps the contract should that change.
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let started = Instant::now();
        let method = req.method().clone();
        let path = req.uri().path().to_owned();
        // tower-http answers every `OPTIONS` as a CORS preflight, with its own headers only.
        let revalidation = (method != Method::OPTIONS).then(|| conditional::Revalidation::of(&req));
        let limit = guards::time_limit(&self.state, &req);
        // Routing only: nothing of the route runs until the answer is first polled, which is
        // after a place among the requests in progress is held.
        let answer = self.inner.call(req);
        let state = self.state.clone();
        Box::pin(async move {
            let res = match guards::bounded(&state, limit, answer).await {
                Ok(res) => res,
                Err(mut refusal) => {
                    // Made here, outside the CORS layer: it gets what that layer would add.
                    cors::simple_headers(refusal.headers_mut());
                    refusal
                }
            };
            let mut res = match revalidation {
                Some(r) => r.finish(res).await,
                None => res,
            };
            edge::finish(&mut res, &method, &path, started);
            Ok(res)
        })
    }
}

//! HTTP plumbing shared by every route: answers, caching, identity and logging.

pub mod access_log;
pub mod answer;
pub mod client_addr;
pub mod conditional;
pub mod cors;
pub mod edge;
pub mod framing;
pub mod front;
pub mod guards;
pub mod identity;
pub mod range;
pub mod read_only;
pub mod spliced;

/// The future of [`front::Front`] and [`identity::Identified`]: one box a request each.
pub type AnswerFuture = std::pin::Pin<
    Box<
        dyn std::future::Future<Output = Result<axum::response::Response, std::convert::Infallible>>
            + Send,
    >,
>;

/// The answer of a service that cannot fail.
pub async fn answered(
    f: impl std::future::Future<Output = Result<axum::response::Response, std::convert::Infallible>>,
) -> axum::response::Response {
    match f.await {
        Ok(res) => res,
        Err(never) => match never {},
    }
}

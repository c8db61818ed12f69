//! The rows of the error table for the lower crates' errors (the rows for the API's own errors
//! are in `error.rs`). Each lower error is placed by what caused it: the request or the service.

use axum::http::StatusCode;
use serde_json::json;

use crate::error::Mapped;

/// A RocksDB failure of any crate: a full disk says so, anything else is a plain internal error.
fn storage(e: &catalog_log_core::StorageError) -> Mapped {
    if catalog_log_core::out_of_space(e) {
        Mapped::out_of_space()
    } else {
        Mapped::internal()
    }
}

pub(crate) fn log_core(e: &catalog_log_core::Error, message: String) -> Mapped {
    use catalog_log_core::Error as E;
    match e {
        E::Invalid(_) => Mapped::user(StatusCode::BAD_REQUEST, "bad-request", message),
        // The merged content itself cannot be stored (see `catalog_log_core::Error::Unreadable`);
        // the request was well formed, the catalog refused what it would make.
        E::Unreadable(_) => Mapped::user(StatusCode::UNPROCESSABLE_ENTITY, "invalid", message),
        // Someone else changed the item between the caller's read and this write.
        E::Stale { id, .. } => Mapped {
            conflicts: Some(json!([{ "id": id.to_string(), "field": "" }])),
            ..Mapped::user(StatusCode::CONFLICT, "conflict", message)
        },
        E::Storage(inner) => storage(inner),
        E::Locked(_) | E::Chain { .. } | E::Import { .. } | E::Corrupt(_) | E::Closed => {
            Mapped::internal()
        }
    }
}

pub(crate) fn projector(e: &catalog_projector::Error, message: String) -> Mapped {
    use catalog_projector::Error as E;
    match e {
        E::BadQuery(_) | E::UnknownProjection(_) => {
            Mapped::user(StatusCode::BAD_REQUEST, "bad-request", message)
        }
        E::Storage(inner) => storage(inner),
        E::Timeout { .. } | E::Stopped { .. } | E::Corrupt(_) => Mapped::internal(),
        E::Log(inner) => log_core(inner, message),
    }
}

pub(crate) fn search(e: &catalog_search::Error, message: String) -> Mapped {
    use catalog_search::Error as E;
    match e {
        E::BadQuery(_) => Mapped::user(StatusCode::BAD_REQUEST, "bad-request", message),
        E::Index(_) | E::Io(_) | E::Corrupt(_) | E::OutOfOrder { .. } => Mapped::internal(),
        E::Log(inner) => log_core(inner, message),
    }
}

/// Comparing printings: a side that is missing, unreadable or too long is the request's mistake,
/// a side naming nothing is `not-found`; `detail.parameter` names the side (`a` or `b`).
pub(crate) fn compare(e: &catalog_compare::Error, message: String) -> Mapped {
    use catalog_compare::Error as E;
    let side = |status, code, which: &catalog_compare::Which, extra: Option<usize>| {
        let mut detail = json!({ "parameter": which.as_str() });
        if let Some(max) = extra {
            detail["max"] = json!(max);
        }
        Mapped {
            detail: Some(detail),
            ..Mapped::user(status, code, message.clone())
        }
    };
    match e {
        E::Missing { which } | E::BadSide { which, .. } => {
            side(StatusCode::BAD_REQUEST, "bad-request", which, None)
        }
        E::TooManyWords { which, max, .. } => {
            side(StatusCode::BAD_REQUEST, "bad-request", which, Some(*max))
        }
        E::NotFound { which, .. } => side(StatusCode::NOT_FOUND, "not-found", which, None),
        E::Corrupt(_) => Mapped::internal(),
        E::Projector(inner) => projector(inner, message),
    }
}

/// The API only reads editions: whatever fails there is the service's fault.
pub(crate) fn editions(e: &catalog_snapshots::Error, message: String) -> Mapped {
    use catalog_snapshots::Error as E;
    match e {
        E::BadTag(_) => Mapped::user(StatusCode::NOT_FOUND, "not-found", message),
        E::Log(inner) => log_core(inner, message),
        E::Projector(inner) => projector(inner, message),
        _ => Mapped::internal(),
    }
}

/// Webhooks: a refused address is the request's mistake; the five-hook limit is a state the
/// person can change (delete one), like the token limit.
pub(crate) fn hooks(e: &catalog_hooks::Error, message: String) -> Mapped {
    use catalog_hooks::Error as E;
    match e {
        E::BadUrl { .. } => Mapped::user(StatusCode::BAD_REQUEST, "bad-request", message),
        E::TooMany { max } => Mapped {
            detail: Some(json!({ "field": "webhooks", "max": max })),
            ..Mapped::user(StatusCode::CONFLICT, "state", message)
        },
        E::NotFound(_) => Mapped::user(StatusCode::NOT_FOUND, "not-found", message),
        E::Store(inner) => records(inner),
        E::Log(inner) => log_core(inner, message),
        E::Random(_) | E::Internal(_) => Mapped::internal(),
    }
}

pub(crate) fn workflow(e: &catalog_workflow::Error, message: String) -> Mapped {
    use catalog_workflow::{Error as E, UserClass as C};
    let class = match e {
        E::Log(inner) => return log_core(inner, message),
        E::Projector(inner) => return projector(inner, message),
        E::Storage(inner) => return storage(inner),
        E::Store(inner) => return records(inner),
        E::Identity(inner) => return identity(inner, message),
        _ => e.class(),
    };
    let Some(class) = class else {
        return Mapped::internal();
    };
    let (status, code) = match class {
        C::BadRequest => (StatusCode::BAD_REQUEST, "bad-request"),
        C::Unauthorized => (StatusCode::UNAUTHORIZED, "unauthorized"),
        C::Forbidden => (StatusCode::FORBIDDEN, "forbidden"),
        C::NotFound => (StatusCode::NOT_FOUND, "not-found"),
        C::State => (StatusCode::CONFLICT, "state"),
        C::Conflict => (StatusCode::CONFLICT, "conflict"),
        // `Retry-After` is set where the answer is made (`ApiError::into_response`).
        C::RateLimited => (StatusCode::TOO_MANY_REQUESTS, "rate-limited"),
        C::Invalid => (StatusCode::UNPROCESSABLE_ENTITY, "invalid"),
    };
    let mut mapped = Mapped::user(status, code, message);
    match e {
        E::Conflict(list) => {
            mapped.conflicts = Some(serde_json::to_value(list).unwrap_or_default());
        }
        _ => mapped.detail = workflow_detail(e),
    }
    mapped
}

/// What a workflow refusal carries beyond its message, for programs.
fn workflow_detail(e: &catalog_workflow::Error) -> Option<serde_json::Value> {
    use catalog_workflow::Error as E;
    match e {
        E::BadOperation {
            index, op, field, ..
        } => Some(json!({
            "operation": index,
            "op": op,
            "field": field,
            "pointer": format!("/operations/{index}/{field}"),
        })),
        // The same detail as an item route's answer for an item merged away.
        E::Missing(missing) => missing
            .merged_into()
            .map(|into| json!({ "mergedInto": into.to_string() })),
        E::Limit(limit) => Some(json!({
            "field": limit.field,
            "min": limit.min,
            "max": limit.max,
            "got": limit.got,
        })),
        E::ScanText(refusal) => refusal.field().map(|field| json!({ "field": field })),
        E::Files(refusal) => refusal.detail(),
        E::Issues(refusal) => refusal.detail(),
        // The checks that refused it: each names its item and field.
        E::Invalid { checks, .. } => Some(json!({
            "checks": checks
                .iter()
                .filter(|c| c.status == catalog_workflow::CheckStatus::Fail)
                .collect::<Vec<_>>()
        })),
        _ => None,
    }
}

/// The people-state store's failures are ours; a full disk says so.
fn records(e: &catalog_records::Error) -> Mapped {
    match e {
        catalog_records::Error::Storage(inner) => storage(inner),
        catalog_records::Error::Corrupt { .. } => Mapped::internal(),
    }
}

pub(crate) fn identity(e: &catalog_identity::Error, message: String) -> Mapped {
    use catalog_identity::Error as E;
    match e {
        E::BadInput(_) => Mapped::user(StatusCode::BAD_REQUEST, "bad-request", message),
        E::Unauthorized(_) => Mapped::user(StatusCode::UNAUTHORIZED, "unauthorized", message),
        E::Forbidden(_) => Mapped::user(StatusCode::FORBIDDEN, "forbidden", message),
        E::NoAccount(_) | E::NoToken(_) => {
            Mapped::user(StatusCode::NOT_FOUND, "not-found", message)
        }
        E::TooManyTokens(_) | E::TooManyRenames(_) => {
            Mapped::user(StatusCode::CONFLICT, "state", message)
        }
        E::HandleClaimed(_) => Mapped::user(StatusCode::CONFLICT, "conflict", message),
        E::Store(inner) => records(inner),
        E::Hashing(_) | E::Random(_) => Mapped::internal(),
    }
}

#[cfg(test)]
mod tests {
    use catalog_schemas::Id;

    use super::*;
    use crate::error::ApiError;

    fn row(e: ApiError) -> (u16, &'static str, bool) {
        let m = e.mapped();
        (m.status.as_u16(), m.body_error, m.message.is_some())
    }

    #[test]
    fn workflow_rows() {
        use catalog_workflow::Error as W;
        let busy = catalog_workflow::Refusal::Busy {
            id: 4,
            waited_ms: 10,
        };
        assert_eq!(row(W::from(busy).into()), (409, "state", true));
        assert_eq!(
            row(W::from(catalog_workflow::Refusal::NothingToEdit).into()),
            (400, "bad-request", true)
        );
        let id = Id::parse("cat-00000001").expect("id");
        let into = Id::parse("cat-00000002").expect("id");
        assert_eq!(
            row(W::Missing(catalog_workflow::Missing::Item(id)).into()),
            (404, "not-found", true)
        );
        let merged = ApiError::from(W::Missing(catalog_workflow::Missing::ItemMerged {
            id,
            into,
        }))
        .mapped();
        assert_eq!(merged.status.as_u16(), 404);
        assert_eq!(merged.detail, Some(json!({ "mergedInto": "cat-00000002" })));
        assert_eq!(
            merged.message.as_deref(),
            Some("item cat-00000001 was merged into cat-00000002")
        );
        let limit = catalog_workflow::Limit {
            field: "title".into(),
            min: 1,
            max: 200,
            got: 0,
            wording: catalog_workflow::Wording::Give(catalog_workflow::Unit::Characters),
        };
        let limited = ApiError::from(W::Limit(limit)).mapped();
        assert_eq!(
            (limited.status.as_u16(), limited.body_error),
            (400, "bad-request")
        );
        assert_eq!(
            limited.detail,
            Some(json!({ "field": "title", "min": 1, "max": 200, "got": 0 }))
        );
        assert_eq!(
            limited.message.as_deref(),
            Some("title: give 1-200 characters, not 0")
        );
        assert_eq!(
            row(W::WrongStatus {
                id: catalog_workflow::SuggestionId(3),
                status: catalog_workflow::Status::Merged,
                act: catalog_workflow::Act::Withdraw,
            }
            .into()),
            (409, "state", true)
        );
        assert_eq!(
            row(W::Refused(catalog_workflow::Refusal::NothingToMerge).into()),
            (409, "state", true)
        );
        assert_eq!(
            row(W::Refused(catalog_workflow::Refusal::NotOneTarget).into()),
            (400, "bad-request", true)
        );
        let bad_op = ApiError::from(W::BadOperation {
            index: 2,
            op: "move",
            field: "to",
            message: "x".into(),
        })
        .mapped();
        assert_eq!(
            (bad_op.status.as_u16(), bad_op.body_error),
            (400, "bad-request")
        );
        assert_eq!(
            bad_op.detail,
            Some(
                json!({ "operation": 2, "op": "move", "field": "to", "pointer": "/operations/2/to" })
            )
        );
        assert_eq!(row(W::Conflict(vec![]).into()), (409, "conflict", true));
        assert_eq!(
            row(W::Invalid {
                message: "x".into(),
                checks: vec![]
            }
            .into()),
            (422, "invalid", true)
        );
        assert_eq!(
            row(W::Corrupt {
                cf: "wf_x",
                reason: "y".into()
            }
            .into()),
            (500, "internal", false)
        );
    }

    #[test]
    fn identity_rows() {
        use catalog_identity::{BadInput, Error as I, NotAllowed, Refused, TokenId};
        use catalog_workflow::Error as W;
        let handle = catalog_identity::Handle::parse("rivka").expect("handle");
        assert_eq!(
            row(I::from(BadInput::ShortPassword).into()),
            (400, "bad-request", true)
        );
        assert_eq!(
            row(I::from(Refused::WrongPassword).into()),
            (401, "unauthorized", true)
        );
        assert_eq!(
            row(I::from(NotAllowed::TokensNeedSession).into()),
            (403, "forbidden", true)
        );
        assert_eq!(row(I::NoAccount(handle).into()), (404, "not-found", true));
        assert_eq!(row(I::NoToken(TokenId(3)).into()), (404, "not-found", true));
        assert_eq!(row(I::TooManyTokens(100).into()), (409, "state", true));
        // Through workflow, as when a suggestion names a handle nobody has.
        assert_eq!(
            row(W::from(I::from(Refused::SessionEnded)).into()),
            (401, "unauthorized", true)
        );
        assert_eq!(row(I::Hashing("x".into()).into()), (500, "internal", false));
        let corrupt = catalog_records::Error::Corrupt {
            cf: "wf_x",
            reason: "y".into(),
        };
        assert_eq!(row(I::Store(corrupt).into()), (500, "internal", false));
    }

    #[test]
    fn log_and_projector_rows() {
        use catalog_log_core::Error as L;
        use catalog_projector::Error as P;
        let id = Id::parse("cat-00000001").expect("id");
        let stale = L::Stale {
            id,
            expected: catalog_log_core::Expect::Absent,
            actual: None,
        };
        let m = ApiError::from(stale).mapped();
        assert_eq!((m.status.as_u16(), m.body_error), (409, "conflict"));
        assert_eq!(
            m.conflicts,
            Some(json!([{ "id": "cat-00000001", "field": "" }]))
        );
        assert_eq!(row(L::Closed.into()), (500, "internal", false));
        assert_eq!(
            row(L::Locked("held".into()).into()),
            (500, "internal", false)
        );
        assert_eq!(
            row(P::BadQuery("x".into()).into()),
            (400, "bad-request", true)
        );
        assert_eq!(row(P::Corrupt("x".into()).into()), (500, "internal", false));
        use catalog_search::Error as S;
        assert_eq!(
            row(S::BadQuery("x".into()).into()),
            (400, "bad-request", true)
        );
        assert_eq!(row(S::Corrupt("x".into()).into()), (500, "internal", false));
        assert_eq!(row(S::Log(L::Closed).into()), (500, "internal", false));
        assert_eq!(
            row(catalog_workflow::Error::Log(L::Closed).into()),
            (500, "internal", false)
        );
    }
}

//! One person asked to review a suggestion, as stored in `wf_review_requests` (key: suggestion id
//! ‖ handle); [`ReviewRequest`] is the answer built from it.

use serde::{Deserialize, Serialize};

use super::StoredRecord;
use crate::discussion::conversation::ReviewRequest;
use crate::kv::REVIEW_REQUESTS;
use catalog_identity::Handle;
use catalog_records::Timestamp;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ReviewRequestRecord {
    handle: Handle,
    name: String,
    by: Option<Handle>,
    at: Timestamp,
    auto: bool,
}

impl StoredRecord for ReviewRequestRecord {
    const CF: &'static str = REVIEW_REQUESTS;
}

impl From<&ReviewRequest> for ReviewRequestRecord {
    fn from(r: &ReviewRequest) -> ReviewRequestRecord {
        ReviewRequestRecord {
            handle: r.handle.clone(),
            name: r.name.clone(),
            by: r.by.clone(),
            at: r.at,
            auto: r.auto,
        }
    }
}

impl From<ReviewRequestRecord> for ReviewRequest {
    fn from(r: ReviewRequestRecord) -> ReviewRequest {
        ReviewRequest {
            handle: r.handle,
            name: r.name,
            by: r.by,
            at: r.at,
            auto: r.auto,
        }
    }
}

//! What a mirror (`catalog mirror`) knows of its primary, for `/v1/stats` and for refusing writes.
//! The follower that copies the primary's commits lives in `catalog-replay`; it reports each
//! contact here through [`MirrorStatus::contacted`].

use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use catalog_log_core::Seq;
use serde::Serialize;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use utoipa::ToSchema;

/// A mirror's primary and where the two stood when they last spoke.
#[derive(Debug)]
pub struct MirrorStatus {
    primary: String,
    seen: Mutex<Seen>,
}

#[derive(Debug)]
struct Seen {
    primary_head: Seq,
    last_contact: Option<OffsetDateTime>,
    /// When the mirror last held everything the primary had; its start until it first does.
    level_at: Instant,
    level: bool,
}

/// `/v1/stats`' `mirror`: how far the mirror trails its primary.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct MirrorView {
    /// The server this one copies.
    primary: String,
    /// The primary's head when it was last asked.
    primary_head: u64,
    /// This mirror's own head.
    head: u64,
    /// Commits the mirror trails the primary by, as of the last contact.
    lag: u64,
    /// 0 when the mirror held all the primary had at the last contact; otherwise the seconds
    /// since it last did (since it started, if it never has).
    lag_seconds: u64,
    /// When the primary last answered (RFC 3339 UTC); `null` before it first has.
    #[schema(required)]
    last_contact: Option<String>,
}

impl MirrorStatus {
    /// A mirror of `primary` (its base URL), not yet in contact.
    pub fn new(primary: impl Into<String>) -> MirrorStatus {
        MirrorStatus {
            primary: primary.into(),
            seen: Mutex::new(Seen {
                primary_head: Seq(0),
                last_contact: None,
                level_at: Instant::now(),
                level: false,
            }),
        }
    }

    /// The primary's base URL.
    pub fn primary(&self) -> &str {
        &self.primary
    }

    /// Records an answer of the primary: its head then, and the mirror's head after importing.
    pub fn contacted(&self, primary_head: Seq, own_head: Seq) {
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.primary_head = primary_head;
        seen.last_contact = Some(OffsetDateTime::now_utc());
        seen.level = own_head >= primary_head;
        if seen.level {
            seen.level_at = Instant::now();
        }
    }

    pub(crate) fn view(&self, own_head: Seq) -> MirrorView {
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        MirrorView {
            primary: self.primary.clone(),
            primary_head: seen.primary_head.0,
            head: own_head.0,
            lag: seen.primary_head.0.saturating_sub(own_head.0),
            lag_seconds: if seen.level && own_head >= seen.primary_head {
                0
            } else {
                seen.level_at.elapsed().as_secs()
            },
            last_contact: seen.last_contact.and_then(|at| at.format(&Rfc3339).ok()),
        }
    }
}

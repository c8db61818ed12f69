//! Following and unfollowing (`POST /v1/follows`). Following needs the target to exist and the
//! caller to be able to read it (a private issue they may not read, a draft that is not theirs,
//! a deleted item: not found, as every other route says); unfollowing needs neither, so a
//! follow of something since deleted can still be dropped. Both are idempotent.

use serde::{Deserialize, Serialize};

use catalog_identity::Principal;
use catalog_projector::Lookup;
use catalog_records::Timestamp;
use catalog_schemas::ItemType;

use super::{FOLLOWERS, FollowRecord, Followed, MAX_FOLLOWS, follows_counter};
use crate::error::{Error, Missing, Refusal, Result};
use crate::service::Workflow;

/// What `POST /v1/follows` asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FollowRequest {
    pub target: Followed,
    /// `false` unfollows.
    pub on: bool,
}

/// The answer: whether the caller follows the target now, and since when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Following {
    pub kind: String,
    pub id: String,
    pub following: bool,
    #[cfg_attr(feature = "utoipa", schema(required, value_type = Option<String>))]
    pub since: Option<Timestamp>,
}

impl Workflow {
    /// Follows or unfollows one thing.
    pub fn follow(&self, principal: &Principal, request: &FollowRequest) -> Result<Following> {
        principal.require_write()?;
        let target = &request.target;
        if request.on {
            self.require_followable(principal, target)?;
        }
        let key = [&principal.account.key()[..], &target.key()].concat();
        let reverse = [&target.key()[..], &principal.account.key()].concat();
        let counter = follows_counter(principal.account);
        // Held across the read of the counter and the write, so two follows at once count right.
        let _guard = self.registry_lock();
        let kv = self.kv();
        let have = kv.get::<FollowRecord>(&key)?;
        let count = kv.counter(&counter)?;
        let mut batch = kv.batch();
        let since = match (have, request.on) {
            (Some(record), true) => Some(record.since),
            (None, false) => None,
            (None, true) => {
                if count >= MAX_FOLLOWS {
                    return Err(Refusal::TooManyFollows { max: MAX_FOLLOWS }.into());
                }
                let record = FollowRecord {
                    kind: target.kind().to_string(),
                    id: target.id_text(),
                    since: self.now(),
                };
                batch.put(&key, &record)?;
                batch.put_raw(FOLLOWERS, &reverse, &[])?;
                batch.set_counter(&counter, count + 1)?;
                Some(record.since)
            }
            (Some(_), false) => {
                batch.delete(super::FOLLOWS, &key)?;
                batch.delete(FOLLOWERS, &reverse)?;
                batch.set_counter(&counter, count.saturating_sub(1))?;
                None
            }
        };
        kv.write(batch)?;
        Ok(Following {
            kind: target.kind().to_string(),
            id: target.id_text(),
            following: since.is_some(),
            since,
        })
    }

    /// Refuses a target that does not exist or that `principal` may not read.
    fn require_followable(&self, principal: &Principal, target: &Followed) -> Result<()> {
        match target {
            Followed::Entity(id) | Followed::Set(id) => {
                let Lookup::Found(stored) = self.inner.read_models.item(*id)? else {
                    return Err(Missing::Item(*id).into());
                };
                let set = ItemType::Set;
                if matches!(target, Followed::Set(_)) && stored.ty != set {
                    return Err(Error::WrongKind {
                        field: Some("id"),
                        id: *id,
                        is: stored.ty,
                        wanted: set,
                    });
                }
                Ok(())
            }
            Followed::Changeset(id) => self.require_visible(Some(principal), *id).map(drop),
            Followed::Report(number) => self.readable_issue(Some(principal), *number).map(drop),
            // lead: check the project exists (projects are another part of issue 16); until
            // then any well-formed slug may be followed.
            Followed::Project(_) => Ok(()),
        }
    }
}

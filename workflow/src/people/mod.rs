//! People: finding someone to mention (`GET /v1/people`), a person's public page
//! (`GET /v1/people/{username}`), and what a handle change means for the records that stored a
//! handle.
//!
//! Who an account is, its handles now and before, and the indexes that find people by handle
//! prefix and by part of their name are catalog-identity's (`people` there). Here:
//! - `search`: the three ways of asking (`q`, `ids`, `thread`), the people of a conversation
//!   first.
//! - `page`: a person's page: counts read from counters, and their suggestions and issues newest
//!   first, walked from the list indexes of every handle they held.
//! - `counts`: the counters a person's page reads, kept as things happen, and the one-off count
//!   of what stores made before them hold.
//!
//! Records keep the handle of their day (a suggestion's `author`, a comment's, review requests,
//! set keepers). A former handle stays its person's alias for good and nobody else may take it,
//! so a stored handle always names one person: rules compare through
//! [`Principal::answers_to`](catalog_identity::Principal::answers_to) or resolve the handle
//! (`account_by_handle`), and answers here show the handle a person has now.

mod counts;
mod page;
mod search;

use serde::Serialize;

use catalog_identity::{Account, AccountId, Handle};

pub(crate) use counts::{Activity, activity_counter};
pub use page::{ActivityItem, MAX_PAGE_EXAMINED, PagePosition, PersonCounts, PersonPage};
pub use search::{MAX_IDS, MAX_THREAD_PEOPLE, PeopleQuery};

/// Someone as a list of people shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct Person {
    pub id: AccountId,
    pub handle: Handle,
    pub name: String,
    pub steward: bool,
    pub trusted: bool,
}

impl From<Account> for Person {
    fn from(a: Account) -> Person {
        Person {
            id: a.id,
            handle: a.handle,
            name: a.name,
            steward: a.steward,
            trusted: a.trusted,
        }
    }
}

impl crate::service::Workflow {
    /// Every handle the person holding `handle` held, theirs now first (at most
    /// `MAX_FORMER_HANDLES` + 1); the handle alone when nobody holds it.
    pub(crate) fn handles_of(&self, handle: &Handle) -> crate::error::Result<Vec<Handle>> {
        Ok(match self.account_by_handle(handle)? {
            Some(a) => std::iter::once(a.handle).chain(a.former_handles).collect(),
            None => vec![handle.clone()],
        })
    }

    /// A steward gives the account holding `old` the handle `new` (see
    /// `catalog_identity::Identity::rename`); the command line calls identity directly.
    pub fn rename_account(
        &self,
        principal: &catalog_identity::Principal,
        old: &Handle,
        new: &Handle,
    ) -> crate::error::Result<Person> {
        principal.require_write()?;
        if !principal.steward {
            return Err(crate::error::NotAllowed::NotSteward {
                who: principal.handle.clone(),
                what: "change handles",
            }
            .into());
        }
        Ok(self.identity().rename(old, new)?.into())
    }
}

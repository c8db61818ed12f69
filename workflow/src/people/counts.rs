//! The counters a person's page reads. Suggestions and issues are counted by the list indexes'
//! own counters (`crate::lists`: per author scope, open, closed and merged); comments and
//! reviews by the counters here, one per account, moved in the batch that writes the comment or
//! review. Stores made before these counters are counted once on open ([`Workflow::count_people`]).

use std::collections::BTreeMap;

use crate::discussion::conversation::{CommentRecord, ReviewRecord};
use crate::error::{Error, Result};
use crate::kv::META;
use crate::service::Workflow;
use catalog_identity::AccountId;

/// Set in `wf_meta` once comments and reviews written before the counters are counted.
const PEOPLE_COUNTED: &[u8] = b"people-counted";
const PEOPLE_VERSION: u8 = 1;

/// What a person does that their page counts apart from suggestions and issues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Activity {
    /// Comments written (suggestions, issues, talk pages, a review's field comments), hidden
    /// ones included: the counter counts writing, not what is shown now.
    Comments,
    Reviews,
}

impl Activity {
    fn name(self) -> &'static str {
        match self {
            Activity::Comments => "comments",
            Activity::Reviews => "reviews",
        }
    }
}

/// The counter of one account's activity of one kind.
pub(crate) fn activity_counter(account: AccountId, activity: Activity) -> String {
    format!("people/{}/{}", account.0, activity.name())
}

impl Workflow {
    /// Counts the comments and reviews of a store made before the counters; once. Comments by a
    /// handle without an account (none are made that way) are left out.
    pub(crate) fn count_people(&self) -> Result<()> {
        if self.kv().get_raw(META, PEOPLE_COUNTED)?.as_deref() == Some(&[PEOPLE_VERSION][..]) {
            return Ok(());
        }
        let _guard = self.registry_lock();
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        let mut accounts = BTreeMap::new();
        let mut count = |wf: &Workflow, handle: &catalog_identity::Handle, what: Activity| {
            let account = match accounts.get(handle) {
                Some(found) => *found,
                None => {
                    let found = wf.account_by_handle(handle)?.map(|a| a.id);
                    accounts.insert(handle.clone(), found);
                    found
                }
            };
            if let Some(account) = account {
                *counts.entry(activity_counter(account, what)).or_default() += 1;
            }
            Ok::<(), Error>(())
        };
        self.kv()
            .for_each::<CommentRecord, Error>(|_, c| count(self, &c.author, Activity::Comments))?;
        self.kv()
            .for_each::<ReviewRecord, Error>(|_, r| count(self, &r.author, Activity::Reviews))?;
        let mut batch = self.kv().batch();
        for (name, value) in &counts {
            batch.set_counter(name, *value)?;
        }
        batch.put_raw(META, PEOPLE_COUNTED, &[PEOPLE_VERSION])?;
        self.kv().write(batch)?;
        if !counts.is_empty() {
            tracing::info!(
                counters = counts.len(),
                "counted existing comments and reviews for people's pages"
            );
        }
        Ok(())
    }
}

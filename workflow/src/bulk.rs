//! A generated catalog of suggestions and issues, written the way the workflow writes them (the
//! record, its thread number, its list index entries and counters, an issue's first timeline
//! event, a review request) but thousands per batch: benchmarks need a million of each in a
//! minute, which the one-at-a-time write path (checks, locks, a batch per record) cannot give.
//! It checks nothing and is not for serving.

use crate::discussion::conversation::ReviewRequest;
use crate::discussion::issues::ISSUE_COUNTER;
use crate::discussion::issues::{Happened, Issue, IssueId, IssueState, TimelineEvent};
use crate::discussion::threads::{self, ThreadRef};
use crate::error::Result;
use crate::lists::{self, Deltas};
use crate::records::{IssueRecord, ReviewRequestRecord, SuggestionRecord};
use crate::service::Workflow;
use crate::suggestions::{
    Kind, SUGGESTION_COUNTER, Status, Suggestion, SuggestionId, THREAD_COUNTER, ThreadNumber,
};
use catalog_identity::Account;
use catalog_schemas::Id;

/// Records written per batch.
const PER_BATCH: usize = 5_000;

/// What to generate. Record `i` (from 0) of each kind is made from `i`:
/// - suggestion `i`: by `authors[i % len]`, review asked of `reviewers[i % len]`, status open,
///   merged, withdrawn, sent back in turn; title `generated suggestion {i} w{i % 1000}`;
///   description `see #{n}` where `n` is the number of issue `i / 10` (so each issue is referenced
///   by ten suggestions whatever the size);
/// - issue `i`: by `authors[i % len]`, closed when `i % 3 == 0`, private when `i % 50 == 0`,
///   assigned to `authors[(i + 1) % len]` when `i % 4 == 0`, labelled `generated` when
///   `i % 5 == 0`, about `set` (when given) when `i` is odd; title
///   `generated issue {i} w{i % 1000}`.
pub struct Generate<'a> {
    pub suggestions: u64,
    pub issues: u64,
    pub authors: &'a [Account],
    pub reviewers: &'a [Account],
    /// The set half the issues are about (a set's reports), if any.
    pub set: Option<Id>,
}

impl Workflow {
    /// Writes a generated catalog into an empty workflow store; see [`Generate`]. Answers the
    /// thread numbers of the issues, in order.
    #[doc(hidden)]
    pub fn generate(&self, g: &Generate<'_>) -> Result<Vec<ThreadNumber>> {
        let _guard = self.registry_lock();
        let kv = self.kv();
        let now = self.now();
        let mut deltas = Deltas::default();
        let mut batch = kv.batch();
        let mut pending = 0usize;
        // Issues first in the number space, so suggestions can name them.
        let mut number = kv.counter(THREAD_COUNTER)?;
        let mut issue_numbers = Vec::with_capacity(g.issues as usize);
        let first_issue = kv.counter(ISSUE_COUNTER)?;
        for i in 0..g.issues {
            number += 1;
            let author = &g.authors[(i % g.authors.len() as u64) as usize];
            let issue = Issue {
                title: Some(format!("generated issue {i} w{}", i % 1000)),
                state: if i % 3 == 0 {
                    IssueState::Closed
                } else {
                    IssueState::Open
                },
                body: Some("generated".into()),
                private: i % 50 == 0,
                // A quarter assigned (to the next author), a fifth labelled `generated`.
                assignees: if i % 4 == 0 {
                    vec![
                        g.authors[((i + 1) % g.authors.len() as u64) as usize]
                            .handle
                            .clone(),
                    ]
                } else {
                    Vec::new()
                },
                labels: if i % 5 == 0 {
                    vec![crate::discussion::issues::Label {
                        name: "generated".into(),
                        description: None,
                        color: None,
                    }]
                } else {
                    Vec::new()
                },
                set: g.set.filter(|_| i % 2 == 1),
                ..Issue::opened(
                    IssueId(first_issue + i + 1),
                    ThreadNumber(number),
                    author.id,
                    author.handle.clone(),
                    now,
                )
            };
            batch.put(&issue.id.key(), &IssueRecord::from(&issue))?;
            lists::reindex_issue(&mut batch, &mut deltas, None, &issue)?;
            threads::index(&mut batch, issue.number, ThreadRef::issue(issue.id))?;
            let opened = TimelineEvent {
                at: now,
                actor: Some(author.handle.clone()),
                what: Happened::Opened,
            };
            self.add_event(&mut batch, issue.id, 0, &opened)?;
            issue_numbers.push(issue.number);
            pending += 1;
            if pending == PER_BATCH {
                kv.write(std::mem::replace(&mut batch, kv.batch()))?;
                pending = 0;
            }
        }
        let first_suggestion = kv.counter(SUGGESTION_COUNTER)?;
        for i in 0..g.suggestions {
            number += 1;
            let author = &g.authors[(i % g.authors.len() as u64) as usize];
            let reviewer = &g.reviewers[(i % g.reviewers.len() as u64) as usize];
            let status = [
                Status::Open,
                Status::Merged,
                Status::Withdrawn,
                Status::SentBack,
            ][(i % 4) as usize];
            let referenced = issue_numbers.get((i / 10) as usize);
            let s = Suggestion {
                description: referenced.map(|n| format!("see #{}", n.0)),
                status,
                submitted_at: Some(now),
                closed_at: matches!(status, Status::Merged | Status::Withdrawn).then_some(now),
                ..Suggestion::made(
                    SuggestionId(first_suggestion + i + 1),
                    ThreadNumber(number),
                    format!("generated suggestion {i} w{}", i % 1000),
                    author.handle.clone(),
                    Kind::Edit,
                    self.inner.log.head(),
                    now,
                )
            };
            batch.put(&s.id.key(), &SuggestionRecord::from(&s))?;
            lists::reindex_suggestion(&mut batch, &mut deltas, None, &s, || {
                Ok(vec![reviewer.handle.clone()])
            })?;
            threads::index(&mut batch, s.number, ThreadRef::suggestion(s.id))?;
            let request = ReviewRequest {
                handle: reviewer.handle.clone(),
                name: reviewer.name.clone(),
                by: None,
                at: now,
                auto: true,
            };
            let key = [&s.id.key()[..], reviewer.handle.as_str().as_bytes()].concat();
            batch.put(&key, &ReviewRequestRecord::from(&request))?;
            pending += 1;
            if pending == PER_BATCH {
                kv.write(std::mem::replace(&mut batch, kv.batch()))?;
                pending = 0;
            }
        }
        deltas.apply(kv, &mut batch)?;
        batch.set_counter(ISSUE_COUNTER, first_issue + g.issues)?;
        batch.set_counter(SUGGESTION_COUNTER, first_suggestion + g.suggestions)?;
        batch.set_counter(THREAD_COUNTER, number)?;
        kv.write(batch)?;
        Ok(issue_numbers)
    }
}

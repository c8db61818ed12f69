//! Which records a request selects, read from the log.
//!
//! A list is the log walked in seq order, keeping each change that is still its item's latest
//! version: every item appears once, at the commit that last changed it, deleted items
//! included. A page stops at [`PAGE_SIZE`] records and remembers the next change it would keep
//! (looking ahead so that a token is never handed out for an empty page). `from` is found by a
//! binary search over commit times (they never decrease with seq), `until` ends the walk.

use catalog_log_core::{Change, Log, Seq};
use catalog_schemas::{Id, ItemType};

use crate::args::{Datestamp, ListVerb, Selection};
use crate::error::{Error, ErrorCode, ProtocolError};
use crate::record::{Dc, Record, Text, name_texts};
use crate::token::{Position, Resume};

/// Records in one page of ListIdentifiers or ListRecords, unless the operator chooses another.
pub const PAGE_SIZE: usize = 200;
/// The most records a page may be set to hold.
pub const MAX_PAGE_SIZE: usize = 1000;

/// The catalog as an OAI-PMH repository. Cheap to clone; every method reads RocksDB and so runs
/// on a blocking thread.
#[derive(Clone)]
pub struct Repository {
    log: Log,
    page_size: usize,
}

/// One page of a list.
#[derive(Debug)]
pub struct Page {
    pub records: Vec<Record>,
    /// Where the list goes on; `None` on its last page.
    pub next: Option<Resume>,
    /// How many records came before this page.
    pub cursor: u64,
}

impl Repository {
    /// The repository over `log`, `page_size` records a page (1 to [`MAX_PAGE_SIZE`]).
    pub fn new(log: Log, page_size: usize) -> Repository {
        Repository {
            log,
            page_size: page_size.clamp(1, MAX_PAGE_SIZE),
        }
    }

    /// The datestamp of the first commit; `None` while the log is empty.
    pub fn earliest(&self) -> Result<Option<Datestamp>, Error> {
        Ok(self
            .log
            .commit(Seq(1))?
            .map(|c| Datestamp::of_commit(&c.at)))
    }

    /// An item's record with its metadata (or its deletion); `None` when the item never was.
    pub fn record(&self, id: Id) -> Result<Option<Record>, Error> {
        let Some(head) = self.log.item_head(id)? else {
            return Ok(None);
        };
        let deleted = head.data.is_none() || head.merged_into.is_some();
        let dc = match (&head.data, deleted) {
            (Some(data), false) => Some(Dc::of(id, head.ty, data, |a| self.names_of(a))),
            _ => None,
        };
        Ok(Some(Record {
            id,
            ty: head.ty,
            datestamp: Datestamp::of_commit(&head.at),
            path: head.path,
            deleted,
            dc,
        }))
    }

    /// The first page of a fresh list.
    pub fn first_page(&self, verb: ListVerb, selection: &Selection) -> Result<Page, Error> {
        let start = match &selection.from {
            Some(from) => self.first_seq_from(from)?,
            None => 1,
        };
        let resume = Resume {
            verb,
            set: selection.set.clone(),
            until: selection.until.clone(),
            at: Position {
                seq: start,
                change: 0,
            },
            cursor: 0,
        };
        non_empty(
            self.page(&resume, self.page_size)?,
            "no record matches these arguments",
        )
    }

    /// The page a token names. One that finds nothing (its records all changed past an
    /// `until` since) is `noRecordsMatch`: a list of records may not be empty.
    pub fn next_page(&self, resume: &Resume) -> Result<Page, Error> {
        non_empty(
            self.page(resume, self.page_size)?,
            "the rest of this list has changed past its until: no record is left",
        )
    }

    /// Up to `limit` records from `resume.at`, and where the next page starts.
    pub fn page(&self, resume: &Resume, limit: usize) -> Result<Page, Error> {
        let mut records = Vec::with_capacity(limit.min(PAGE_SIZE));
        let since = Seq(resume.at.seq.saturating_sub(1));
        for commit in self.log.iter_from(since) {
            let commit = commit?;
            let stamp = Datestamp::of_commit(&commit.at);
            if resume.until.as_ref().is_some_and(|until| stamp > *until) {
                break;
            }
            for (i, change) in commit.changes.iter().enumerate() {
                let at = Position {
                    seq: commit.seq.0,
                    change: u32::try_from(i).unwrap_or(u32::MAX),
                };
                if at < resume.at
                    || resume
                        .set
                        .as_deref()
                        .is_some_and(|s| s != change.ty.as_str())
                    || !self.is_latest(change)?
                {
                    continue;
                }
                if records.len() >= limit {
                    return Ok(Page {
                        records,
                        next: Some(Resume {
                            at,
                            cursor: resume.cursor + limit as u64,
                            ..resume.clone()
                        }),
                        cursor: resume.cursor,
                    });
                }
                records.push(self.of_change(change, &stamp, resume.verb));
            }
        }
        Ok(Page {
            records,
            next: None,
            cursor: resume.cursor,
        })
    }

    /// Whether `change` made its item's latest version (later ones list the item instead).
    fn is_latest(&self, change: &Change) -> Result<bool, Error> {
        Ok(self
            .log
            .item_head(change.id)?
            .is_some_and(|head| head.rev == change.rev))
    }

    fn of_change(&self, change: &Change, stamp: &Datestamp, verb: ListVerb) -> Record {
        let deleted = change.data.is_none() || change.merged_into.is_some();
        let dc = match (&change.data, deleted, verb) {
            (Some(data), false, ListVerb::Records) => {
                Some(Dc::of(change.id, change.ty, data, |a| self.names_of(a)))
            }
            _ => None,
        };
        Record {
            id: change.id,
            ty: change.ty,
            datestamp: stamp.clone(),
            path: change.path.clone(),
            deleted,
            dc,
        }
    }

    /// An author's names, for a record's creators; none when it cannot be read.
    fn names_of(&self, id: Id) -> Vec<Text> {
        let Ok(Some(head)) = self.log.item_head(id) else {
            return Vec::new();
        };
        head.data
            .as_ref()
            .and_then(|d| {
                ["name", "title"]
                    .iter()
                    .find_map(|f| name_texts(d.get(*f)?))
            })
            .unwrap_or_default()
    }

    /// The first seq whose commit is at or after `from` (past the head when none is): a binary
    /// search, about 20 commit reads for a million commits.
    pub fn first_seq_from(&self, from: &Datestamp) -> Result<u64, Error> {
        let (mut lo, mut hi) = (1u64, self.log.head().0 + 1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let before = match self.log.commit(Seq(mid))? {
                Some(c) => Datestamp::of_commit(&c.at) < *from,
                None => false,
            };
            if before {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    /// The kinds of item the catalog knows from its start: the sets.
    pub fn sets() -> &'static [ItemType] {
        &ItemType::BUILT_IN
    }
}

/// `page`, or `noRecordsMatch` with `why` when it holds no record.
fn non_empty(page: Page, why: &str) -> Result<Page, Error> {
    if page.records.is_empty() {
        Err(ProtocolError::new(ErrorCode::NoRecordsMatch, why).into())
    } else {
        Ok(page)
    }
}

#[cfg(test)]
mod tests {
    use catalog_testkit::{TempStore, append, delete, put};
    use serde_json::json;

    use super::*;

    fn selection() -> Selection {
        Selection::default()
    }

    #[test]
    fn each_item_once_at_its_last_change_with_deletions() {
        let t = TempStore::open(&[]);
        let repo = Repository::new(t.log.clone(), PAGE_SIZE);
        let ids: Vec<Id> = (0..5).map(|_| Id::random()).collect();
        append(
            &t.log,
            ids.iter()
                .map(|&id| put(id, ItemType::Work, None, json!({"title": {"he": "א"}})))
                .collect(),
        );
        append(
            &t.log,
            vec![put(
                ids[0],
                ItemType::Work,
                None,
                json!({"title": {"he": "ב"}}),
            )],
        );
        append(&t.log, vec![delete(ids[1], ItemType::Work)]);
        append(
            &t.log,
            vec![put(
                Id::random(),
                ItemType::Author,
                None,
                json!({"name": {"he": "ג"}}),
            )],
        );

        let mut seen = Vec::new();
        let start = Resume {
            verb: ListVerb::Records,
            set: None,
            until: None,
            at: Position { seq: 1, change: 0 },
            cursor: 0,
        };
        // Pages of two, to cross commits in the middle.
        let mut page = repo.page(&start, 2).unwrap();
        loop {
            assert!(page.records.len() <= 2);
            seen.extend(page.records.iter().map(|r| (r.id, r.deleted)));
            let Some(next) = page.next else { break };
            page = repo.page(&next, 2).unwrap();
        }
        assert_eq!(seen.len(), 6, "{seen:?}");
        assert_eq!(seen.iter().filter(|(_, d)| *d).count(), 1);
        assert_eq!(seen.iter().filter(|(id, _)| *id == ids[0]).count(), 1);

        let authors = Selection {
            set: Some("author".into()),
            ..selection()
        };
        assert_eq!(
            repo.first_page(ListVerb::Identifiers, &authors)
                .unwrap()
                .records
                .len(),
            1
        );
        let none = Selection {
            set: Some("place".into()),
            ..selection()
        };
        assert!(matches!(
            repo.first_page(ListVerb::Identifiers, &none),
            Err(Error::Protocol(ProtocolError {
                code: ErrorCode::NoRecordsMatch,
                ..
            }))
        ));
        let deleted = repo.record(ids[1]).unwrap().unwrap();
        assert!(deleted.deleted && deleted.dc.is_none());
        assert!(repo.record(Id::random()).unwrap().is_none());
        let far = Datestamp::parse("2999-01-01", false).unwrap().0;
        assert_eq!(repo.first_seq_from(&far).unwrap(), t.log.head().0 + 1);
        let early = Datestamp::parse("2000-01-01", false).unwrap().0;
        assert_eq!(repo.first_seq_from(&early).unwrap(), 1);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// Whatever the history and the page size, paging through the list gives every item
        /// once, in its latest state, and a set gives exactly its kind's items.
        #[test]
        fn pages_give_each_item_once_in_its_latest_state(
            steps in proptest::collection::vec((0usize..6, proptest::bool::ANY, 0usize..3), 1..30),
            limit in 1usize..5,
        ) {
            let t = TempStore::open(&[]);
            let repo = Repository::new(t.log.clone(), limit);
            let ids: Vec<Id> = (0..6).map(|_| Id::random()).collect();
            let kinds = [ItemType::Work, ItemType::Author, ItemType::Place];
            let kind_of = |i: usize| kinds[i % 3];
            let mut latest = std::collections::BTreeMap::new();
            // Each step is one commit of one to three changes to distinct items.
            for (first, delete_it, extra) in steps {
                let changes = (0..=extra)
                    .map(|k| {
                        let i = (first + k) % ids.len();
                        latest.insert(ids[i], delete_it);
                        if delete_it {
                            delete(ids[i], kind_of(i))
                        } else {
                            put(ids[i], kind_of(i), None, json!({"title": {"he": "א"}}))
                        }
                    })
                    .collect();
                append(&t.log, changes);
            }
            let list = |set: Option<&str>| {
                let mut seen = Vec::new();
                let mut resume = Resume {
                    verb: ListVerb::Identifiers,
                    set: set.map(str::to_owned),
                    until: None,
                    at: Position { seq: 1, change: 0 },
                    cursor: 0,
                };
                loop {
                    let page = repo.page(&resume, limit).unwrap();
                    assert!(page.records.len() <= limit);
                    assert_eq!(page.cursor as usize, seen.len());
                    seen.extend(page.records.iter().map(|r| (r.id, r.deleted, r.ty)));
                    match page.next {
                        Some(next) => {
                            assert!(next.at > resume.at);
                            resume = next;
                        }
                        None => break,
                    }
                }
                seen
            };
            let all = list(None);
            let mut got: Vec<(Id, bool)> = all.iter().map(|(id, d, _)| (*id, *d)).collect();
            got.sort();
            let want: Vec<(Id, bool)> = latest.iter().map(|(id, d)| (*id, *d)).collect();
            proptest::prop_assert_eq!(got, want);
            let works = list(Some("work"));
            proptest::prop_assert!(works.iter().all(|(_, _, ty)| *ty == ItemType::Work));
            proptest::prop_assert_eq!(
                works.len(),
                all.iter().filter(|(_, _, ty)| *ty == ItemType::Work).count()
            );
        }
    }
}

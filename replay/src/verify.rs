//! `verify`: check the log's hash chain, then fold the whole log into a fresh temporary store and
//! search index and compare them with the live ones: the read models key by key, the search index
//! item by item (`catalog_search::compare`, one item's documents in memory at a time).

use std::path::Path;

use catalog_log_core::{Log, Seq, Store};
use catalog_projector::{Folder, ReadModels, column_families, fold};
use catalog_search::Found;
use rocksdb::IteratorMode;

use crate::error::Result;
use crate::progress::{Progress, Reporter};
use crate::rebuild::SEARCH;

/// At most this many differences are described; the rest are only counted.
const SHOWN: usize = 20;

/// One key where the live read models and a fresh fold disagree, or one item whose search
/// documents do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The column family, or [`SEARCH`].
    pub cf: &'static str,
    /// The key, in hex; for the search index, the item's id.
    pub key: String,
    /// The live value, in hex (`None`: the key is missing from the live store); for the search
    /// index, the item's first differing document as its stored values in JSON.
    pub live: Option<String>,
    /// The value a fresh fold gives (`None`: the live store has a key it should not).
    pub expected: Option<String>,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |v: &Option<String>| match v.as_deref() {
            None => "(none)".to_owned(),
            Some(document) if self.cf == SEARCH => clip(document),
            Some(hex) => short(hex),
        };
        write!(
            f,
            "{} key {}: live {}, expected {}",
            self.cf,
            self.key,
            show(&self.live),
            show(&self.expected)
        )
    }
}

/// A search document cut to a length a terminal line can show.
fn clip(text: &str) -> String {
    match text.char_indices().nth(160) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

fn short(hex: &str) -> String {
    if hex.len() > 64 {
        format!("{}… ({} bytes)", &hex[..64], hex.len() / 2)
    } else {
        hex.to_owned()
    }
}

/// What `verify` found. `is_ok()` decides the CLI's exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    /// The head of the log.
    pub head: Seq,
    /// The first commit where the hash chain breaks and why, if it does (the read models are
    /// then not compared).
    pub chain_broken: Option<(Seq, String)>,
    /// Projections whose checkpoint is not the head.
    pub behind: Vec<(&'static str, Seq)>,
    /// The search index's checkpoint, when there is an index to compare. It may trail the head
    /// (the spec lets search lag, and a server stops without waiting for it; the next start
    /// folds the rest), so the index is compared with a fold of the log up to it.
    pub search_applied: Option<Seq>,
    /// Why the search index could not be compared at all: there is none, another version wrote
    /// it, or it holds commits the log does not.
    pub search_unusable: Option<String>,
    /// The first differences found.
    pub differences: Vec<Difference>,
    /// How many keys (and search items) differ in all.
    pub different_keys: u64,
    /// How many keys (and search items) were compared.
    pub compared_keys: u64,
}

impl VerifyReport {
    pub fn is_ok(&self) -> bool {
        self.chain_broken.is_none()
            && self.behind.is_empty()
            && self.search_unusable.is_none()
            && self.different_keys == 0
    }

    fn differs(&mut self, difference: Difference) {
        self.different_keys += 1;
        if self.differences.len() < SHOWN {
            self.differences.push(difference);
        }
    }
}

/// Verifies the chain, the read models of a stopped store and the search index in `search_dir`.
pub fn verify(
    store: &Store,
    log: &Log,
    search_dir: &Path,
    progress: Progress,
) -> Result<VerifyReport> {
    let head = log.head();
    let mut report = VerifyReport {
        head,
        chain_broken: None,
        behind: Vec::new(),
        search_applied: None,
        search_unusable: None,
        differences: Vec::new(),
        different_keys: 0,
        compared_keys: 0,
    };
    match log.verify_chain() {
        Ok(_) => {}
        Err(catalog_log_core::Error::Chain { seq, why }) => {
            report.chain_broken = Some((seq, why));
            return Ok(report);
        }
        Err(e) => return Err(e.into()),
    }
    report.behind = ReadModels::new(store)
        .checkpoints()?
        .into_iter()
        .filter(|(_, seq)| *seq != head)
        .collect();

    let live_search = match catalog_search::open_to_read(search_dir)? {
        Found::Index(index) if index.applied() > head => {
            report.search_unusable = Some(format!(
                "the search index holds commits up to {} but the log ends at {head}: the server \
                 folds it again when it starts, or run `catalog rebuild --projection search`",
                index.applied()
            ));
            None
        }
        Found::Index(index) => {
            report.search_applied = Some(index.applied());
            Some(index)
        }
        Found::Missing if head == Seq(0) => None,
        Found::Missing => {
            report.search_unusable = Some(format!(
                "there is no search index in {}: the server builds it when it starts, or run \
                 `catalog rebuild --projection search`",
                search_dir.display()
            ));
            None
        }
        Found::OtherSchema => {
            report.search_unusable = Some(format!(
                "the search index in {} was written by another version (another schema): the \
                 server folds it again when it starts, or run `catalog rebuild --projection search`",
                search_dir.display()
            ));
            None
        }
    };

    let dir = tempfile::tempdir()?;
    let fresh = Store::open(&dir.path().join("db"), &column_families())?;
    let mut folder = Folder::open(&fresh, log)?;
    let reporter = Reporter::new(progress, "read models", head.0);
    let folded = folder.catch_up(head, |seq| reporter.commit(seq.0));
    reporter.finish();
    folded?;

    for cf in column_families() {
        // Checkpoints are compared above as "at the head"; the fresh ones are at the head by
        // construction.
        if cf == fold::META_CF {
            continue;
        }
        compare_cf(store, &fresh, cf, &mut report)?;
    }
    drop(fresh);

    if let Some(live) = live_search {
        let fresh_dir = dir.path().join(SEARCH);
        let until = live.applied();
        let reporter = Reporter::new(progress, SEARCH, until.0);
        let folded = catalog_search::rebuild_to_compare(&fresh_dir, log, until, |seq| {
            reporter.commit(seq.0);
        });
        reporter.finish();
        folded?;
        let Found::Index(fresh) = catalog_search::open_to_read(&fresh_dir)? else {
            return Err(catalog_search::Error::Corrupt(
                "the search index just folded does not open".into(),
            )
            .into());
        };
        let compared = catalog_search::compare(&live, &fresh, |d| {
            report.differs(Difference {
                cf: SEARCH,
                key: d.id,
                live: d.live,
                expected: d.expected,
            });
        })?;
        report.compared_keys += compared;
    }
    Ok(report)
}

fn compare_cf(
    live: &Store,
    fresh: &Store,
    cf: &'static str,
    report: &mut VerifyReport,
) -> Result<()> {
    let missing_cf = || catalog_projector::Error::Corrupt(format!("column family {cf} is missing"));
    let (ldb, fdb) = (live.db(), fresh.db());
    let mut l = ldb.iterator_cf(
        ldb.cf_handle(cf).ok_or_else(missing_cf)?,
        IteratorMode::Start,
    );
    let mut f = fdb.iterator_cf(
        fdb.cf_handle(cf).ok_or_else(missing_cf)?,
        IteratorMode::Start,
    );
    let (mut lnext, mut fnext) = (l.next().transpose()?, f.next().transpose()?);
    loop {
        let (diff, step_l, step_f) = match (&lnext, &fnext) {
            (None, None) => break,
            (Some((lk, lv)), Some((fk, fv))) if lk == fk => {
                let diff = (lv != fv).then(|| (lk.to_vec(), Some(lv.to_vec()), Some(fv.to_vec())));
                (diff, true, true)
            }
            (Some((lk, lv)), Some((fk, _))) if lk < fk => {
                (Some((lk.to_vec(), Some(lv.to_vec()), None)), true, false)
            }
            (Some((lk, lv)), None) => (Some((lk.to_vec(), Some(lv.to_vec()), None)), true, false),
            (_, Some((fk, fv))) => (Some((fk.to_vec(), None, Some(fv.to_vec()))), false, true),
        };
        report.compared_keys += 1;
        if let Some((key, live, expected)) = diff {
            report.differs(Difference {
                cf,
                key: hex::encode(key),
                live: live.map(hex::encode),
                expected: expected.map(hex::encode),
            });
        }
        if step_l {
            lnext = l.next().transpose()?;
        }
        if step_f {
            fnext = f.next().transpose()?;
        }
    }
    Ok(())
}

//! `verify`: check the log's hash chain, then fold the whole log into a fresh temporary store and
//! compare it, key by key, with the live read models.

use catalog_log_core::{Log, Seq, Store};
use catalog_projector::{Folder, ReadModels, column_families, fold};
use rocksdb::IteratorMode;

use crate::error::Result;

/// At most this many differences are described; the rest are only counted.
const SHOWN: usize = 20;

/// One key where the live read models and a fresh fold disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    pub cf: &'static str,
    /// The key, in hex.
    pub key: String,
    /// The live value, in hex (`None`: the key is missing from the live store).
    pub live: Option<String>,
    /// The value a fresh fold gives (`None`: the live store has a key it should not).
    pub expected: Option<String>,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |v: &Option<String>| v.as_deref().map_or("(none)".to_owned(), short);
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
    /// The first differences found.
    pub differences: Vec<Difference>,
    /// How many keys differ in all.
    pub different_keys: u64,
    /// How many keys were compared.
    pub compared_keys: u64,
}

impl VerifyReport {
    pub fn is_ok(&self) -> bool {
        self.chain_broken.is_none() && self.behind.is_empty() && self.different_keys == 0
    }
}

/// Verifies the chain and the read models of a stopped store.
pub fn verify(store: &Store, log: &Log) -> Result<VerifyReport> {
    let head = log.head();
    let mut report = VerifyReport {
        head,
        chain_broken: None,
        behind: Vec::new(),
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

    let dir = tempfile::tempdir()?;
    let fresh = Store::open(dir.path(), &column_families())?;
    let mut folder = Folder::open(&fresh, log)?;
    folder.catch_up(head, |_| {})?;

    for cf in column_families() {
        // Checkpoints are compared above as "at the head"; the fresh ones are at the head by
        // construction.
        if cf == fold::META_CF {
            continue;
        }
        compare_cf(store, &fresh, cf, &mut report)?;
    }
    drop(fresh);
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
            report.different_keys += 1;
            if report.differences.len() < SHOWN {
                report.differences.push(Difference {
                    cf,
                    key: hex::encode(key),
                    live: live.map(hex::encode),
                    expected: expected.map(hex::encode),
                });
            }
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

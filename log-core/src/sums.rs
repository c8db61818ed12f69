//! Counters summed by RocksDB: a merge operand is a signed delta, and the value of a key is its
//! last written value (absent: zero) plus every delta written after it, as an 8-byte big-endian
//! two's-complement number.
//!
//! Every family of the store carries this operator, though only the read models' full rebuild
//! writes operands today: adding to a counter without reading it first is what lets a fold from
//! the log's start skip the point read each reference would otherwise cost (see the projector's
//! `settle`). A family that never receives an operand never calls it.

use rocksdb::MergeOperands;

/// The name RocksDB records for the operator; a database written with operands refuses to be
/// read with another one of a different name.
pub const SUM_OPERATOR: &str = "catalog.sum-i64-be";

/// A counter's value, or `None` when `bytes` are not 8 (not a counter).
pub fn value(bytes: &[u8]) -> Option<i64> {
    Some(i64::from_be_bytes(bytes.try_into().ok()?))
}

/// A counter that may be absent (then zero), or `None` when present but not a counter.
fn value_or_zero(bytes: Option<&[u8]>) -> Option<i64> {
    bytes.map_or(Some(0), value)
}

/// `base` (absent: zero) plus `delta`, or `None` when `base` is not a counter.
pub fn add_to(base: Option<&[u8]>, delta: i64) -> Option<[u8; 8]> {
    let base = value_or_zero(base)?;
    Some(base.wrapping_add(delta).to_be_bytes())
}

/// The merge function RocksDB calls, for a full merge (`existing` is the base) and a partial one
/// (operands only). `None` tells RocksDB the value is corrupt: an operand or base of the wrong
/// length.
pub(crate) fn merge(
    _key: &[u8],
    existing: Option<&[u8]>,
    operands: &MergeOperands,
) -> Option<Vec<u8>> {
    let mut sum = value_or_zero(existing)?;
    for operand in operands {
        sum = sum.wrapping_add(value(operand)?);
    }
    Some(sum.to_be_bytes().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    /// A store with one family to sum in; the directory lives as long as the store is used.
    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), &["rm_sums"]).unwrap();
        (dir, store)
    }

    #[test]
    fn operands_sum_over_a_base_and_over_nothing() {
        let (_dir, store) = store();
        let db = store.db();
        let cf = db.cf_handle("rm_sums").unwrap();
        db.put_cf(cf, b"a", 5i64.to_be_bytes()).unwrap();
        for delta in [3i64, -10, 4] {
            db.merge_cf(cf, b"a", delta.to_be_bytes()).unwrap();
            db.merge_cf(cf, b"b", delta.to_be_bytes()).unwrap();
        }
        assert_eq!(db.get_cf(cf, b"a").unwrap().unwrap(), 2i64.to_be_bytes());
        assert_eq!(db.get_cf(cf, b"b").unwrap().unwrap(), (-3i64).to_be_bytes());
        // Flushed and compacted, the operands are folded into one value.
        db.flush_cf(cf).unwrap();
        db.compact_range_cf(cf, None::<&[u8]>, None::<&[u8]>);
        assert_eq!(db.get_cf(cf, b"b").unwrap().unwrap(), (-3i64).to_be_bytes());
        // A delete is a base of zero.
        db.delete_cf(cf, b"a").unwrap();
        db.merge_cf(cf, b"a", 7i64.to_be_bytes()).unwrap();
        assert_eq!(db.get_cf(cf, b"a").unwrap().unwrap(), 7i64.to_be_bytes());
    }

    #[test]
    fn an_operand_that_is_not_a_counter_is_corrupt() {
        let (_dir, store) = store();
        let db = store.db();
        let cf = db.cf_handle("rm_sums").unwrap();
        db.merge_cf(cf, b"a", b"short").unwrap();
        assert!(db.get_cf(cf, b"a").is_err());
        assert_eq!(add_to(Some(b"short"), 1), None);
    }
}

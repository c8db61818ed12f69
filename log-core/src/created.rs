//! Which changes of the newest large commits created their item, as the log writer found when
//! it checked their heads.
//!
//! A fold of such a commit looks for each changed item's previous version, a backwards seek that
//! finds nothing for a new item and that was a third of the projector's work on a bot's import
//! of 10,000 new items (BENCHMARKS.md). The writer already did that check, so it leaves its
//! answer here. Only a few of the newest commits of many changes are kept, in memory: after a
//! restart, for an older or smaller commit, or for commits a mirror imported, readers get
//! `None` and look as before.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use crate::seq::Seq;

/// Commits with fewer changes are not remembered: their seeks are few.
pub(crate) const MIN_CHANGES: usize = 64;
/// How many commits are remembered. The projector folds a commit moments after it is written;
/// one that fell this far behind looks for itself.
const KEPT: usize = 16;

/// For each remembered commit, one flag a change, in the commit's order: `true` when no
/// version of the item existed before the commit.
#[derive(Default)]
pub(crate) struct Created {
    recent: Mutex<VecDeque<(Seq, Arc<[bool]>)>>,
}

impl Created {
    /// Called by the writer after the commit is durable and before its head is published, so
    /// a reader woken by the new head finds it.
    pub(crate) fn remember(&self, seq: Seq, created: Arc<[bool]>) {
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        if recent.len() == KEPT {
            recent.pop_front();
        }
        recent.push_back((seq, created));
    }

    pub(crate) fn of(&self, seq: Seq) -> Option<Arc<[bool]>> {
        let recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        recent
            .iter()
            .rev()
            .find(|(s, _)| *s == seq)
            .map(|(_, created)| created.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_the_newest() {
        let created = Created::default();
        for seq in 1..=(KEPT as u64 + 3) {
            created.remember(Seq(seq), Arc::from(vec![seq % 2 == 0]));
        }
        for seq in 1..=3 {
            assert!(created.of(Seq(seq)).is_none(), "seq {seq} kept");
        }
        assert_eq!(created.of(Seq(4)).as_deref(), Some(&[true][..]));
        assert_eq!(
            created.of(Seq(KEPT as u64 + 3)).as_deref(),
            Some(&[false][..])
        );
        assert!(created.of(Seq(KEPT as u64 + 4)).is_none());
    }
}

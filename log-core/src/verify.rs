//! Checking the whole log: the hash chain, and that revisions agree with their commits.

use crate::commit::GENESIS_HASH;
use crate::error::Error;
use crate::log::Log;
use crate::record;
use crate::seq::Seq;

impl Log {
    /// Walks every commit from the first, recomputing each hash from its predecessor, and
    /// checks each revision record against the commit that made it. Returns the last seq
    /// checked; `Error::Chain { seq }` names the first commit where the chain breaks
    /// (a wrong hash, a gap in seqs, or stored bytes that are not the commit's own JSON).
    pub fn verify_chain(&self) -> Result<Seq, Error> {
        // Read the head first: the iterator made afterwards sees at least this much.
        let head = self.head();
        let mut prev = GENESIS_HASH;
        let mut last = Seq(0);
        for entry in self.raw_from(Seq(0)) {
            let (seq, bytes) = entry?;
            if seq != last.next() {
                return Err(Error::Chain { seq: last.next() });
            }
            let commit = record::decode_commit(seq, &bytes)?;
            let json = record::commit_json(seq, &bytes)?;
            // Re-serialising must give the stored bytes, or what mirrors are served would not
            // hash to the stored hash even though the decoded commit does.
            if !commit.verify(&prev) || serde_json::to_vec(&commit).ok().as_deref() != Some(json) {
                return Err(Error::Chain { seq });
            }
            for expected in commit.revisions() {
                let stored = self.revision(expected.rev)?;
                if stored.as_ref() != Some(&expected) {
                    return Err(Error::Corrupt(format!(
                        "revision {} does not match commit {seq}",
                        expected.rev
                    )));
                }
            }
            prev = commit
                .hash_bytes()
                .expect("verified hashes are well formed");
            last = seq;
        }
        if last < head {
            return Err(Error::Chain { seq: last.next() });
        }
        Ok(last)
    }
}

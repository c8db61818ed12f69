//! Checking the whole log: the hash chain, and that revisions agree with their commits.

use crate::error::Error;
use crate::link::Linked;
use crate::log::Log;
use crate::reads::read_revision;
use crate::record;
use crate::seq::Seq;
use crate::store::Store;

impl Store {
    /// Walks every commit from the first, checking each links to its predecessor, decodes,
    /// re-serialises to exactly its stored bytes, and agrees with the revisions it made.
    /// Returns the last seq checked; `Error::Chain { seq, why }` names the first commit that
    /// fails and how. Needs no [`Log`], so it can name the damage in a log that refuses to open.
    pub fn verify_chain(&self) -> Result<Seq, Error> {
        let mut last = Seq(0);
        for entry in Linked::after(self, Seq(0)) {
            let (seq, bytes) = entry?;
            let broken = |why: String| Error::Chain { seq, why };
            let commit =
                record::decode_commit(seq, &bytes).map_err(|err| broken(err.to_string()))?;
            let json = record::commit_json(seq, &bytes)?;
            // Re-serialising must give the stored bytes, or a mirror decoding what it is served
            // would hash something other than what was sealed.
            if serde_json::to_vec(&commit).ok().as_deref() != Some(json) {
                return Err(broken(
                    "its JSON is not the commit's own serialisation".into(),
                ));
            }
            for expected in commit.revisions() {
                let stored =
                    read_revision(self, expected.rev).map_err(|err| broken(err.to_string()))?;
                if stored.as_ref() != Some(&expected) {
                    return Err(broken(format!(
                        "revision {} does not match it",
                        expected.rev
                    )));
                }
            }
            last = seq;
        }
        Ok(last)
    }
}

impl Log {
    /// [`Store::verify_chain`], and that the chain reaches the head this log holds.
    pub fn verify_chain(&self) -> Result<Seq, Error> {
        // Read the head first: the scan made afterwards sees at least this much.
        let head = self.head();
        let last = self.store().verify_chain()?;
        if last < head {
            return Err(Error::Chain {
                seq: last.next(),
                why: "the record is missing".into(),
            });
        }
        Ok(last)
    }
}

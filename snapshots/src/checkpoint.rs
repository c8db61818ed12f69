use std::path::Path;

use catalog_log_core::{Log, Seq, Store};
use catalog_projector::Folder;
use rocksdb::checkpoint::Checkpoint;

use crate::Error;

/// Where a checkpoint stands: the log's head and every projection's last applied commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckpointInfo {
    pub head: Seq,
    pub projections: Vec<(&'static str, Seq)>,
}

/// Copies `store` into `dest` (which must not exist) as of one instant.
///
/// RocksDB flushes memtables and hard-links table files, so every column family in the copy is
/// from the same moment: the log, the read models and their checkpoints agree with each other.
pub fn create_checkpoint(store: &Store, dest: &Path) -> Result<CheckpointInfo, Error> {
    if dest.exists() {
        return Err(Error::DestinationExists(dest.to_path_buf()));
    }
    Checkpoint::new(store.db())?.create_checkpoint(dest)?;

    // Report from the copy itself, not the live store, which may have moved on meanwhile.
    let copy = Store::open(dest, &catalog_projector::column_families())?;
    let copy_log = Log::open(&copy)?;
    let folder = Folder::open(&copy, &copy_log)?;
    let info = CheckpointInfo {
        head: copy_log.head(),
        projections: folder.checkpoints(),
    };
    tracing::info!(head = %info.head, dest = %dest.display(), "checkpoint made");
    Ok(info)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use catalog_log_core::{Expect, NewChange, NewCommit};
    use catalog_projector::{Lookup, Projector, ReadModels};
    use catalog_schemas::{Id, ItemType};
    use serde_json::json;

    use super::*;

    fn topic_commit(slug: &str) -> NewCommit {
        NewCommit {
            message: format!("add {slug}"),
            merged_by: "steward".into(),
            author: "steward".into(),
            suggestion: None,
            changes: vec![NewChange {
                id: Id::random(),
                ty: ItemType::Topic,
                path: Some(format!("/topics/{slug}")),
                data: Some(json!({ "name": { "he": "נושא" }, "slug": slug })),
                merged_into: None,
                expect: Expect::Absent,
            }],
        }
    }

    #[test]
    fn a_copy_resumes_from_its_checkpoints_without_refolding() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("copy");
        let (head, first_id) = {
            let store = Store::open(
                &dir.path().join("live"),
                &catalog_projector::column_families(),
            )
            .unwrap();
            let log = Log::open(&store).unwrap();
            let projector = Projector::start(&store, &log).unwrap();
            let first = log.append(topic_commit("a")).unwrap();
            let last = log.append(topic_commit("b")).unwrap();
            projector
                .wait_applied(last.seq, Duration::from_secs(10))
                .unwrap();

            let info = create_checkpoint(&store, &dest).unwrap();
            assert_eq!(info.head, last.seq);
            assert!(
                info.projections.iter().all(|(_, seq)| *seq == last.seq),
                "{info:?}"
            );
            (last.seq, first.changes[0].id)
        };

        // The copy opens on its own; its folder has nothing left to do and answers at once.
        let store = Store::open(&dest, &catalog_projector::column_families()).unwrap();
        let log = Log::open(&store).unwrap();
        let mut folder = Folder::open(&store, &log).unwrap();
        assert_eq!(folder.applied(), head);
        let mut refolded = 0;
        folder.catch_up(head, |_| refolded += 1).unwrap();
        assert_eq!(refolded, 0, "a checkpointed copy must not fold again");
        assert!(matches!(
            ReadModels::new(&store).item(first_id).unwrap(),
            Lookup::Found(_)
        ));
    }

    #[test]
    fn refuses_an_existing_destination() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(
            &dir.path().join("live"),
            &catalog_projector::column_families(),
        )
        .unwrap();
        let err = create_checkpoint(&store, dir.path()).unwrap_err();
        assert!(matches!(err, Error::DestinationExists(_)));
    }
}

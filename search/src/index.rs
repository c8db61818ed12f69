//! Opening the index, and `Indexer`, which folds commits into it with the checkpoint in each
//! tantivy commit's payload.
//!
//! Documents added but not committed are lost in a crash together with the payload that would
//! have named their seq, so on open the index resumes from exactly the last batch it holds.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use catalog_log_core::{Commit, Log, Seq};
use tantivy::directory::MmapDirectory;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use crate::analyzer;
use crate::document::document;
use crate::error::{Error, Result};
use crate::fields::{Fields, TITLE_ORDER};
use crate::moment;
use crate::query::RankColumns;

/// Memory the one indexing thread may buffer before writing a segment (tantivy's minimum is 15 MB).
const WRITER_MEMORY: usize = 32 * 1024 * 1024;
/// Commits read from the log per tantivy commit while catching up.
const CHUNK: usize = 512;
/// A catch-up commits to tantivy at least every this many item changes.
const COMMIT_EVERY: usize = 100_000;

/// The items a fold from the log's start has met.
type Seen = catalog_schemas::IdSet;

/// The checkpoint as it is kept in the payload.
fn payload(seq: Seq) -> String {
    format!("{{\"seq\":{}}}", seq.0)
}

fn read_payload(text: Option<&str>) -> Result<Seq> {
    let Some(text) = text else { return Ok(Seq(0)) };
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| Error::Corrupt(format!("checkpoint payload {text:?}: {e}")))?;
    value
        .get("seq")
        .and_then(serde_json::Value::as_u64)
        .map(Seq)
        .ok_or_else(|| Error::Corrupt(format!("checkpoint payload {text:?} has no seq")))
}

/// How a new index stores its documents. A search answers at most a page of hits and reads the
/// stored fields of those alone, each from a different place in the store: with tantivy's
/// 16 KiB blocks every hit decompressed a whole block for one document of a few hundred bytes.
/// Each segment's documents are sorted by `title_order`, so the title ranks find a segment's
/// best matches first and stop after a page (`query::shortest_first`) instead of reading every
/// match's column: a common word matches ten times the titles at ten times the items.
fn settings() -> tantivy::IndexSettings {
    tantivy::IndexSettings {
        docstore_blocksize: DOCSTORE_BLOCK_BYTES,
        sort_by_field: Some(tantivy::IndexSortByField {
            field: TITLE_ORDER.to_owned(),
            order: tantivy::Order::Asc,
        }),
        ..tantivy::IndexSettings::default()
    }
}

/// The size of a block of stored documents, compressed as one.
const DOCSTORE_BLOCK_BYTES: usize = 2048;

/// The read side of the index. Cheap to clone; every clone sees each batch once it is committed.
#[derive(Clone)]
pub struct SearchIndex {
    pub(crate) reader: IndexReader,
    pub(crate) fields: Fields,
    applied: Arc<AtomicU64>,
    /// The name ranks' columns of the newest searcher generation seen (`query::RankColumns`).
    pub(crate) rank_columns: Arc<Mutex<Option<Arc<RankColumns>>>>,
}

impl SearchIndex {
    /// Opens the index in `dir` (creating it when missing), with its one writer. An index whose
    /// schema is not this version's is emptied, so it is folded again from the log.
    pub fn open(dir: &Path) -> Result<(SearchIndex, Indexer)> {
        std::fs::create_dir_all(dir)?;
        let (schema, _) = Fields::schema();
        let directory = MmapDirectory::open(dir)
            .map_err(|e| Error::Corrupt(format!("cannot open {}: {e}", dir.display())))?;
        let index = if Index::exists(&directory).map_err(tantivy::TantivyError::from)? {
            let index = Index::open(directory)?;
            // The title ranks rely on the sort: an index made without it is made again.
            if index.schema() == schema
                && index.settings().sort_by_field == settings().sort_by_field
            {
                index
            } else {
                tracing::warn!(dir = %dir.display(), "search index has another schema or order; rebuilding it");
                drop(index);
                std::fs::remove_dir_all(dir)?;
                std::fs::create_dir_all(dir)?;
                Index::builder()
                    .schema(schema)
                    .settings(settings())
                    .create_in_dir(dir)?
            }
        } else {
            Index::create(directory, schema, settings())?
        };
        analyzer::register(&index);
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        let writer = index.writer_with_num_threads(1, WRITER_MEMORY)?;
        let search = SearchIndex::from_reader(&index, reader)?;
        let indexer = Indexer {
            search: search.clone(),
            writer,
        };
        Ok((search, indexer))
    }

    /// The read side of an opened `index`, at the checkpoint its last commit recorded.
    pub(crate) fn from_reader(index: &Index, reader: IndexReader) -> Result<SearchIndex> {
        let applied = read_payload(index.load_metas()?.payload.as_deref())?;
        Ok(SearchIndex {
            reader,
            fields: Fields::of(&index.schema())?,
            applied: Arc::new(AtomicU64::new(applied.0)),
            rank_columns: Arc::default(),
        })
    }

    /// The last commit the index holds.
    pub fn applied(&self) -> Seq {
        Seq(self.applied.load(Ordering::SeqCst))
    }

    /// Every document as its stored values (a line of JSON), sorted: two indexes folded from one
    /// log answer the same. For tests; `compare` does this item by item.
    pub fn dump(&self) -> Result<Vec<String>> {
        use tantivy::collector::DocSetCollector;
        use tantivy::query::AllQuery;
        let searcher = self.reader.searcher();
        let mut out = Vec::new();
        for address in searcher.search(&AllQuery, &DocSetCollector)? {
            let doc: TantivyDocument = searcher.doc(address)?;
            out.push(crate::compare::stored_values(&searcher, &doc)?);
        }
        out.sort();
        Ok(out)
    }
}

/// The one writer of the index; the projector's worker owns it.
pub struct Indexer {
    search: SearchIndex,
    writer: IndexWriter,
}

impl Indexer {
    /// The last commit the index holds.
    pub fn applied(&self) -> Seq {
        self.search.applied()
    }

    /// The read side of this index.
    pub fn index(&self) -> &SearchIndex {
        &self.search
    }

    /// Folds `commits` (the ones right after `applied()`, in order) and commits them with their
    /// last seq as the checkpoint. Commits already held are skipped, so a caller may hand over a
    /// batch that overlaps what the index has. On failure the index is back at its last commit.
    pub fn apply(&mut self, commits: &[Commit]) -> Result<Seq> {
        let result = self.apply_unrecovered(commits);
        self.recover_from(result)
    }

    fn apply_unrecovered(&mut self, commits: &[Commit]) -> Result<Seq> {
        let mut applied = self.applied();
        let mut changed = false;
        for commit in commits {
            if commit.seq <= applied {
                continue;
            }
            self.add(commit, applied, None)?;
            applied = commit.seq;
            changed = true;
        }
        if changed {
            self.commit(applied)?;
        }
        Ok(applied)
    }

    /// Hands one commit's documents to the writer (no tantivy commit). `seen`, in a fold from the
    /// log's start, holds every item met before: one outside it has no document to delete.
    fn add(&mut self, commit: &Commit, applied: Seq, seen: Option<&Seen>) -> Result<()> {
        if commit.seq.0 != applied.0 + 1 {
            return Err(Error::OutOfOrder {
                applied,
                given: commit.seq,
            });
        }
        let fields = self.search.fields;
        for change in &commit.changes {
            // An update replaces the item's document and its moments (they share its id); a
            // delete or merge only removes them.
            if seen.is_none_or(|seen| seen.contains(&change.id)) {
                self.writer
                    .delete_term(Term::from_field_text(fields.id, &change.id.to_string()));
            }
            if let Some(doc) = document(&fields, change) {
                self.writer.add_document(doc)?;
            }
            for doc in moment::documents(&fields, change) {
                self.writer.add_document(doc)?;
            }
        }
        Ok(())
    }

    fn commit(&mut self, seq: Seq) -> Result<()> {
        let mut prepared = self.writer.prepare_commit()?;
        prepared.set_payload(&payload(seq));
        prepared.commit()?;
        self.search.reader.reload()?;
        self.search.applied.store(seq.0, Ordering::SeqCst);
        Ok(())
    }

    /// Folds every commit after `applied()` up to and including `until`, reading the log one
    /// commit at a time (a bulk import's commits are megabytes each) and committing to tantivy
    /// every [`COMMIT_EVERY`] changes or [`CHUNK`] commits, calling `each` after each tantivy
    /// commit. Returns the seq reached. On failure the index is back at its last commit.
    pub fn catch_up(&mut self, log: &Log, until: Seq, each: impl FnMut(Seq)) -> Result<Seq> {
        let result = self.catch_up_unrecovered(log, until, each);
        self.recover_from(result)
    }

    /// After a failed fold, goes back to the last commit on disk: tantivy's writer may hold half
    /// a batch, and after an I/O error (a full disk) its own view of the segments cannot be
    /// trusted: without this, a later commit published an empty segment list with a newer
    /// checkpoint and garbage-collected every segment file (found by `catalog verify` after
    /// `tests/disk_full.rs`). The checkpoint is read back from disk too, since a commit may have
    /// reached the disk before the error.
    fn recover_from<T>(&mut self, result: Result<T>) -> Result<T> {
        if let Err(failed) = &result
            && let Err(e) = self.roll_back()
        {
            tracing::error!(error = %e, after = %failed, "search index rollback failed");
        }
        result
    }

    fn roll_back(&mut self) -> Result<()> {
        self.writer.rollback()?;
        let applied = read_payload(self.writer.index().load_metas()?.payload.as_deref())?;
        self.search.reader.reload()?;
        self.search.applied.store(applied.0, Ordering::SeqCst);
        tracing::warn!(
            applied = applied.0,
            "search index rolled back to its last commit"
        );
        Ok(())
    }

    fn catch_up_unrecovered(
        &mut self,
        log: &Log,
        until: Seq,
        mut each: impl FnMut(Seq),
    ) -> Result<Seq> {
        let from = self.applied();
        // From the log's start, an item not met yet has nothing to delete first.
        let mut seen: Option<Seen> = (from == Seq(0)).then(Seen::default);
        let mut applied = from;
        let (mut commits, mut changes) = (0usize, 0usize);
        for commit in log.iter_from(from) {
            let commit = commit?;
            if commit.seq > until {
                break;
            }
            self.add(&commit, applied, seen.as_ref())?;
            if let Some(seen) = seen.as_mut() {
                seen.extend(commit.changes.iter().map(|c| c.id));
            }
            applied = commit.seq;
            commits += 1;
            changes += commit.changes.len();
            if commits >= CHUNK || changes >= COMMIT_EVERY {
                self.commit(applied)?;
                each(applied);
                (commits, changes) = (0, 0);
            }
        }
        if applied > self.applied() {
            self.commit(applied)?;
            each(applied);
        }
        if applied < until {
            return Err(Error::Corrupt(format!(
                "the log has no commit after seq {applied} below head {until}"
            )));
        }
        Ok(self.applied())
    }

    /// Empties the index and sets its checkpoint to 0, so the next catch-up folds the whole log.
    pub fn reset(&mut self) -> Result<()> {
        self.writer.delete_all_documents()?;
        self.commit(Seq(0))
    }

    /// Lets the merges under way, and those they start, finish before the writer goes. A
    /// dropped writer abandons its merges, so a rebuild that ended without this left whatever
    /// segments its last commit found: at 10,000,000 items 31 in one run and far fewer in the
    /// next, and the server, which merges only after a commit, searched that many until the next
    /// write (BENCHMARKS.md, "the search fold's peak: a merge's inputs").
    pub fn settle(self) -> Result<()> {
        self.writer.wait_merging_threads()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use tantivy::schema::{STORED, Schema};

    use super::*;

    #[test]
    fn an_index_of_another_schema_is_made_again_with_this_ones_settings() {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut other = Schema::builder();
        other.add_text_field("something_else", STORED);
        Index::create_in_dir(dir.path(), other.build()).expect("an index of another schema");

        let (search, _indexer) = SearchIndex::open(dir.path()).expect("open");
        assert_eq!(search.applied(), Seq(0));
        let index = Index::open_in_dir(dir.path()).expect("reopen");
        assert_eq!(index.schema(), Fields::schema().0);
        assert_eq!(index.settings().docstore_blocksize, DOCSTORE_BLOCK_BYTES);
        assert_eq!(index.settings().sort_by_field, settings().sort_by_field);
    }

    #[test]
    fn an_index_of_this_schema_not_sorted_by_title_order_is_made_again() {
        let dir = tempfile::tempdir().expect("temp dir");
        let unsorted = tantivy::IndexSettings {
            docstore_blocksize: DOCSTORE_BLOCK_BYTES,
            ..tantivy::IndexSettings::default()
        };
        Index::builder()
            .schema(Fields::schema().0)
            .settings(unsorted)
            .create_in_dir(dir.path())
            .expect("an unsorted index");

        let _opened = SearchIndex::open(dir.path()).expect("open");
        let index = Index::open_in_dir(dir.path()).expect("reopen");
        assert_eq!(index.settings().sort_by_field, settings().sort_by_field);
    }
    use catalog_log_core::Store;
    use catalog_schemas::{Id, ItemType};
    use serde_json::json;

    fn append(log: &Log, id: Id, data: Option<serde_json::Value>) {
        let change = match data {
            Some(data) => catalog_testkit::put(id, ItemType::Topic, None, data),
            None => catalog_testkit::delete(id, ItemType::Topic),
        };
        catalog_testkit::append(log, vec![change]);
    }

    #[test]
    fn batches_are_applied_once_in_order_with_their_seq_as_checkpoint() {
        let dir = tempfile::tempdir().expect("dir");
        let store = Store::open(&dir.path().join("db"), &[]).expect("store");
        let log = Log::open(&store).expect("log");
        let id = Id::random();
        append(
            &log,
            id,
            Some(json!({ "name": { "he": "שמחה", "en": "Joy" } })),
        );
        append(
            &log,
            id,
            Some(json!({ "name": { "he": "אהבה", "en": "Love" } })),
        );
        append(&log, id, None);
        let commits = log.commits_after(Seq(0), 10).expect("commits");

        let (index, mut indexer) = SearchIndex::open(&dir.path().join("search")).expect("open");
        // A batch that skips a seq is refused and changes nothing.
        assert!(matches!(
            indexer.apply(&commits[1..]),
            Err(Error::OutOfOrder {
                applied: Seq(0),
                given: Seq(2)
            })
        ));
        assert_eq!(index.applied(), Seq(0));

        assert_eq!(indexer.apply(&commits[..2]).expect("apply"), Seq(2));
        // The update replaced the item's one document.
        let dump = index.dump().expect("dump");
        assert_eq!(dump.len(), 1);
        assert!(
            dump[0].contains("אהבה") && !dump[0].contains("שמחה"),
            "{dump:?}"
        );
        // An overlapping batch applies only what is new; the delete removes the document.
        assert_eq!(indexer.apply(&commits).expect("apply"), Seq(3));
        assert!(index.dump().expect("dump").is_empty());
        drop((index, indexer));

        // The checkpoint is read back from the commit payload.
        let (index, _indexer) = SearchIndex::open(&dir.path().join("search")).expect("reopen");
        assert_eq!(index.applied(), Seq(3));
    }

    #[test]
    fn a_settled_index_has_no_merge_left_to_do() {
        use tantivy::indexer::{LogMergePolicy, MergePolicy};
        let dir = tempfile::tempdir().expect("dir");
        let store = Store::open(&dir.path().join("db"), &[]).expect("store");
        let log = Log::open(&store).expect("log");
        // One tantivy commit, so one segment, per batch: the last makes the policy's eight to a
        // merge, which a writer dropped at once abandons.
        let segments = 8;
        for n in 0..segments {
            let name = json!({ "name": { "he": format!("שם {n}"), "en": format!("name {n}") } });
            append(&log, Id::random(), Some(name));
        }
        let commits = log.commits_after(Seq(0), segments).expect("commits");
        let (_, mut indexer) = SearchIndex::open(&dir.path().join("search")).expect("open");
        for commit in &commits {
            indexer.apply(std::slice::from_ref(commit)).expect("apply");
        }
        indexer.settle().expect("settle");

        let index = Index::open_in_dir(dir.path().join("search")).expect("reopen");
        let metas = index.searchable_segment_metas().expect("segments");
        assert!(metas.len() < segments, "{} segments", metas.len());
        assert!(
            LogMergePolicy::default()
                .compute_merge_candidates(&metas)
                .is_empty(),
            "{} segments, a merge still to do",
            metas.len()
        );
        let docs: u32 = metas.iter().map(|m| m.num_docs()).sum();
        assert_eq!(docs as usize, segments);
        let payload = index.load_metas().expect("metas").payload;
        assert_eq!(read_payload(payload.as_deref()).expect("payload"), Seq(8));
    }
}

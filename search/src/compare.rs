//! Comparing two indexes item by item, for `catalog verify`: the live index against one folded
//! afresh from the log.
//!
//! Items are walked in id order through the `id` field's term dictionaries of both indexes (every
//! segment's, merged), and each item's documents are read from both and compared as their stored
//! values. Only one item's documents are held at a time, so the cost in memory is one item's,
//! whatever the size of the catalog.

use std::path::Path;

use tantivy::collector::DocSetCollector;
use tantivy::directory::MmapDirectory;
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::schema::document::Document as _;
use tantivy::termdict::TermMerger;
use tantivy::{Index, ReloadPolicy, Searcher, TantivyDocument, Term};

use crate::analyzer;
use crate::error::{Error, Result};
use crate::fields::Fields;
use crate::index::SearchIndex;

/// What a directory holds, opened without changing anything in it (no writer, no lock taken).
pub enum Found {
    Index(SearchIndex),
    /// No index at all: the server has never started on this data directory, or it was removed.
    Missing,
    /// An index written with another version's schema (the server empties and folds it again
    /// when it starts).
    OtherSchema,
}

/// Opens the index in `dir` to read it only.
pub fn open_to_read(dir: &Path) -> Result<Found> {
    if !dir.is_dir() {
        return Ok(Found::Missing);
    }
    let directory = MmapDirectory::open(dir)
        .map_err(|e| Error::Corrupt(format!("cannot open {}: {e}", dir.display())))?;
    if !Index::exists(&directory).map_err(tantivy::TantivyError::from)? {
        return Ok(Found::Missing);
    }
    let index = Index::open(directory)?;
    if index.schema() != Fields::schema().0 {
        return Ok(Found::OtherSchema);
    }
    analyzer::register(&index);
    let reader = index
        .reader_builder()
        .reload_policy(ReloadPolicy::Manual)
        .try_into()?;
    Ok(Found::Index(SearchIndex::from_reader(&index, reader)?))
}

/// One item whose documents differ between the two indexes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemDiffers {
    /// The item's id.
    pub id: String,
    /// The first of its documents that differs, as the live index holds it (`None`: the live
    /// index has fewer of its documents, or none).
    pub live: Option<String>,
    /// The same document as the fresh index holds it (`None`: the live index has one too many).
    pub expected: Option<String>,
}

/// Compares every item's documents in `live` with those in `expected`, calling `differs` for each
/// item whose documents are not the same. Answers how many items were compared.
pub fn compare(
    live: &SearchIndex,
    expected: &SearchIndex,
    mut differs: impl FnMut(ItemDiffers),
) -> Result<u64> {
    let (live_s, expected_s) = (live.reader.searcher(), expected.reader.searcher());
    let field = live.fields.id;
    let mut inverted = Vec::new();
    for searcher in [&live_s, &expected_s] {
        for segment in searcher.segment_readers() {
            inverted.push(segment.inverted_index(field)?);
        }
    }
    let streams = inverted
        .iter()
        .map(|i| i.terms().stream())
        .collect::<std::io::Result<Vec<_>>>()?;
    let mut ids = TermMerger::new(streams);
    let mut compared = 0;
    while ids.advance() {
        let id = std::str::from_utf8(ids.key())
            .map_err(|_| Error::Corrupt("an item id that is not UTF-8".into()))?
            .to_owned();
        let (l, e) = (
            documents_of(&live_s, field, &id)?,
            documents_of(&expected_s, field, &id)?,
        );
        // An id whose documents were all deleted stays in the dictionary until segments merge.
        if l.is_empty() && e.is_empty() {
            continue;
        }
        compared += 1;
        if l != e {
            let at = l.iter().zip(&e).take_while(|(a, b)| a == b).count();
            differs(ItemDiffers {
                id,
                live: l.get(at).cloned(),
                expected: e.get(at).cloned(),
            });
        }
    }
    Ok(compared)
}

/// The live documents of item `id`, each as its stored values, sorted.
fn documents_of(
    searcher: &Searcher,
    field: tantivy::schema::Field,
    id: &str,
) -> Result<Vec<String>> {
    let query = TermQuery::new(Term::from_field_text(field, id), IndexRecordOption::Basic);
    let mut out = Vec::new();
    for address in searcher.search(&query, &DocSetCollector)? {
        let doc: TantivyDocument = searcher.doc(address)?;
        out.push(stored_values(searcher, &doc)?);
    }
    out.sort();
    Ok(out)
}

/// A document's stored values as one line of JSON, fields in name order.
pub(crate) fn stored_values(searcher: &Searcher, doc: &TantivyDocument) -> Result<String> {
    serde_json::to_string(&doc.to_named_doc(searcher.schema()))
        .map_err(|e| Error::Corrupt(format!("a stored document does not serialize: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projection::rebuild;
    use catalog_log_core::{Log, Store};
    use catalog_schemas::{Id, ItemType};
    use serde_json::json;

    /// A log in a store of its own holding `items`, each `(id, English title)` or `(id, None)`
    /// for a delete, one commit each.
    fn log_of(dir: &Path, items: &[(Id, Option<&str>)]) -> (Store, Log) {
        let store = Store::open(&dir.join("db"), &[]).expect("store");
        let log = Log::open(&store).expect("log");
        for (id, title) in items {
            let change = match title {
                Some(t) => catalog_testkit::put(
                    *id,
                    ItemType::Work,
                    None,
                    json!({ "title": { "he": "ספר", "en": t } }),
                ),
                None => catalog_testkit::delete(*id, ItemType::Work),
            };
            catalog_testkit::append(&log, vec![change]);
        }
        (store, log)
    }

    fn indexed(dir: &Path, items: &[(Id, Option<&str>)]) -> SearchIndex {
        let (_store, log) = log_of(dir, items);
        rebuild(&dir.join("search"), &log, log.head(), |_| {}).expect("rebuild");
        match open_to_read(&dir.join("search")).expect("open") {
            Found::Index(index) => index,
            _ => panic!("no index in {}", dir.display()),
        }
    }

    fn differences(live: &SearchIndex, expected: &SearchIndex) -> (u64, Vec<ItemDiffers>) {
        let mut found = Vec::new();
        let compared = compare(live, expected, |d| found.push(d)).expect("compare");
        (compared, found)
    }

    #[test]
    fn names_each_item_whose_documents_differ_and_only_those() {
        let dir = tempfile::tempdir().expect("dir");
        let (a, b, c) = (Id::random(), Id::random(), Id::random());
        let expected = indexed(
            &dir.path().join("expected"),
            &[
                (a, Some("Tanya")),
                (b, Some("Likkutei Sichos")),
                (c, Some("Igros")),
            ],
        );
        let same = indexed(
            &dir.path().join("same"),
            &[
                (a, Some("Tanya")),
                (b, Some("Likkutei Sichos")),
                (c, Some("Igros")),
            ],
        );
        assert_eq!(differences(&same, &expected), (3, vec![]));

        // One title drifted, one item lingers that the log deleted, one is missing.
        let d = Id::random();
        let drifted = indexed(
            &dir.path().join("drifted"),
            &[
                (a, Some("Tanya")),
                (b, Some("Likkutei Torah")),
                (d, Some("Gone")),
            ],
        );
        let (compared, found) = differences(&drifted, &expected);
        assert_eq!(compared, 4);
        let mut ids: Vec<&str> = found.iter().map(|f| f.id.as_str()).collect();
        ids.sort();
        let mut want = vec![b.to_string(), c.to_string(), d.to_string()];
        want.sort();
        assert_eq!(ids, want);
        let of = |id: Id| {
            found
                .iter()
                .find(|f| f.id == id.to_string())
                .expect("found")
        };
        let title = of(b);
        assert!(
            title
                .live
                .as_deref()
                .is_some_and(|l| l.contains("Likkutei Torah")),
            "{title:?}"
        );
        assert!(
            title
                .expected
                .as_deref()
                .is_some_and(|e| e.contains("Likkutei Sichos")),
            "{title:?}"
        );
        assert!(of(c).live.is_none() && of(c).expected.is_some());
        assert!(of(d).live.is_some() && of(d).expected.is_none());

        // An item deleted later in the log is as good as never indexed.
        let deleted = indexed(
            &dir.path().join("deleted"),
            &[
                (a, Some("Tanya")),
                (b, Some("Likkutei Sichos")),
                (c, Some("Igros")),
                (d, Some("x")),
                (d, None),
            ],
        );
        assert_eq!(differences(&deleted, &expected), (3, vec![]));
    }

    #[test]
    fn opening_to_read_changes_nothing_and_says_what_it_found() {
        let dir = tempfile::tempdir().expect("dir");
        assert!(matches!(
            open_to_read(&dir.path().join("none")),
            Ok(Found::Missing)
        ));
        std::fs::create_dir_all(dir.path().join("empty")).expect("mkdir");
        assert!(matches!(
            open_to_read(&dir.path().join("empty")),
            Ok(Found::Missing)
        ));
        assert!(!dir.path().join("empty").join("meta.json").exists());

        let a = Id::random();
        let index = indexed(&dir.path().join("one"), &[(a, Some("Tanya"))]);
        assert_eq!(index.applied(), catalog_log_core::Seq(1));
        // A reader beside it does not stop the writer from opening.
        drop(SearchIndex::open(&dir.path().join("one").join("search")).expect("writer"));
    }
}

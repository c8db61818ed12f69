use catalog_log_core::NewChange;
use catalog_schemas::{Id, ItemType};
use catalog_testkit::TempStore;
use serde_json::{Value, json};

use super::*;
use crate::read::ReadModels;
use crate::{Folder, column_families, fold};

/// A store folded commit by commit, that can also fold `coverage` again from the log.
struct Live {
    t: TempStore,
    folder: Folder,
    rm: ReadModels,
}

fn ty(name: &str) -> ItemType {
    name.parse().unwrap()
}

fn put(id: Id, name: &str, data: Value) -> NewChange {
    catalog_testkit::put(id, ty(name), None, data)
}

fn delete(id: Id, name: &str) -> NewChange {
    catalog_testkit::delete(id, ty(name))
}

impl Live {
    fn new() -> Live {
        let t = TempStore::open(&column_families());
        let folder = Folder::open(&t.store, &t.log).unwrap();
        let rm = ReadModels::new(&t.store);
        Live { t, folder, rm }
    }

    fn commit(&mut self, changes: Vec<NewChange>) {
        let commit = catalog_testkit::append(&self.t.log, changes);
        assert!(self.folder.apply_commit(&commit).unwrap());
    }

    fn dump(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        let db = self.t.store.db();
        db.iterator_cf(fold::cf(db, CF).unwrap(), rocksdb::IteratorMode::Start)
            .map(|e| {
                let (k, v) = e.unwrap();
                (k.to_vec(), v.to_vec())
            })
            .collect()
    }

    /// `catalog rebuild --projection coverage`: empties it and folds it alone from the log.
    fn rebuilt(&mut self) -> Vec<(Vec<u8>, Vec<u8>)> {
        fold::reset(&self.t.store, Some("coverage")).unwrap();
        let mut again = Folder::open(&self.t.store, &self.t.log).unwrap();
        again.catch_up(self.t.log.head(), |_| {}).unwrap();
        self.folder = again;
        self.dump()
    }

    fn year(&self, year: u16) -> CoverageCounts {
        self.rm
            .coverage_by_year(500)
            .unwrap()
            .into_iter()
            .find(|(y, _)| *y == year)
            .map(|(_, c)| c)
            .unwrap_or_default()
    }

    fn set(&self, set: Id) -> CoverageCounts {
        self.rm
            .coverage_by_set(500)
            .unwrap()
            .into_iter()
            .find(|(s, _)| *s == set)
            .map(|(_, c)| c)
            .unwrap_or_default()
    }
}

fn farbrengen(date: &str, sets: &[Id]) -> Value {
    let sets: Vec<String> = sets.iter().map(Id::to_string).collect();
    json!({"kind": "farbrengen", "title": {"he": "התוועדות"}, "date": date, "sets": sets})
}

#[test]
fn coverage_moves_both_ways_per_year_and_set() {
    let mut t = Live::new();
    let (set, ev, ev2, rec, text) = (
        Id::random(),
        Id::random(),
        Id::random(),
        Id::random(),
        Id::random(),
    );
    t.commit(vec![
        put(ev, "event", farbrengen("5785-07-11", &[set])),
        put(ev2, "event", farbrengen("5785-01-10", &[])),
    ]);
    let counts = CoverageCounts {
        farbrengens: 2,
        ..CoverageCounts::default()
    };
    assert_eq!(t.year(5785), counts);
    assert_eq!(t.set(set).farbrengens, 1);
    assert_eq!(
        t.rm.coverage_gaps(10).unwrap(),
        vec![CoverageGap {
            year: 5785,
            farbrengens: 2,
            lacking_recording: 2
        }]
    );

    // A recording and a text of the first farbrengen.
    t.commit(vec![
        put(rec, "recording", json!({"event": ev.to_string()})),
        put(
            text,
            "text",
            json!({"kind": "transcript", "language": "yi", "event": ev.to_string()}),
        ),
    ]);
    assert_eq!(t.year(5785).with_recording, 1);
    assert_eq!(t.year(5785).with_text, 1);
    assert_eq!(t.set(set).with_recording, 1);
    assert_eq!(t.rm.coverage_gaps(10).unwrap()[0].lacking_recording, 1);

    // The recording goes: back again.
    t.commit(vec![delete(rec, "recording")]);
    assert_eq!(t.year(5785).with_recording, 0);
    assert_eq!(t.set(set).with_recording, 0);
    assert_eq!(t.rm.coverage_gaps(10).unwrap()[0].lacking_recording, 2);

    // A farbrengen moved to another year and out of its set, then no longer a farbrengen.
    t.commit(vec![put(ev, "event", farbrengen("5786-07-11", &[]))]);
    assert_eq!(t.year(5785).farbrengens, 1);
    assert_eq!(t.year(5786).with_text, 1);
    assert_eq!(t.set(set), CoverageCounts::default());
    t.commit(vec![put(
        ev,
        "event",
        json!({"kind": "yechidus", "title": {"he": "יחידות"}, "date": "5786-07-11"}),
    )]);
    assert_eq!(t.year(5786), CoverageCounts::default());
    let totals = t.rm.coverage_totals().unwrap();
    assert_eq!(totals.counts.farbrengens, 1);
    assert_eq!(totals.counts.with_text, 0);
}

#[test]
fn publications_pages_and_unsynced_recordings_are_counted() {
    let mut t = Live::new();
    let (set, publication, scan) = (Id::random(), Id::random(), Id::random());
    let (layer, p1, p2) = (Id::random(), Id::random(), Id::random());
    let (rec, alignment, s1, s2) = (Id::random(), Id::random(), Id::random(), Id::random());
    let sets = vec![set.to_string()];
    t.commit(vec![
        put(publication, "publication", json!({"kind": "volume", "title": {"he": "ספר"}, "date": "5750", "sets": sets})),
        put(scan, "scan", json!({"publication": publication.to_string(), "file": "00".repeat(32)})),
        put(p1, "text-page", json!({"layer": layer.to_string(), "page": 1, "lines": []})),
        put(p2, "text-page", json!({"layer": layer.to_string(), "page": 2, "lines": [{"id": "a", "text": "x", "checked": true}]})),
        put(alignment, "alignment", json!({"recording": rec.to_string(), "text": Id::random().to_string(), "granularity": "paragraph"})),
        put(s1, "alignment-span", json!({"alignment": alignment.to_string(), "segment": Id::random().to_string(), "startMs": 0, "endMs": 1, "origin": {"checked": false}})),
        put(s2, "alignment-span", json!({"alignment": alignment.to_string(), "segment": Id::random().to_string(), "startMs": 1, "endMs": 2, "checked": false})),
    ]);
    assert_eq!(t.year(5750).publications, 1);
    assert_eq!(t.set(set).with_scan, 1);
    let totals = t.rm.coverage_totals().unwrap();
    assert_eq!(
        (totals.pages, totals.unchecked_pages, totals.machine_pages),
        (2, 2, 1)
    );
    assert_eq!(totals.unsynced_recordings, 1);
    assert_eq!(t.rm.unsynced_recordings(10).unwrap(), vec![rec]);

    // Confirming the sync checks both spans; a page raised to level 1 is no longer unchecked.
    t.commit(vec![
        put(s1, "alignment-span", json!({"alignment": alignment.to_string(), "segment": Id::random().to_string(), "startMs": 0, "endMs": 1, "checked": true})),
        put(s2, "alignment-span", json!({"alignment": alignment.to_string(), "segment": Id::random().to_string(), "startMs": 1, "endMs": 2, "checked": true})),
        put(p1, "text-page", json!({"layer": layer.to_string(), "page": 1, "lines": [], "proofread": 1})),
        delete(scan, "scan"),
    ]);
    let totals = t.rm.coverage_totals().unwrap();
    assert_eq!(
        (totals.pages, totals.unchecked_pages, totals.machine_pages),
        (2, 1, 0)
    );
    assert_eq!(totals.unsynced_recordings, 0);
    assert_eq!(totals.aligned_recordings, 1);
    assert!(t.rm.unsynced_recordings(10).unwrap().is_empty());
    assert!(!t.rm.is_unsynced(rec).unwrap());
    assert_eq!(t.set(set).with_scan, 0);
}

#[test]
fn unsynced_recordings_page_in_id_order_and_aligned_ones_are_counted() {
    let mut t = Live::new();
    let mut recordings: Vec<Id> = (0..5).map(|_| Id::random()).collect();
    let mut changes = Vec::new();
    let mut alignments = Vec::new();
    for rec in &recordings {
        let (alignment, span) = (Id::random(), Id::random());
        alignments.push(alignment);
        changes.push(put(alignment, "alignment", json!({"recording": rec.to_string(), "text": Id::random().to_string(), "granularity": "paragraph"})));
        changes.push(put(span, "alignment-span", json!({"alignment": alignment.to_string(), "segment": Id::random().to_string(), "startMs": 0, "endMs": 1, "checked": false})));
    }
    // A second alignment of the first recording: still one recording aligned.
    changes.push(put(Id::random(), "alignment", json!({"recording": recordings[0].to_string(), "text": Id::random().to_string(), "granularity": "word"})));
    t.commit(changes);
    recordings.sort();
    let totals = t.rm.coverage_totals().unwrap();
    assert_eq!(
        (totals.aligned_recordings, totals.unsynced_recordings),
        (5, 5)
    );

    let (first, next) = t.rm.unsynced_after(None, 2).unwrap();
    assert_eq!(first, recordings[..2]);
    let (second, next) = t.rm.unsynced_after(next.as_deref(), 2).unwrap();
    assert_eq!(second, recordings[2..4]);
    let (last, next) = t.rm.unsynced_after(next.as_deref(), 2).unwrap();
    assert_eq!((last, next), (recordings[4..].to_vec(), None));
    assert!(t.rm.is_unsynced(recordings[3]).unwrap());

    // An alignment deleted takes its recording out of both counts.
    let gone = alignments.remove(4);
    t.commit(vec![delete(gone, "alignment")]);
    let totals = t.rm.coverage_totals().unwrap();
    assert_eq!(
        (totals.aligned_recordings, totals.unsynced_recordings),
        (4, 4)
    );
}

#[test]
fn coverage_equals_a_rebuild_from_the_log() {
    let mut t = Live::new();
    let sets: Vec<Id> = (0..3).map(|_| Id::random()).collect();
    let events: Vec<Id> = (0..6).map(|_| Id::random()).collect();
    let recordings: Vec<Id> = (0..6).map(|_| Id::random()).collect();
    let alignment = Id::random();
    t.commit(
        events
            .iter()
            .enumerate()
            .map(|(i, id)| {
                put(
                    *id,
                    "event",
                    farbrengen(&format!("57{}0-07-11", 4 + i % 3), &sets[..i % 3]),
                )
            })
            .collect(),
    );
    // Recordings arrive before and after what they point at, move, and go.
    let early = Id::random();
    t.commit(vec![put(
        recordings[0],
        "recording",
        json!({"event": early.to_string()}),
    )]);
    t.commit(vec![put(
        early,
        "event",
        farbrengen("5790-01-01", &sets[1..]),
    )]);
    for (i, rec) in recordings.iter().enumerate().skip(1) {
        t.commit(vec![put(
            *rec,
            "recording",
            json!({"event": events[i % 4].to_string()}),
        )]);
    }
    t.commit(vec![
        put(recordings[2], "recording", json!({"event": events[5].to_string()})),
        delete(recordings[3], "recording"),
        put(events[1], "event", farbrengen("5799-02-02", &sets)),
        delete(events[4], "event"),
        put(alignment, "alignment", json!({"recording": recordings[1].to_string(), "text": Id::random().to_string(), "granularity": "word"})),
        put(Id::random(), "alignment-span", json!({"alignment": alignment.to_string(), "segment": Id::random().to_string(), "startMs": 0, "endMs": 1, "checked": false})),
    ]);
    let live = t.dump();
    assert!(!live.is_empty());
    assert_eq!(t.rebuilt(), live);
}

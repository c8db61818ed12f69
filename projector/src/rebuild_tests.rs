//! A rebuild on several threads must leave every read model byte for byte as folding the same
//! log one commit at a time on one thread, and a rebuild cut short must be redone.

use catalog_log_core::{Log, NewChange, Seq, Store};
use catalog_schemas::{Id, ItemType};
use catalog_testkit::TempStore;
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::bulk_tests::{SLOTS, Step, dump, step, write_log};
use crate::fold::{META_CF, cf};
use crate::rebuild::{IN_PROGRESS_KEY, rebuild_all_with};
use crate::{Folder, column_families, rebuild_all};

fn fresh_store() -> TempStore {
    TempStore::open(&column_families())
}

/// The read models of folding `log` one commit at a time, as the live worker does.
fn one_by_one(log: &Log) -> TempStore {
    let fresh = fresh_store();
    let mut folder = Folder::open(&fresh.store, log).unwrap();
    for commit in log.iter_from(Seq(0)) {
        folder.apply_commit(&commit.unwrap()).unwrap();
    }
    fresh
}

/// A rebuild through the public entry point, as `catalog rebuild` calls it.
fn rebuilt(log: &Log, threads: usize) -> TempStore {
    rebuilt_with(log, |store, each| {
        rebuild_all(store, log, log.head(), threads, each)
    })
}

/// A rebuild whose groups write their overlays at `overlay_bytes`.
fn rebuilt_small(log: &Log, threads: usize, overlay_bytes: usize) -> TempStore {
    rebuilt_with(log, |store, each| {
        rebuild_all_with(store, log, log.head(), threads, Some(overlay_bytes), each)
    })
}

fn rebuilt_with(
    log: &Log,
    rebuild: impl FnOnce(&Store, &mut dyn FnMut(Seq)) -> crate::Result<Seq>,
) -> TempStore {
    let fresh = fresh_store();
    let mut reported = Vec::new();
    let reached = rebuild(&fresh.store, &mut |seq| reported.push(seq)).unwrap();
    assert_eq!(reached, log.head());
    assert_eq!(reported.last().copied(), Some(log.head()));
    assert!(reported.windows(2).all(|w| w[0] < w[1]));
    fresh
}

fn put(id: Id, ty: ItemType, path: Option<String>, data: Value) -> NewChange {
    catalog_testkit::put(id, ty, path.as_deref(), data)
}

/// A history holding items of every built-in kind (and a kind a `schema` item defines), with
/// the fields the projections read (references, dates, pages, files, rights, names, texts'
/// sources), updated, deleted and merged over more commits than a bulk catch-up needs.
fn every_type_log(log: &Log) {
    const ROUNDS: usize = 90;
    let ids = |n: usize| -> Vec<Id> { (0..n).map(|_| Id::random()).collect() };
    let (sets, authors, works, events, publications) = (ids(3), ids(3), ids(4), ids(6), ids(3));
    let (layers, texts, recordings, alignments) = (ids(2), ids(4), ids(6), ids(2));
    let (persons, places, topics, sources) = (ids(3), ids(3), ids(3), ids(2));
    let s = |v: &[Id], i: usize| v[i % v.len()].to_string();
    let mut first = Vec::new();
    for (i, id) in sets.iter().enumerate() {
        first.push(put(
            *id,
            ItemType::Set,
            Some(format!("/sets/s{i}")),
            json!({"slug": format!("s{i}"), "name": {"he": format!("קבוצה {i}")}}),
        ));
    }
    for (i, id) in authors.iter().enumerate() {
        first.push(put(
            *id,
            ItemType::Author,
            Some(format!("/authors/a{i}")),
            json!({"slug": format!("a{i}"), "name": {"he": "מחבר", "en": format!("author {i}")}}),
        ));
    }
    for (ty, pool, word) in [
        (ItemType::Person, &persons, "person"),
        (ItemType::Place, &places, "place"),
        (ItemType::Topic, &topics, "topic"),
        (ItemType::Source, &sources, "source"),
    ] {
        for (i, id) in pool.iter().enumerate() {
            // Two of each share a name, so the duplicates check has work.
            first.push(put(
                *id,
                ty,
                None,
                json!({"name": {"he": format!("{word} {}", i / 2)}}),
            ));
        }
    }
    first.push(put(
        Id::random(),
        ItemType::Schema,
        None,
        json!({"type": "niggun", "version": 1, "schema": {"required": ["name"]},
               "refs": [{"field": "of", "targets": ["work"]}],
               "path": {"prefix": "niggunim", "field": "slug"}}),
    ));
    catalog_testkit::append(log, first);

    for r in 0..ROUNDS {
        let v = r % 5;
        let mut changes = Vec::new();
        let w = r % works.len();
        changes.push(put(
            works[w],
            ItemType::Work,
            Some(format!("/w{}", (w + v) % 6)),
            json!({"slug": format!("w{w}"), "sets": [s(&sets, r)], "authors": [s(&authors, r)],
                   "title": {"he": "ספר", "en": format!("book {v}")},
                   "cover": {"file": format!("{:02x}", r % 3).repeat(32), "page": v + 1}}),
        ));
        let e = r % events.len();
        let date = format!("57{}-{:02}-{:02}", 80 + v, v + 1, e + 1);
        changes.push(put(
            events[e],
            ItemType::Event,
            Some(format!("/events/{date}")),
            json!({"date": date, "kind": if v == 2 { "yechidus" } else { "farbrengen" },
                   "title": {"he": "התוועדות"}, "sets": [s(&sets, r)], "place": s(&places, r)}),
        ));
        let p = r % publications.len();
        changes.push(put(
            publications[p],
            ItemType::Publication,
            None,
            json!({"kind": if v == 1 { "document" } else { "volume" }, "title": {"he": "ספר"},
                   "date": "5750", "work": s(&works, r), "sets": [s(&sets, r)]}),
        ));
        let file = format!("{:02x}", 0x10 + r % 4).repeat(32);
        let rights = ["open", "credit", "link", "preserved", "withheld"][v];
        let drive = if v == 3 {
            json!("1AbCdEfGhIjK")
        } else {
            Value::Null
        };
        changes.push(put(
            Id::random(),
            ItemType::Scan,
            None,
            json!({"publication": s(&publications, r), "file": file, "bytes": 1000 + r,
                   "mime": "application/pdf", "rights": rights, "credit": "Kehot",
                   "drive": drive}),
        ));
        changes.push(put(
            Id::random(),
            ItemType::ContentsMap,
            None,
            json!({"scan": s(&publications, r), "entries": []}),
        ));
        let l = r % layers.len();
        changes.push(put(
            layers[l],
            ItemType::TextLayer,
            None,
            json!({"scan": s(&publications, r), "kind": "ocr"}),
        ));
        changes.push(put(
            Id::random(),
            ItemType::TextPage,
            None,
            json!({"layer": layers[l].to_string(), "page": r % 40 + 1, "proofread": v % 3,
                   "lines": [{"id": "l1", "text": "שורה", "checked": v % 2 == 0}]}),
        ));
        let t = r % texts.len();
        let hash = format!("{:02x}", 0xc0 + r % 3).repeat(32);
        let kind = ["hanacha", "transcript", "translation"][v % 3];
        changes.push(put(
            texts[t],
            ItemType::Text,
            None,
            json!({"kind": kind, "language": "he",
                   "event": s(&events, r), "sourceText": format!("words {}", r % 4),
                   "rights": if v == 4 { "unsure" } else { "open" },
                   "body": {"profile": "plain", "versions": [], "bodySource": {"copy": hash}}}),
        ));
        changes.push(put(
            Id::random(),
            ItemType::Segment,
            None,
            json!({"text": s(&texts, r), "order": format!("a{r:08}")}),
        ));
        let c = r % recordings.len();
        changes.push(put(
            recordings[c],
            ItemType::Recording,
            None,
            json!({"event": s(&events, r + v), "url": "https://x.org/a"}),
        ));
        let a = r % alignments.len();
        changes.push(put(
            alignments[a],
            ItemType::Alignment,
            None,
            json!({"recording": s(&recordings, r), "text": s(&texts, r),
                   "granularity": if v % 2 == 0 { "word" } else { "paragraph" }}),
        ));
        changes.push(put(
            Id::random(),
            ItemType::AlignmentSpan,
            None,
            json!({"alignment": s(&alignments, r), "segment": Id::random().to_string(),
                   "startMs": r, "endMs": r + 1, "checked": v % 2 == 1}),
        ));
        changes.push(put(
            Id::random(),
            ItemType::Unit,
            Some(format!("/w{w}/{}/{r}", v + 1)),
            json!({"work": works[w].to_string(), "position": [v + 1, r], "order": format!("a{v}"),
                   "events": [s(&events, r)], "sets": [s(&sets, r)]}),
        ));
        changes.push(put(
            Id::random(),
            ItemType::Relation,
            None,
            json!({"kind": "cites", "from": s(&works, r), "to": s(&works, r + 1)}),
        ));
        changes.push(put(
            Id::random(),
            "niggun".parse().unwrap(),
            Some(format!("/niggunim/n{}", r % 7)),
            json!({"slug": format!("n{}", r % 7), "name": {"he": "ניגון"}, "of": s(&works, r)}),
        ));
        catalog_testkit::append(log, changes);
        // Every few rounds, something goes: a recording deleted, a person merged into another.
        if r % 7 == 6 {
            catalog_testkit::append(
                log,
                vec![catalog_testkit::delete(
                    recordings[(r + 1) % recordings.len()],
                    ItemType::Recording,
                )],
            );
        }
        if r == 40 {
            catalog_testkit::append(
                log,
                vec![catalog_testkit::merged_into(
                    persons[0],
                    ItemType::Person,
                    persons[1],
                )],
            );
        }
    }
}

#[test]
fn a_rebuild_on_several_threads_of_every_kind_of_item_equals_one_thread() {
    let source = fresh_store();
    every_type_log(&source.log);
    assert!(source.log.head().0 >= 64, "long enough for a bulk catch-up");
    let expected = one_by_one(&source.log);
    let families = dump(&expected.store);
    // The history must reach every read model, or the comparison would prove little.
    for (name, entries) in &families {
        assert!(!entries.is_empty(), "the history leaves {name} empty");
    }
    for threads in [1, 2, 3, 7, 64] {
        let rebuilt = rebuilt(&source.log, threads);
        for ((name, want), (_, got)) in families.iter().zip(dump(&rebuilt.store)) {
            assert!(
                *want == got,
                "{name} differs after a rebuild on {threads} threads"
            );
        }
    }
}

/// Folding a large commit live, the projector skips looking for the previous versions of the
/// items the log writer found new (`Log::created_by`); a rebuild learns the same from the items
/// it has met. Both must leave the same read models — which they would not if a changed item
/// were taken for a new one (its old path, names and links would stay).
#[test]
fn a_large_commit_folded_with_the_writers_created_flags_equals_a_rebuild() {
    let source = fresh_store();
    let n = 80;
    let ids: Vec<Id> = (0..n).map(|_| Id::random()).collect();
    let person = |id: Id, name: &str, path: String| {
        put(
            id,
            ItemType::Person,
            Some(path),
            json!({ "name": { "he": name } }),
        )
    };
    catalog_testkit::append(
        &source.log,
        ids.iter()
            .enumerate()
            .map(|(i, &id)| person(id, "אברהם", format!("/p/{i}")))
            .collect(),
    );
    let mut changes = Vec::new();
    for (i, &id) in ids.iter().enumerate() {
        changes.push(if i % 2 == 0 {
            person(id, "יצחק", format!("/q/{i}"))
        } else {
            catalog_testkit::delete(id, ItemType::Person)
        });
        changes.push(person(Id::random(), "יעקב", format!("/r/{i}")));
    }
    let second = catalog_testkit::append(&source.log, changes);
    let created = source.log.created_by(second.seq).expect("the writer told");
    assert_eq!(created.iter().filter(|&&c| c).count(), n);
    assert!(dump(&one_by_one(&source.log).store) == dump(&rebuilt(&source.log, 2).store));
}

/// The groups share one decoding of the log, handed over in runs of at most 512 commits, and
/// each reuses its overlays once written: a log of several runs, folded through overlays of a
/// few KiB, must still give one thread's bytes.
#[test]
fn a_rebuild_over_several_decoded_runs_and_reused_overlays_equals_one_thread() {
    let source = fresh_store();
    let ids: Vec<Id> = (0..SLOTS).map(|_| Id::random()).collect();
    let steps: Vec<Step> = (0..1_300)
        .map(|i| match i % 13 {
            12 => Step::Delete { slot: i % SLOTS },
            _ => Step::Put {
                slot: i % SLOTS,
                v: (i / SLOTS % 6) as u8,
            },
        })
        .collect();
    write_log(&source.log, &ids, &steps, 1);
    assert!(
        source.log.head().0 > 2 * 512,
        "three runs of commits at least"
    );
    let expected = dump(&one_by_one(&source.log).store);
    for threads in [1, 2, 5] {
        let rebuilt = rebuilt_small(&source.log, threads, 4 << 10);
        assert!(
            expected == dump(&rebuilt.store),
            "read models differ after a rebuild on {threads} threads"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn a_rebuild_on_several_threads_equals_folding_one_commit_at_a_time(
        steps in prop::collection::vec(step(), 100..400),
        per_commit in 1usize..4,
        threads in 1usize..6,
    ) {
        let source = fresh_store();
        let ids: Vec<Id> = (0..SLOTS).map(|_| Id::random()).collect();
        write_log(&source.log, &ids, &steps, per_commit);
        let expected = one_by_one(&source.log);
        let rebuilt = rebuilt(&source.log, threads);
        prop_assert!(dump(&expected.store) == dump(&rebuilt.store), "read models differ");
        // And with overlays small enough to be written and reused every few commits.
        let rebuilt = rebuilt_small(&source.log, threads, 2 << 10);
        prop_assert!(dump(&expected.store) == dump(&rebuilt.store), "read models differ (small overlays)");
    }
}

/// What a crash mid-rebuild may leave: the mark, and any part of the unlogged writes.
fn cut_short(store: &Store, log: &Log) {
    let db = store.db();
    let meta = cf(db, META_CF).unwrap();
    db.put_cf(meta, IN_PROGRESS_KEY, log.head().0.to_be_bytes())
        .unwrap();
    // A few commits' worth of read models, checkpoints claiming more.
    let mut folder = Folder::open_with(store, log, crate::projections::all().to_vec()).unwrap();
    let mut n = 0;
    for commit in log.iter_from(Seq(0)) {
        folder.apply_commit(&commit.unwrap()).unwrap();
        n += 1;
        if n == 10 {
            break;
        }
    }
    for p in crate::projections::all() {
        db.put_cf(
            meta,
            crate::fold::checkpoint_key(p.name()),
            log.head().0.to_be_bytes(),
        )
        .unwrap();
    }
}

#[test]
fn a_rebuild_cut_short_is_redone_when_a_folder_next_opens() {
    let source = fresh_store();
    every_type_log(&source.log);
    let expected = one_by_one(&source.log);

    let crashed = fresh_store();
    cut_short(&crashed.store, &source.log);
    let mut folder = Folder::open(&crashed.store, &source.log).unwrap();
    assert_eq!(
        folder.applied(),
        Seq(0),
        "the checkpoints of a cut-short rebuild are not trusted"
    );
    let db = crashed.store.db();
    assert!(
        db.get_cf(cf(db, META_CF).unwrap(), IN_PROGRESS_KEY)
            .unwrap()
            .is_none()
    );
    folder.catch_up(source.log.head(), |_| {}).unwrap();
    assert!(
        dump(&expected.store) == dump(&crashed.store),
        "read models differ"
    );

    // A finished rebuild leaves no mark, so opening after it folds nothing again.
    let done = rebuilt(&source.log, 3);
    let folder = Folder::open(&done.store, &source.log).unwrap();
    assert_eq!(folder.applied(), source.log.head());
}

//! Approval as a three-way merge, resolutions, revert and restore, on a real store.

use std::collections::BTreeMap;
use std::time::Instant;

use catalog_log_core::{Expect, NewChange, NewCommit, Rev};
use catalog_schemas::{Id, ItemType};
use serde_json::{Value, json};

use super::{World, change, merge, new_item, topic};
use crate::{Act, Error, Missing, Refusal, Resolution, Resolutions, Side, Status, SuggestionId};

fn data(w: &World, id: Id) -> Option<Value> {
    w.h.log.item_head(id).unwrap().and_then(|r| r.data)
}

fn head_rev(w: &World, id: Id) -> Rev {
    w.h.log.item_head(id).unwrap().unwrap().rev
}

/// An open suggestion by the editor changing one item to `data`.
fn propose(w: &World, id: Id, data: Option<Value>) -> SuggestionId {
    let s = w.h.wf.create_draft(&w.editor, "a change", None).unwrap().id;
    w.h.wf.put_item(&w.editor, s, change(id, data)).unwrap();
    w.h.wf.submit(&w.editor, s).unwrap();
    s
}

fn with(mut v: Value, key: &str, value: Value) -> Value {
    v[key] = value;
    v
}

fn take(pairs: &[(Id, &str, Side)]) -> Resolutions {
    let mut out: BTreeMap<Id, BTreeMap<String, Resolution>> = BTreeMap::new();
    for (id, pointer, side) in pairs {
        out.entry(*id)
            .or_default()
            .insert(pointer.to_string(), Resolution { take: *side });
    }
    Resolutions(out)
}

fn fields(e: Result<crate::Suggestion, Error>) -> Vec<String> {
    match e {
        Err(Error::Conflict(c)) => c.into_iter().map(|c| c.field).collect(),
        other => panic!("expected a conflict, got {other:?}"),
    }
}

#[test]
fn changes_to_different_fields_of_one_item_merge() {
    let w = World::new();
    let wf = &w.h.wf;
    let joy = topic(w.set, "joy");
    let id = w.merged_topic("joy");
    let s = propose(
        &w,
        id,
        Some(with(joy.clone(), "note", json!("from the suggestion"))),
    );
    w.merge(vec![change(
        id,
        Some(with(joy.clone(), "slug", json!("gladness"))),
    )]);
    let main_rev = head_rev(&w, id);
    let merged = wf.approve(&w.keeper, s, &Resolutions::none()).unwrap();
    assert_eq!(merged.status, Status::Merged);
    let mut want = with(joy, "slug", json!("gladness"));
    want["note"] = json!("from the suggestion");
    assert_eq!(data(&w, id), Some(want));
    // The commit was written against the head it merged with.
    let commit =
        w.h.log
            .commit(merged.merged_commit.unwrap())
            .unwrap()
            .unwrap();
    assert_eq!(commit.changes[0].rev, main_rev.next());
}

#[test]
fn resolutions_settle_clashes_and_must_name_real_ones() {
    let w = World::new();
    let wf = &w.h.wf;
    let joy = topic(w.set, "joy");
    let id = w.merged_topic("joy");
    let s = propose(
        &w,
        id,
        Some(with(
            with(joy.clone(), "slug", json!("ours")),
            "note",
            json!("ours"),
        )),
    );
    let theirs = with(
        with(joy.clone(), "slug", json!("theirs")),
        "note",
        json!("theirs"),
    );
    w.merge(vec![change(id, Some(theirs.clone()))]);
    let head = w.h.log.head();

    assert_eq!(
        fields(wf.approve(&w.keeper, s, &Resolutions::none())),
        ["/note", "/slug"]
    );
    // Settling one leaves the other.
    assert_eq!(
        fields(wf.approve(&w.keeper, s, &take(&[(id, "/slug", Side::Suggestion)]))),
        ["/note"]
    );
    // A resolution for a clash that does not exist is refused, even beside real ones.
    let bogus = take(&[
        (id, "/slug", Side::Suggestion),
        (id, "/note", Side::Main),
        (id, "/name", Side::Main),
    ]);
    assert!(
        matches!(wf.approve(&w.keeper, s, &bogus), Err(e @ Error::Refused(Refusal::UnknownClashes(_))) if e.to_string().contains("/name"))
    );
    let elsewhere = take(&[(Id::random(), "/slug", Side::Main)]);
    assert!(matches!(
        wf.approve(&w.keeper, s, &elsewhere),
        Err(Error::Refused(Refusal::UnknownClashes(_)))
    ));
    assert_eq!(w.h.log.head(), head, "nothing written while clashes stand");
    assert_eq!(data(&w, id), Some(theirs));

    let settled = take(&[(id, "/slug", Side::Suggestion), (id, "/note", Side::Main)]);
    assert_eq!(
        wf.approve(&w.keeper, s, &settled).unwrap().status,
        Status::Merged
    );
    assert_eq!(
        data(&w, id),
        Some(with(
            with(joy, "slug", json!("ours")),
            "note",
            json!("theirs")
        ))
    );
}

#[test]
fn an_edit_against_a_delete_clashes_on_the_whole_item() {
    let w = World::new();
    let wf = &w.h.wf;
    let joy = topic(w.set, "joy");
    let id = w.merged_topic("joy");
    let edited = with(joy.clone(), "note", json!("kept alive"));
    let s = propose(&w, id, Some(edited.clone()));
    w.merge(vec![change(id, None)]);
    match wf.approve(&w.keeper, s, &Resolutions::none()) {
        Err(Error::Conflict(c)) => {
            assert_eq!(c.len(), 1);
            assert_eq!(c[0].field, "");
            assert_eq!((c[0].base.as_ref(), c[0].main.as_ref()), (Some(&joy), None));
        }
        other => panic!("{other:?}"),
    }
    // Keeping main's deletion leaves nothing to merge.
    assert!(matches!(
        wf.approve(&w.keeper, s, &take(&[(id, "", Side::Main)])),
        Err(Error::Refused(Refusal::NothingToMerge))
    ));
    // Taking the suggestion brings the item back.
    wf.approve(&w.keeper, s, &take(&[(id, "", Side::Suggestion)]))
        .unwrap();
    assert_eq!(data(&w, id), Some(edited));
}

#[test]
fn an_approval_that_loses_the_race_for_an_item_merges_again() {
    let w = World::new();
    let wf = &w.h.wf;
    let joy = topic(w.set, "joy");
    let id = w.merged_topic("joy");
    let s = propose(&w, id, Some(with(joy.clone(), "note", json!("ours"))));
    // Between computing its merge and appending it, someone commits to the same item.
    let (other_wf, editor, keeper, racer) = (
        wf.clone(),
        w.editor.clone(),
        w.keeper.clone(),
        with(joy.clone(), "slug", json!("raced")),
    );
    *w.h.wf.inner.before_append.lock().unwrap() = Some(Box::new(move || {
        merge(&other_wf, &editor, &keeper, vec![change(id, Some(racer))]);
    }));
    let head = w.h.log.head();
    let merged = wf.approve(&w.keeper, s, &Resolutions::none()).unwrap();
    assert_eq!(
        merged.merged_commit,
        Some(head.next().next()),
        "the racer landed first"
    );
    let mut want = with(joy, "slug", json!("raced"));
    want["note"] = json!("ours");
    assert_eq!(
        data(&w, id),
        Some(want),
        "merged again with the racer's change"
    );
}

#[test]
fn approving_again_records_a_commit_that_landed_without_its_answer() {
    let w = World::new();
    let wf = &w.h.wf;
    let joy = topic(w.set, "joy");
    let id = w.merged_topic("joy");
    let noted = with(joy, "note", json!("landed"));
    let s = propose(&w, id, Some(noted.clone()));
    // The commit is appended, then the disk fills before the merge is recorded.
    let landed =
        w.h.log
            .append(NewCommit {
                message: "a change".into(),
                merged_by: "keeper".into(),
                author: "editor".into(),
                suggestion: Some(s.0),
                changes: vec![NewChange {
                    id,
                    ty: ItemType::Topic,
                    path: w.h.log.item_head(id).unwrap().unwrap().path,
                    data: Some(noted.clone()),
                    merged_into: None,
                    expect: Expect::Any,
                }],
            })
            .unwrap();
    let merged = wf.approve(&w.keeper, s, &Resolutions::none()).unwrap();
    assert_eq!(merged.status, Status::Merged);
    assert_eq!(merged.merged_commit, Some(landed.seq));
    assert_eq!(w.h.log.head(), landed.seq, "merged a second time");
    assert_eq!(data(&w, id), Some(noted));
}

#[test]
fn a_large_suggestion_merging_holds_up_no_other_suggestion() {
    let w = World::new();
    let wf = &w.h.wf;
    let big = wf.create_draft(&w.editor, "an import", None).unwrap().id;
    for n in 0..2000 {
        let mut t = topic(w.set, &format!("imported-{n}"));
        t["name"]["he"] = json!(format!("נושא {n}"));
        wf.put_item(&w.editor, big, new_item(ItemType::Topic, t))
            .unwrap();
    }
    wf.submit(&w.editor, big).unwrap();
    let small = w.open_topic("meanwhile").0;

    // While the import sits between its merge and its append, another suggestion merges.
    let (other_wf, keeper) = (wf.clone(), w.keeper.clone());
    let (tx, rx) = std::sync::mpsc::channel();
    *w.h.wf.inner.before_append.lock().unwrap() = Some(Box::new(move || {
        let started = Instant::now();
        let merged = other_wf.approve(&keeper, small, &Resolutions::none());
        tx.send((merged.map(|s| s.merged_commit), started.elapsed()))
            .unwrap();
    }));
    let started = Instant::now();
    let merged = wf.approve(&w.keeper, big, &Resolutions::none()).unwrap();
    let whole = started.elapsed();
    let (small_commit, small_took) = rx.recv().unwrap();
    let small_commit = small_commit.unwrap().unwrap();
    let big_commit = merged.merged_commit.unwrap();
    assert!(small_commit < big_commit, "{small_commit} {big_commit}");
    assert_eq!(
        w.h.log.commit(big_commit).unwrap().unwrap().changes.len(),
        2000
    );
    assert!(small_took < whole, "{small_took:?} of {whole:?}");
}

#[test]
fn a_revert_keeps_later_changes_to_other_fields() {
    let w = World::new();
    let wf = &w.h.wf;
    let joy = topic(w.set, "joy");
    let id = w.merged_topic("joy");
    let noted = with(joy.clone(), "note", json!("to be undone"));
    let s = propose(&w, id, Some(noted.clone()));
    wf.approve(&w.keeper, s, &Resolutions::none()).unwrap();
    let later = with(noted, "slug", json!("gladness"));
    w.merge(vec![change(id, Some(later))]);

    // An editor's revert stays open for review.
    let open = wf.revert(&w.editor, s).unwrap();
    assert_eq!(open.suggestion.status, Status::Open);
    assert_eq!(open.suggestion.reverts, Some(s));
    assert_eq!(open.suggestion.kind, crate::Kind::Revert);
    wf.approve(&w.keeper, open.suggestion.id, &Resolutions::none())
        .unwrap();
    assert_eq!(data(&w, id), Some(with(joy, "slug", json!("gladness"))));
    assert_eq!(wf.suggestion(s).unwrap().unwrap().status, Status::Merged);
    let reverts = wf.reverts_of(s).unwrap();
    assert_eq!(reverts.len(), 1);
    assert_eq!(reverts[0].id, open.suggestion.id);
    // Once undone, undoing again has nothing to do.
    // (The other field changed since, so the item is not back as it was: merging finds nothing.)
    assert!(matches!(
        wf.revert(&w.steward, s),
        Err(Error::Refused(Refusal::NothingToMerge))
    ));
}

#[test]
fn a_stewards_revert_of_a_creation_merges_at_once_and_frees_the_path() {
    let w = World::new();
    let wf = &w.h.wf;
    let s = w.open_topic("fleeting").0;
    wf.approve(&w.keeper, s, &Resolutions::none()).unwrap();
    let id = wf.get(s).unwrap().items[0].id;
    let done = wf.revert(&w.steward, s).unwrap();
    assert_eq!(done.suggestion.status, Status::Merged);
    assert!(done.conflicts.is_empty());
    assert_eq!(data(&w, id), None);
    // The path is free for a new item.
    let again = w.open_topic("fleeting").0;
    let view = wf.get(again).unwrap();
    assert_eq!(view.items[0].path.as_deref(), Some("/topics/fleeting"));
    wf.approve(&w.keeper, again, &Resolutions::none()).unwrap();
}

#[test]
fn only_merged_suggestions_are_reverted_and_clashing_reverts_stay_open() {
    let w = World::new();
    let wf = &w.h.wf;
    let open = w.open_topic("waiting").0;
    assert!(matches!(
        wf.revert(&w.steward, open),
        Err(Error::WrongStatus {
            status: Status::Open,
            act: Act::Revert,
            ..
        })
    ));
    assert!(matches!(
        wf.revert(&w.steward, SuggestionId(9999)),
        Err(Error::Missing(Missing::Suggestion(SuggestionId(9999))))
    ));

    let joy = topic(w.set, "joy");
    let id = w.merged_topic("joy");
    let s = propose(&w, id, Some(with(joy.clone(), "note", json!("first"))));
    wf.approve(&w.keeper, s, &Resolutions::none()).unwrap();
    // The same field changed again since: undoing the first change clashes with it.
    w.merge(vec![change(id, Some(with(joy, "note", json!("second"))))]);
    let r = wf.revert(&w.steward, s).unwrap();
    assert_eq!(r.suggestion.status, Status::Open);
    let clashes: Vec<&str> = r.conflicts.iter().map(|c| c.field.as_str()).collect();
    assert_eq!(clashes, ["/note"]);
}

#[test]
fn restore_opens_a_suggestion_back_to_an_earlier_version() {
    let w = World::new();
    let wf = &w.h.wf;
    let joy = topic(w.set, "joy");
    let id = w.merged_topic("joy");
    let first = head_rev(&w, id);
    w.merge(vec![change(id, None)]);
    let other = w.merged_topic("other");

    assert!(matches!(
        wf.restore(&w.editor, id, Rev(99_999)),
        Err(Error::Missing(Missing::Revision(Rev(99_999))))
    ));
    assert!(matches!(
        wf.restore(&w.editor, other, first),
        Err(e @ Error::Refused(Refusal::RevisionOfAnother { .. })) if e.to_string().contains("not of")
    ));
    assert!(matches!(
        wf.restore(&w.editor, other, head_rev(&w, other)),
        Err(e @ Error::Refused(Refusal::NothingToRestore { .. })) if e.to_string().contains("already")
    ));

    // The item is deleted; restoring its first version brings it back once approved.
    let s = wf.restore(&w.editor, id, first).unwrap();
    assert_eq!(s.status, Status::Open);
    assert_eq!(s.kind, crate::Kind::Restore);
    assert_eq!(data(&w, id), None, "nothing changes before approval");
    wf.approve(&w.keeper, s.id, &Resolutions::none()).unwrap();
    assert_eq!(data(&w, id), Some(joy));
}

//! Plans as a whole: blame for a clash, preview saving nothing, one open suggestion, apply.

use serde_json::json;

use super::{Shelf, ids, plan, s};
use crate::{ChangeKind, Error, Kind, Refusal, Status};

#[test]
fn a_path_claimed_twice_is_blamed_on_the_operation_that_claims_it() {
    let t = Shelf::new();
    let (index, field, message) = t.refused(vec![
        json!({ "op": "rename", "item": s(t.b), "name": { "he": "ב" } }),
        json!({ "op": "rename", "item": s(t.other_work), "slug": "sefer" }),
    ]);
    assert_eq!((index, field), (1, "slug"), "{message}");
    assert!(message.contains("/sefer"), "{message}");
}

#[test]
fn preview_saves_nothing_and_organize_makes_one_open_suggestion() {
    let t = Shelf::new();
    let head = t.h.log.head();
    let ops = vec![json!({ "op": "move", "items": [s(t.work)], "to": s(t.b) })];
    let preview = t
        .wf()
        .preview_organize(&t.keeper, &plan(ops.clone(), false))
        .unwrap();
    assert_eq!(preview.items.len(), 1);
    assert_eq!(preview.items[0].change, ChangeKind::Update);
    assert_eq!(t.h.log.head(), head);
    assert_eq!(t.wf().suggestion(crate::SuggestionId(8)).unwrap(), None);

    // A keeper asking to apply gets an open suggestion, not a refusal.
    let done = t.wf().organize(&t.keeper, &plan(ops, true)).unwrap();
    assert!(!done.merged && !done.may_approve);
    assert_eq!(done.suggestion.status, Status::Open);
    assert_eq!(done.suggestion.kind, Kind::Organize);
    assert_eq!(done.suggestion.title, "Tidy the shelf");
    assert_eq!(done.suggestion.checks.len(), 5);
    assert_eq!(t.h.log.head(), head);
    // The steward approves it: one commit.
    t.wf()
        .approve(&t.steward, done.suggestion.id, &crate::Resolutions::none())
        .unwrap();
    assert_eq!(t.h.log.head().0, head.0 + 1);
    assert_eq!(ids(&t.data(t.work)["sets"]), vec![t.a, t.b]);
}

#[test]
fn a_plan_that_changes_nothing_is_refused() {
    let t = Shelf::new();
    let ops = vec![json!({ "op": "move", "items": [s(t.work)], "to": s(t.a) })];
    assert!(
        t.wf()
            .preview_organize(&t.steward, &plan(ops.clone(), false))
            .unwrap()
            .items
            .is_empty()
    );
    assert!(matches!(
        t.wf().organize(&t.steward, &plan(ops, true)),
        Err(Error::Refused(Refusal::PlanChangesNothing))
    ));
}

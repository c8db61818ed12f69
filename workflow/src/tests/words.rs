//! Words changes, live line fixes and their post-review, contents maps, and what the checks
//! name, on a real store.

use catalog_schemas::{DateKey, Id, ItemType, Name};
use serde_json::{Value, json};

use crate::tests::Harness;
use crate::tests::{merge, new_item};
use crate::{
    CheckName, CheckStatus, ContentsMapRequest, Error, Kind, NewUnit, NotAllowed, PageRange,
    PostReview, Principal, QuickFix, Refusal, Status, WordsChange, WordsOp,
};

struct Open {
    h: Harness,
    steward: Principal,
    keeper: Principal,
    trusted: Principal,
    editor: Principal,
    open_set: Id,
    reviewed_set: Id,
}

impl Open {
    fn new() -> Open {
        let h = Harness::new();
        let steward = h.writer("steward", true);
        let keeper = h.writer("keeper", false);
        let editor = h.writer("editor", false);
        let trusted = h.trusted_writer("trusty");
        let sets = merge(
            &h.wf,
            &steward,
            &steward,
            vec![
                new_item(
                    ItemType::Set,
                    json!({ "name": { "he": "פתוח" }, "slug": "open", "keepers": ["keeper"], "policy": "open" }),
                ),
                new_item(
                    ItemType::Set,
                    json!({ "name": { "he": "סגור" }, "slug": "shut", "keepers": ["keeper"] }),
                ),
            ],
        );
        Open {
            h,
            steward,
            keeper,
            trusted,
            editor,
            open_set: sets[0],
            reviewed_set: sets[1],
        }
    }

    fn text_in(&self, set: Id) -> Id {
        merge(
            &self.h.wf,
            &self.steward,
            &self.steward,
            vec![new_item(
                ItemType::Text,
                json!({ "kind": "original", "language": "he", "sets": [set],
                    "body": { "profile": "plain", "versions": [{ "id": "he", "language": "he",
                        "segments": [{ "id": "p1", "kind": "paragraph", "text": [{ "text": "שורה" }] }] }] } }),
            )],
        )[0]
    }

    fn edit(&self, who: &Principal, item: Id, words: &str) -> crate::Result<crate::Suggestion> {
        self.h.wf.words_change(
            who,
            WordsChange {
                entity_id: item,
                change: WordsOp::Edit,
                version: "he".into(),
                segment: Some("p1".into()),
                text: Some(json!([{ "text": words }])),
                before: None,
                kind: None,
                language: None,
                title: None,
                note: Some("checked against the print".into()),
            },
        )
    }

    fn words_of(&self, item: Id) -> Value {
        match self.h.read_models.item(item).unwrap() {
            catalog_projector::Lookup::Found(stored) => {
                let v: Value = serde_json::from_slice(&stored.json[..]).unwrap();
                v["data"]["body"]["versions"][0]["segments"][0]["text"].clone()
            }
            _ => Value::Null,
        }
    }
}

#[test]
fn a_trusted_line_fix_in_an_open_set_is_live_at_once_and_waits_for_its_look() {
    let o = Open::new();
    let text = o.text_in(o.open_set);
    let s = o.edit(&o.trusted, text, "שורה מתוקנת").unwrap();
    assert_eq!(s.kind, Kind::Words);
    assert_eq!(s.status, Status::Merged);
    assert_eq!(s.post_review, Some(PostReview::Pending));
    assert_eq!(o.words_of(text), json!([{ "text": "שורה מתוקנת" }]));
    assert_eq!(s.description.as_deref(), Some("checked against the print"));

    // Its author cannot mark their own fix looked over; a plain editor is no keeper.
    let wf = &o.h.wf;
    assert!(matches!(
        wf.post_review(&o.trusted, s.id),
        Err(Error::NotAllowed(NotAllowed::LookOverOwn { .. }))
    ));
    assert!(matches!(
        wf.post_review(&o.editor, s.id),
        Err(Error::NotAllowed(NotAllowed::NotKeeper { .. }))
    ));
    let done = wf.post_review(&o.keeper, s.id).unwrap();
    assert_eq!(done.post_review, Some(PostReview::Done));
    assert!(matches!(
        wf.post_review(&o.keeper, s.id),
        Err(Error::Refused(Refusal::NotAwaitingLook {
            post_review: Some(PostReview::Done),
            ..
        }))
    ));
    assert!(matches!(
        wf.post_review(&o.steward, s.id),
        Err(Error::Refused(Refusal::NotAwaitingLook { .. }))
    ));
}

#[test]
fn other_people_sets_and_changes_are_reviewed_first() {
    let o = Open::new();
    let open_text = o.text_in(o.open_set);
    let shut_text = o.text_in(o.reviewed_set);
    // Not trusted.
    let s = o.edit(&o.editor, open_text, "א").unwrap();
    assert_eq!((s.status, s.post_review), (Status::Open, None));
    // A reviewed set.
    let s = o.edit(&o.trusted, shut_text, "ב").unwrap();
    assert_eq!((s.status, s.post_review), (Status::Open, None));
    // Adding a segment is no line fix.
    let s =
        o.h.wf
            .words_change(
                &o.trusted,
                WordsChange {
                    entity_id: open_text,
                    change: WordsOp::Add,
                    version: "he".into(),
                    segment: Some("p1".into()),
                    text: Some(json!([{ "text": "עוד" }])),
                    before: None,
                    kind: None,
                    language: None,
                    title: Some("one more line".into()),
                    note: None,
                },
            )
            .unwrap();
    assert_eq!((s.status, s.post_review), (Status::Open, None));
    assert_eq!(s.title, "one more line");
    // An open suggestion waits for no post-review.
    assert!(matches!(
        o.h.wf.post_review(&o.keeper, s.id),
        Err(Error::Refused(Refusal::NotAwaitingLook {
            status: Status::Open,
            post_review: None,
            ..
        }))
    ));
    // The trusted author may not approve these themselves.
    assert!(matches!(
        o.h.wf
            .approve(&o.trusted, s.id, &crate::Resolutions::none()),
        Err(Error::NotAllowed(NotAllowed::ApproveOwn { .. }))
    ));
}

#[test]
fn a_quick_fix_of_line_words_alone_is_a_line_fix() {
    let o = Open::new();
    let wf = &o.h.wf;
    let one = |ty, data| merge(wf, &o.steward, &o.steward, vec![new_item(ty, data)])[0];
    let publication = one(
        ItemType::Publication,
        json!({ "kind": "volume", "title": { "he": "כרך" } }),
    );
    let scan = one(
        ItemType::Scan,
        json!({ "publication": publication, "file": "a".repeat(64) }),
    );
    let layer = one(
        ItemType::TextLayer,
        json!({ "scan": scan, "kind": "community" }),
    );
    let page = one(
        ItemType::TextPage,
        json!({ "layer": layer, "page": 1, "sets": [o.open_set],
            "lines": [{ "id": "l1", "text": "אחת" }, { "id": "l2", "text": "שתים" }] }),
    );
    let data = |l2: &str, extra: Option<(&str, Value)>| {
        let mut d = json!({ "layer": layer, "page": 1, "sets": [o.open_set],
            "lines": [{ "id": "l1", "text": "אחת" }, { "id": "l2", "text": l2 }] });
        if let Some((k, v)) = extra {
            d[k] = v;
        }
        d
    };
    let fix = |data: Value| QuickFix {
        entity_id: page,
        data,
        title: "fix a line".into(),
        note: String::new(),
    };
    let live = wf.quick_fix(&o.trusted, fix(data("שתיים", None))).unwrap();
    assert_eq!(live.status, Status::Merged);
    assert_eq!(live.post_review, Some(PostReview::Pending));
    let reviewed = wf
        .quick_fix(
            &o.trusted,
            fix(data("שתיים!", Some(("proofread", json!(1))))),
        )
        .unwrap();
    assert_eq!(
        (reviewed.status, reviewed.post_review),
        (Status::Open, None)
    );
}

#[test]
fn a_live_fix_failing_its_checks_stays_open_for_review() {
    let o = Open::new();
    let wf = &o.h.wf;
    // A text in the open set that points at an item that does not exist: the references check
    // fails, so even a line fix cannot merge.
    let text = merge(
        wf,
        &o.steward,
        &o.steward,
        vec![new_item(
            ItemType::Text,
            json!({ "kind": "original", "language": "he", "sets": [o.open_set],
                "body": { "profile": "plain", "versions": [{ "id": "he", "language": "he",
                    "segments": [{ "id": "p1", "kind": "paragraph", "text": [{ "text": "שורה" }] }] }] } }),
        )],
    )[0];
    let s = wf
        .words_change(
            &o.trusted,
            WordsChange {
                entity_id: text,
                change: WordsOp::Edit,
                version: "he".into(),
                segment: Some("p1".into()),
                text: Some(json!([{ "text": "ראה", "href": "cat-zzzzzzzz" }])),
                before: None,
                kind: None,
                language: None,
                title: None,
                note: None,
            },
        )
        .unwrap();
    assert_eq!((s.status, s.post_review), (Status::Open, None));
    let refs = s
        .checks
        .iter()
        .find(|c| c.check == CheckName::References)
        .unwrap();
    assert_eq!(refs.status, CheckStatus::Fail);
    assert_eq!(refs.id, Some(text));
    assert_eq!(refs.field.as_deref(), Some("/body"));
    assert_eq!(o.words_of(text), json!([{ "text": "שורה" }]));
}

#[test]
fn a_contents_map_makes_a_new_unit_after_the_last_one() {
    let o = Open::new();
    let wf = &o.h.wf;
    let ids = merge(
        wf,
        &o.steward,
        &o.steward,
        vec![
            new_item(
                ItemType::Work,
                json!({ "title": { "he": "ספר" }, "slug": "sefer", "levels": ["volume", "sicha"], "sets": [o.reviewed_set] }),
            ),
            new_item(
                ItemType::Publication,
                json!({ "kind": "volume", "title": { "he": "כרך" }, "sets": [o.reviewed_set] }),
            ),
        ],
    );
    let (work, publication) = (ids[0], ids[1]);
    merge(
        wf,
        &o.steward,
        &o.steward,
        vec![new_item(
            ItemType::Unit,
            json!({ "work": work, "position": [1, 4], "order": "a0", "sets": [o.reviewed_set] }),
        )],
    );
    let s = wf
        .contents_map(
            &o.editor,
            ContentsMapRequest {
                publication,
                pages: PageRange {
                    from: 3,
                    to: 9,
                    scheme: None,
                },
                unit: None,
                new_unit: Some(NewUnit {
                    work,
                    label: Name::new("שיחה", None).unwrap(),
                    date: DateKey::parse("5784-06B-14").unwrap(),
                }),
                label: None,
            },
        )
        .unwrap();
    assert_eq!((s.status, s.kind), (Status::Open, Kind::ContentsMap));
    assert!(
        s.checks.iter().all(|c| c.status == CheckStatus::Pass),
        "{:?}",
        s.checks
    );
    let view = wf.get(s.id).unwrap();
    let unit = view.items.iter().find(|i| i.ty == ItemType::Unit).unwrap();
    let data = unit.data.as_ref().unwrap();
    assert_eq!(data["position"], json!([1, 5]));
    assert_eq!(data["sets"], json!([o.reviewed_set]));
    assert_eq!(unit.path.as_deref(), Some("/sefer/1/5"));
    let map = view
        .items
        .iter()
        .find(|i| i.ty == ItemType::ContentsMap)
        .unwrap();
    assert_eq!(map.data.as_ref().unwrap()["unit"], json!(unit.id));
    // The keeper of the publication's and the work's set may approve it.
    assert_eq!(
        wf.approve(&o.keeper, s.id, &crate::Resolutions::none())
            .unwrap()
            .status,
        Status::Merged
    );
}

#[test]
fn dates_and_paths_failing_refuse_approval_with_each_problem_named() {
    let o = Open::new();
    let wf = &o.h.wf;
    let id = wf
        .create_draft(&o.editor, "two clashing topics", None)
        .unwrap()
        .id;
    let a = wf
        .put_item(
            &o.editor,
            id,
            new_item(
                ItemType::Topic,
                json!({ "name": { "he": "א" }, "slug": "same", "sets": [o.reviewed_set] }),
            ),
        )
        .unwrap()
        .id;
    let b = wf
        .put_item(
            &o.editor,
            id,
            new_item(
                ItemType::Topic,
                json!({ "name": { "he": "ב" }, "slug": "same", "sets": [o.reviewed_set] }),
            ),
        )
        .unwrap()
        .id;
    let e = wf
        .put_item(
            &o.editor,
            id,
            new_item(
                ItemType::Event,
                json!({ "kind": "farbrengen", "title": { "he": "ג" }, "date": "5785-06A-01", "sets": [o.reviewed_set] }),
            ),
        )
        .unwrap()
        .id;
    let s = wf.submit(&o.editor, id).unwrap();
    let check = |name| s.checks.iter().find(|c| c.check == name).unwrap().clone();
    let dates = check(CheckName::Dates);
    assert_eq!(dates.status, CheckStatus::Fail);
    assert_eq!((dates.id, dates.field.as_deref()), (Some(e), Some("/date")));
    assert!(
        dates.message.contains("5785 is not a leap year"),
        "{}",
        dates.message
    );
    let paths = check(CheckName::Paths);
    assert_eq!(paths.status, CheckStatus::Fail);
    assert_eq!(paths.field.as_deref(), Some("/slug"));
    assert!(paths.id == Some(a) || paths.id == Some(b));
    assert_eq!(paths.problems.len(), 1);
    match wf.approve(&o.keeper, id, &crate::Resolutions::none()) {
        Err(Error::Invalid { checks, .. }) => {
            let failing: Vec<CheckName> = checks
                .iter()
                .filter(|c| c.status == CheckStatus::Fail)
                .map(|c| c.check)
                .collect();
            assert_eq!(failing, [CheckName::Dates, CheckName::Paths]);
        }
        other => panic!("approval must be refused as invalid: {other:?}"),
    }
}

use catalog_log_core::Seq;
use catalog_projector::Lookup;
use catalog_schemas::{Id, ItemType};
use serde_json::{Value, json};

use crate::tests::{Harness, World, change, new_item, topic};
use crate::{
    Act, CheckName, CheckStatus, Decision, Error, Handle, Missing, NotAllowed, PutItem, QuickFix,
    Refusal, Resolutions, Status, SuggestionId, UserClass, Workflow,
};

fn item_data(h: &Harness, id: Id) -> Option<Value> {
    match h.read_models.item(id).unwrap() {
        Lookup::Found(stored) => {
            let v: Value = serde_json::from_slice(&stored.json[..]).unwrap();
            Some(v["data"].clone())
        }
        _ => None,
    }
}

#[test]
fn draft_put_submit_approve_appends_one_commit_with_every_change() {
    let w = World::new();
    let wf = &w.h.wf;
    let head = w.h.log.head();
    let created = wf
        .create_draft(&w.editor, "two topics", Some("both are needed"))
        .unwrap();
    assert_eq!(created.number.0, 2, "numbers follow the set's suggestion");
    let a = wf
        .put_item(
            &w.editor,
            created.id,
            new_item(ItemType::Topic, topic(w.set, "joy")),
        )
        .unwrap();
    assert_eq!(a.path.as_deref(), Some("/topics/joy"));
    assert_eq!(a.rev, None);
    let b = wf
        .put_item(
            &w.editor,
            created.id,
            new_item(ItemType::Topic, topic(w.set, "awe")),
        )
        .unwrap();
    assert_ne!(a.id, b.id);
    assert_eq!(wf.get(created.id).unwrap().suggestion.status, Status::Draft);

    let open = wf.submit(&w.editor, created.id).unwrap();
    assert_eq!(open.status, Status::Open);
    assert!(open.submitted_at.is_some());
    assert!(
        open.checks.iter().all(|c| c.status == CheckStatus::Pass),
        "{:?}",
        open.checks
    );

    let merged = wf
        .approve(&w.keeper, created.id, &Resolutions::none())
        .unwrap();
    assert_eq!(merged.status, Status::Merged);
    assert_eq!(merged.merged_commit, Some(head.next()));
    assert!(merged.closed_at.is_some());
    assert_eq!(w.h.log.head(), head.next(), "exactly one commit");

    let commit = w.h.log.commit(head.next()).unwrap().unwrap();
    assert_eq!(commit.changes.len(), 2);
    assert_eq!(commit.suggestion, Some(created.id.0));
    assert_eq!(commit.author, "editor");
    assert_eq!(commit.merged_by, "keeper");
    assert_eq!(commit.message, "two topics\n\nboth are needed");
    // Read your writes: the read models show it as soon as approve answers.
    assert_eq!(item_data(&w.h, a.id).unwrap()["slug"], "joy");
    let resolved = w.h.read_models.resolve("/topics/awe").unwrap().unwrap();
    assert_eq!(resolved.id, b.id);

    let again = wf
        .approve(&w.keeper, created.id, &Resolutions::none())
        .unwrap_err();
    assert!(
        matches!(
            again,
            Error::WrongStatus {
                status: Status::Merged,
                act: Act::Approve,
                ..
            }
        ),
        "{again}"
    );
}

#[test]
fn changing_and_deleting_existing_items() {
    let w = World::new();
    let wf = &w.h.wf;
    let ids = w.merge(vec![
        new_item(ItemType::Topic, topic(w.set, "joy")),
        new_item(ItemType::Topic, topic(w.set, "awe")),
    ]);
    let rev = match w.h.read_models.item(ids[0]).unwrap() {
        Lookup::Found(s) => s.rev,
        other => panic!("{other:?}"),
    };
    let id = wf
        .create_draft(&w.editor, "edit and delete", None)
        .unwrap()
        .id;
    let view = wf
        .put_item(
            &w.editor,
            id,
            change(ids[0], Some(topic(w.set, "gladness"))),
        )
        .unwrap();
    assert_eq!(view.rev, Some(rev), "the base is the head at put time");
    assert_eq!(view.ty, ItemType::Topic);
    assert_eq!(view.path.as_deref(), Some("/topics/gladness"));
    let gone = wf.put_item(&w.editor, id, change(ids[1], None)).unwrap();
    assert_eq!(gone.data, None);
    wf.submit(&w.editor, id).unwrap();
    wf.approve(&w.keeper, id, &Resolutions::none()).unwrap();

    assert_eq!(item_data(&w.h, ids[0]).unwrap()["slug"], "gladness");
    assert!(matches!(
        w.h.read_models.item(ids[1]).unwrap(),
        Lookup::Deleted
    ));
    let old = w.h.read_models.resolve("/topics/joy").unwrap().unwrap();
    assert!(old.redirected && old.id == ids[0]);

    // A deleted or unknown item cannot be put again.
    let next = wf.create_draft(&w.editor, "again", None).unwrap().id;
    for missing in [ids[1], Id::random()] {
        let err = wf.put_item(&w.editor, next, change(missing, Some(topic(w.set, "x"))));
        assert!(
            matches!(
                err,
                Err(Error::Missing(Missing::ItemDeleted(_) | Missing::Item(_)))
            ),
            "{err:?}"
        );
    }
}

#[test]
fn bad_puts_are_refused() {
    let w = World::new();
    let wf = &w.h.wf;
    let id = wf.create_draft(&w.editor, "bad", None).unwrap().id;
    let not_object = wf.put_item(&w.editor, id, new_item(ItemType::Topic, json!([1])));
    assert!(matches!(
        not_object,
        Err(Error::Refused(Refusal::DataNotObject))
    ));
    let no_type = wf.put_item(
        &w.editor,
        id,
        PutItem {
            id: None,
            ty: None,
            data: Some(json!({})),
        },
    );
    assert!(matches!(
        no_type,
        Err(Error::Refused(Refusal::NewItemWithoutType))
    ));
    let wrong_type = wf.put_item(
        &w.editor,
        id,
        PutItem {
            id: Some(w.set),
            ty: Some(ItemType::Topic),
            data: Some(json!({})),
        },
    );
    assert!(matches!(
        wrong_type,
        Err(Error::WrongKind {
            is: ItemType::Set,
            wanted: ItemType::Topic,
            ..
        })
    ));
    let not_author = wf.put_item(&w.keeper, id, new_item(ItemType::Topic, topic(w.set, "a")));
    // Another person is told the draft does not exist.
    assert!(matches!(
        not_author,
        Err(Error::Missing(Missing::Suggestion(_)))
    ));
    let empty = wf.submit(&w.editor, id);
    assert!(matches!(
        empty,
        Err(Error::Refused(Refusal::NoItemsToSubmit(_)))
    ));

    let (open, _) = w.open_topic("joy");
    let late = wf.put_item(
        &w.editor,
        open,
        new_item(ItemType::Topic, topic(w.set, "b")),
    );
    assert!(
        matches!(
            late,
            Err(Error::WrongStatus {
                act: Act::PutItems,
                ..
            })
        ),
        "{late:?}"
    );
    assert!(matches!(
        wf.submit(&w.editor, open),
        Err(Error::WrongStatus {
            status: Status::Open,
            act: Act::Submit,
            ..
        })
    ));
    assert!(matches!(
        wf.get(SuggestionId(999)),
        Err(Error::Missing(Missing::Suggestion(SuggestionId(999))))
    ));
}

#[test]
fn who_may_approve() {
    let w = World::new();
    let wf = &w.h.wf;
    let outsider = w.h.writer("outsider", false);

    let (s, _) = w.open_topic("joy");
    assert!(
        matches!(
            wf.approve(&outsider, s, &Resolutions::none()),
            Err(Error::NotAllowed(NotAllowed::NotKeeper { .. }))
        ),
        "not a keeper"
    );
    assert!(
        matches!(
            wf.approve(&w.editor, s, &Resolutions::none()),
            Err(Error::NotAllowed(NotAllowed::ApproveOwn { .. }))
        ),
        "own suggestion"
    );
    wf.approve(&w.keeper, s, &Resolutions::none()).unwrap();

    let (s, _) = w.open_topic("awe");
    wf.approve(&w.steward, s, &Resolutions::none()).unwrap();

    // A keeper may not approve their own suggestion; a steward may.
    let own = wf.create_draft(&w.keeper, "keeper's own", None).unwrap().id;
    wf.put_item(
        &w.keeper,
        own,
        new_item(ItemType::Topic, topic(w.set, "peace")),
    )
    .unwrap();
    wf.submit(&w.keeper, own).unwrap();
    assert!(matches!(
        wf.approve(&w.keeper, own, &Resolutions::none()),
        Err(Error::NotAllowed(NotAllowed::ApproveOwn { .. }))
    ));
    let steward_own = wf
        .create_draft(&w.steward, "steward's own", None)
        .unwrap()
        .id;
    wf.put_item(
        &w.steward,
        steward_own,
        new_item(ItemType::Topic, topic(w.set, "truth")),
    )
    .unwrap();
    wf.submit(&w.steward, steward_own).unwrap();
    wf.approve(&w.steward, steward_own, &Resolutions::none())
        .unwrap();

    // Changes to a set need a steward even when a keeper of it approves.
    let set_change = wf
        .create_draft(&w.editor, "rename the set", None)
        .unwrap()
        .id;
    wf.put_item(
        &w.editor,
        set_change,
        change(
            w.set,
            Some(json!({ "name": { "he": "אוסף חדש" }, "slug": "things", "keepers": ["keeper"] })),
        ),
    )
    .unwrap();
    wf.submit(&w.editor, set_change).unwrap();
    assert!(matches!(
        wf.approve(&w.keeper, set_change, &Resolutions::none()),
        Err(Error::NotAllowed(NotAllowed::StewardOnlyItem {
            ty: ItemType::Set,
            ..
        }))
    ));

    // An item in no set has no keepers.
    let loose = wf.create_draft(&w.editor, "loose", None).unwrap().id;
    wf.put_item(
        &w.editor,
        loose,
        new_item(
            ItemType::Topic,
            json!({ "name": { "he": "x" }, "slug": "loose" }),
        ),
    )
    .unwrap();
    wf.submit(&w.editor, loose).unwrap();
    assert!(matches!(
        wf.approve(&w.keeper, loose, &Resolutions::none()),
        Err(Error::NotAllowed(NotAllowed::NoSet {
            decision: Decision::Approve,
            ..
        }))
    ));

    // A read-only token cannot approve even for a steward.
    let (_, token) = wf
        .identity()
        .create_token(
            &Handle::parse("steward").unwrap(),
            "ro",
            crate::Scopes::READ,
            None,
        )
        .unwrap();
    let ro = wf.identity().authenticate_token(&token).unwrap();
    assert!(matches!(
        wf.approve(&ro, loose, &Resolutions::none()),
        Err(Error::Identity(catalog_identity::Error::Forbidden(_)))
    ));
    wf.approve(&w.steward, loose, &Resolutions::none()).unwrap();
}

#[test]
fn failing_schema_or_references_refuse_approval() {
    let w = World::new();
    let wf = &w.h.wf;
    let id = wf.create_draft(&w.editor, "broken", None).unwrap().id;
    wf.put_item(
        &w.editor,
        id,
        new_item(
            ItemType::Topic,
            json!({ "slug": "no-name", "sets": [w.set] }),
        ),
    )
    .unwrap();
    let open = wf.submit(&w.editor, id).unwrap();
    let schema = open
        .checks
        .iter()
        .find(|c| c.check == CheckName::Schema)
        .unwrap();
    assert_eq!(
        schema.status,
        CheckStatus::Fail,
        "submission goes through, the check fails"
    );
    let head = w.h.log.head();
    match wf.approve(&w.keeper, id, &Resolutions::none()) {
        Err(Error::Invalid { checks, message }) => {
            assert!(message.contains("schema"), "{message}");
            assert!(
                checks
                    .iter()
                    .any(|c| c.check == CheckName::Schema && c.status == CheckStatus::Fail)
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(w.h.log.head(), head, "nothing appended");

    let id = wf.create_draft(&w.editor, "dangling", None).unwrap().id;
    let mut data = topic(w.set, "dangling");
    data["topics"] = json!([Id::random().to_string()]);
    wf.put_item(&w.editor, id, new_item(ItemType::Topic, data))
        .unwrap();
    let open = wf.submit(&w.editor, id).unwrap();
    let refs = open
        .checks
        .iter()
        .find(|c| c.check == CheckName::References)
        .unwrap();
    assert_eq!(refs.status, CheckStatus::Fail, "{}", refs.message);
    assert!(matches!(
        wf.approve(&w.keeper, id, &Resolutions::none()),
        Err(Error::Invalid { .. })
    ));
}

#[test]
fn dates_and_paths_checks() {
    let w = World::new();
    let wf = &w.h.wf;
    let event = |date: &str| json!({ "kind": "farbrengen", "title": { "he": "התוועדות" }, "date": date, "sets": [w.set] });
    let id = wf.create_draft(&w.editor, "events", None).unwrap().id;
    wf.put_item(
        &w.editor,
        id,
        new_item(ItemType::Event, event("5785-06A-03")),
    )
    .unwrap();
    let open = wf.submit(&w.editor, id).unwrap();
    let dates = open
        .checks
        .iter()
        .find(|c| c.check == CheckName::Dates)
        .unwrap();
    assert_eq!(dates.status, CheckStatus::Fail);
    assert!(dates.message.contains("5785"), "{}", dates.message);

    // Two events on one day: the second gets /2.
    let ids = w.merge(vec![
        new_item(ItemType::Event, event("5784-06B-14")),
        new_item(ItemType::Event, event("5784-06B-14")),
    ]);
    let mut paths: Vec<String> = ids
        .iter()
        .map(|id| match w.h.read_models.item(*id).unwrap() {
            Lookup::Found(s) => s.path.unwrap(),
            other => panic!("{other:?}"),
        })
        .collect();
    paths.sort();
    assert_eq!(paths, ["/events/5784-06B-14", "/events/5784-06B-14/2"]);

    // A topic wanting a path another topic holds fails the paths check.
    w.merge(vec![new_item(ItemType::Topic, topic(w.set, "joy"))]);
    let (clash, _) = w.open_topic("joy");
    let view = wf.get(clash).unwrap();
    let paths = view
        .suggestion
        .checks
        .iter()
        .find(|c| c.check == CheckName::Paths)
        .unwrap();
    assert_eq!(paths.status, CheckStatus::Fail, "{}", paths.message);
    assert!(matches!(
        wf.approve(&w.keeper, clash, &Resolutions::none()),
        Err(Error::Invalid { .. })
    ));
}

#[test]
fn deleting_a_referenced_item_warns() {
    let w = World::new();
    let wf = &w.h.wf;
    let ids = w.merge(vec![new_item(ItemType::Topic, topic(w.set, "joy"))]);
    let mut data = topic(w.set, "awe");
    data["topics"] = json!([ids[0]]);
    w.merge(vec![new_item(ItemType::Topic, data)]);
    let id = wf.create_draft(&w.editor, "delete joy", None).unwrap().id;
    wf.put_item(&w.editor, id, change(ids[0], None)).unwrap();
    let open = wf.submit(&w.editor, id).unwrap();
    let refs = open
        .checks
        .iter()
        .find(|c| c.check == CheckName::References)
        .unwrap();
    assert_eq!(refs.status, CheckStatus::Warn, "{}", refs.message);
    wf.approve(&w.keeper, id, &Resolutions::none()).unwrap();
}

#[test]
fn an_item_changed_two_ways_after_put_conflicts_field_by_field() {
    let w = World::new();
    let wf = &w.h.wf;
    let ids = w.merge(vec![new_item(ItemType::Topic, topic(w.set, "joy"))]);
    let first = wf.create_draft(&w.editor, "first", None).unwrap().id;
    wf.put_item(
        &w.editor,
        first,
        change(ids[0], Some(topic(w.set, "gladness"))),
    )
    .unwrap();
    wf.submit(&w.editor, first).unwrap();
    // Meanwhile another change to the same fields is merged.
    w.merge(vec![change(ids[0], Some(topic(w.set, "delight")))]);
    let head = w.h.log.head();
    match wf.approve(&w.keeper, first, &Resolutions::none()) {
        Err(Error::Conflict(conflicts)) => {
            let fields: Vec<&str> = conflicts.iter().map(|c| c.field.as_str()).collect();
            assert_eq!(fields, ["/name", "/slug"]);
            let c = &conflicts[1];
            assert_eq!(c.id, ids[0]);
            assert_eq!(c.base, Some(json!("joy")));
            assert_eq!(c.main, Some(json!("delight")));
            assert_eq!(c.suggestion, Some(json!("gladness")));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(w.h.log.head(), head, "nothing appended");
    assert_eq!(wf.get(first).unwrap().suggestion.status, Status::Open);
}

#[test]
fn quick_fix_opens_a_checked_suggestion() {
    let w = World::new();
    let wf = &w.h.wf;
    let ids = w.merge(vec![new_item(ItemType::Topic, topic(w.set, "joy"))]);
    let s = wf
        .quick_fix(
            &w.editor,
            QuickFix {
                entity_id: ids[0],
                data: topic(w.set, "gladness"),
                title: "better slug".into(),
                note: "the usual word".into(),
            },
        )
        .unwrap();
    assert_eq!(s.status, Status::Open);
    assert_eq!(s.description.as_deref(), Some("the usual word"));
    assert_eq!(s.checks.len(), 5);
    let view = wf.get(s.id).unwrap();
    assert_eq!(view.items.len(), 1);
    assert_eq!(view.items[0].path.as_deref(), Some("/topics/gladness"));
    let missing = wf.quick_fix(
        &w.editor,
        QuickFix {
            entity_id: Id::random(),
            data: json!({}),
            title: "t".into(),
            note: String::new(),
        },
    );
    assert!(matches!(missing, Err(Error::Missing(Missing::Item(_)))));
}

#[test]
fn concurrent_approvals_append_once() {
    let w = World::new();
    let (s, _) = w.open_topic("joy");
    let head = w.h.log.head();
    let results: Vec<_> = std::thread::scope(|scope| {
        let handles: Vec<_> = [&w.keeper, &w.steward, &w.keeper, &w.steward]
            .into_iter()
            .map(|p| {
                let wf = w.h.wf.clone();
                scope.spawn(move || wf.approve(p, s, &Resolutions::none()))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1);
    assert!(
        results
            .iter()
            .filter_map(|r| r.as_ref().err())
            .all(|e| e.class() == Some(UserClass::State))
    );
    assert_eq!(w.h.log.head(), head.next());
}

#[test]
fn a_commit_landed_before_a_crash_marks_its_suggestion_merged_on_open() {
    let w = World::new();
    let (s, _) = w.open_topic("joy");
    // The commit is appended, but the process "dies" before marking the suggestion.
    let commit = w.h.commit_behind_workflow(s);
    assert_eq!(w.h.wf.get(s).unwrap().suggestion.status, Status::Open);
    let reopened = Workflow::open(&w.h.store, &w.h.log, &w.h.projector, &w.h.read_models).unwrap();
    let settled = reopened.get(s).unwrap().suggestion;
    assert_eq!(settled.status, Status::Merged);
    assert_eq!(settled.merged_commit, Some(commit.seq));
    assert!(settled.closed_at.is_some());
    assert!(matches!(
        reopened.approve(&w.keeper, s, &Resolutions::none()),
        Err(Error::WrongStatus {
            status: Status::Merged,
            ..
        })
    ));
    assert!(commit.seq > Seq(1));
}

#[test]
fn withdraw_and_send_back() {
    let w = World::new();
    let wf = &w.h.wf;
    let (s, _) = w.open_topic("joy");
    assert!(matches!(
        wf.send_back(&w.editor, s),
        Err(Error::NotAllowed(NotAllowed::ApproveOwn { .. }))
    ));
    assert_eq!(wf.send_back(&w.keeper, s).unwrap().status, Status::SentBack);
    wf.put_item(&w.editor, s, new_item(ItemType::Topic, topic(w.set, "awe")))
        .unwrap();
    assert_eq!(wf.submit(&w.editor, s).unwrap().status, Status::Open);
    assert!(matches!(
        wf.withdraw(&w.keeper, s),
        Err(Error::NotAllowed(NotAllowed::NotTheAuthor { .. }))
    ));
    let gone = wf.withdraw(&w.editor, s).unwrap();
    assert_eq!(gone.status, Status::Withdrawn);
    assert!(gone.closed_at.is_some());
    assert!(matches!(
        wf.approve(&w.keeper, s, &Resolutions::none()),
        Err(Error::WrongStatus {
            status: Status::Withdrawn,
            ..
        })
    ));
}

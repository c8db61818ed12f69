use std::collections::BTreeMap;

use catalog_log_core::Seq;
use catalog_projector::Lookup;
use catalog_schemas::ItemType;

use crate::tests::Harness;
use crate::{Error, Handle, Refusal, Status, SuggestionId, demo};

#[test]
fn demo_loads_through_suggestions_with_the_expected_counts() {
    let h = Harness::new();
    let report = demo::load(&h.wf).unwrap();
    assert_eq!(report.suggestions, 6);
    assert_eq!(report.head, Seq(6), "one commit per suggestion");
    assert_eq!(h.log.head(), Seq(6));
    assert_eq!(report.accounts.len(), 3);

    let counts: BTreeMap<ItemType, u64> = h.read_models.counts().unwrap();
    let expect = [
        (ItemType::Set, 1),
        (ItemType::Author, 2),
        (ItemType::Place, 1),
        (ItemType::Topic, 1),
        (ItemType::Event, 4),
        (ItemType::Work, 1),
        (ItemType::Unit, 5),
        (ItemType::Publication, 1),
        (ItemType::Scan, 1),
        (ItemType::TextLayer, 1),
        (ItemType::TextPage, 1),
        (ItemType::Recording, 1),
        (ItemType::Text, 1),
        (ItemType::Relation, 1),
    ];
    for (ty, n) in expect {
        assert_eq!(counts.get(&ty).copied().unwrap_or(0), n, "{ty}");
    }
    assert_eq!(report.items, 22);

    // Every suggestion is merged and carries passing blocking checks.
    for id in 1..=6 {
        let s = h.wf.get(SuggestionId(id)).unwrap().suggestion;
        assert_eq!(s.status, Status::Merged, "suggestion {id}");
        assert!(s.checks.iter().all(|c| !c.blocks_merge()), "{:?}", s.checks);
    }
    // The keeper approved the editor's suggestions.
    let third = h.log.commit(Seq(3)).unwrap().unwrap();
    assert_eq!(
        (third.author.as_str(), third.merged_by.as_str()),
        ("demo-editor", "demo-keeper")
    );

    // The corrected event has two revisions and its first path redirects.
    assert_eq!(h.log.versions(report.corrected_event).unwrap().len(), 2);
    let old = h
        .read_models
        .resolve(&report.old_event_path)
        .unwrap()
        .unwrap();
    assert!(old.redirected);
    assert_eq!(old.id, report.corrected_event);
    match h.read_models.item(report.corrected_event).unwrap() {
        Lookup::Found(s) => assert_eq!(s.path.as_deref(), Some("/events/5783-05-10")),
        other => panic!("{other:?}"),
    }
    assert!(
        h.read_models
            .resolve("/sample-talks/2/1")
            .unwrap()
            .is_some()
    );
    assert!(
        h.read_models
            .resolve("/events/5784-06B-14")
            .unwrap()
            .is_some()
    );
    assert!(
        h.wf.identity()
            .account_by_handle(&Handle::parse("demo-keeper").unwrap())
            .unwrap()
            .is_some()
    );

    // A second load is refused: the catalog is no longer empty.
    assert!(matches!(
        demo::load(&h.wf),
        Err(Error::Refused(Refusal::DemoNotEmpty(_)))
    ));
}

//! What `/v1/community` and `/v1/health` read of the workflow: open suggestions from either end,
//! public open issues only, the open counts, and the merges of the last seven days.

use catalog_schemas::ItemType;
use serde_json::json;

use crate::tests::Harness;
use crate::{Clock, NewIssue, Principal, PutItem, ReportKind, Resolutions, SuggestionId};

fn open(h: &Harness, author: &Principal, slug: &str) -> SuggestionId {
    let id = h.wf.create_draft(author, slug, None).unwrap().id;
    let put = PutItem {
        id: None,
        ty: Some(ItemType::Set),
        data: Some(json!({ "name": { "he": "אוסף" }, "slug": slug })),
    };
    h.wf.put_item(author, id, put).unwrap();
    h.wf.submit(author, id).unwrap();
    id
}

fn ids(list: Vec<crate::Suggestion>) -> Vec<u64> {
    list.into_iter().map(|s| s.id.0).collect()
}

#[test]
fn open_suggestions_read_from_either_end_and_counted() {
    let h = Harness::new();
    let steward = h.writer("steward", true);
    let editor = h.writer("editor", false);
    let a = open(&h, &editor, "a");
    let b = open(&h, &editor, "b");
    let merged = open(&h, &editor, "c");
    h.wf.approve(&steward, merged, &Resolutions::none())
        .unwrap();
    let back = open(&h, &editor, "d");
    h.wf.send_back(&steward, back).unwrap();
    let e = open(&h, &editor, "e");

    let oldest = ids(h.wf.oldest_open_suggestions(10).unwrap());
    assert_eq!(oldest, vec![a.0, b.0, back.0, e.0]);
    assert_eq!(
        ids(h.wf.oldest_open_suggestions(2).unwrap()),
        vec![a.0, b.0]
    );
    assert_eq!(
        ids(h.wf.newest_open_suggestions(2).unwrap()),
        vec![e.0, back.0]
    );
    assert_eq!(h.wf.open_counts().unwrap().suggestions, 4);
}

#[test]
fn private_issues_are_neither_waiting_nor_counted() {
    let h = Harness::new();
    let editor = h.writer("editor", false);
    let issue = |title: &str, kind| NewIssue {
        title: title.into(),
        body: None,
        kind: Some(kind),
        entity: None,
        labels: Vec::new(),
        private: None,
    };
    let public =
        h.wf.open_issue(&editor, issue("a wrong date", ReportKind::WrongFact))
            .unwrap();
    let private =
        h.wf.open_issue(&editor, issue("my scans", ReportKind::Rights))
            .unwrap();
    let waiting: Vec<u64> =
        h.wf.waiting_reports(10)
            .unwrap()
            .into_iter()
            .map(|i| i.number.0)
            .collect();
    assert_eq!(waiting, vec![public.issue.number.0]);
    assert!(!waiting.contains(&private.issue.number.0));
    assert_eq!(h.wf.open_counts().unwrap().issues, 1);
}

#[test]
fn merges_this_week_are_the_last_seven_days() {
    let h = Harness::new();
    let steward = h.writer("steward", true);
    let merge = |slug: &str| {
        let id = open(&h, &steward, slug);
        h.wf.approve(&steward, id, &Resolutions::none()).unwrap();
    };
    merge("a");
    // Commits are stamped by the log's own clock: set the workflow's to the commit's moment.
    let head = h.log.head();
    let at = h.log.commit(head).unwrap().unwrap().at;
    let at = crate::Timestamp::parse(&at).unwrap().unix_millis();
    h.clock.advance_millis(at - h.clock.now().unix_millis());
    assert_eq!(h.wf.merges_this_week().unwrap(), 1);
    h.clock.advance_days(6);
    assert_eq!(
        h.wf.merges_this_week().unwrap(),
        1,
        "six days later it still counts"
    );
    h.clock.advance_days(1);
    assert_eq!(
        h.wf.merges_this_week().unwrap(),
        0,
        "a week later it no longer does"
    );
}

//! Applying words changes to bodies, without a store.

use catalog_schemas::body::{Body, Run, SegmentId, SegmentKind};
use serde_json::{Value, json};

use super::apply::{NotApplied, Plan, WordsOp, apply};
use crate::error::{BadWords, Missing};

fn body() -> Body {
    Body::from_value(&json!({
        "profile": "plain",
        "versions": [
            { "id": "he", "language": "he", "segments": [
                { "id": "p1", "kind": "heading", "text": [{ "text": "פתיחה" }] },
                { "id": "p2", "kind": "paragraph", "text": [{ "text": "ביום הזה" }, { "note": "n1" }],
                  "children": [{ "id": "p2.1", "kind": "item", "text": [{ "text": "א" }] }] }
            ], "notes": [{ "id": "n1", "kind": "note", "text": [{ "text": "הערה" }] }] },
            { "id": "en", "language": "en", "segments": [
                { "id": "p1", "kind": "heading", "text": [{ "text": "Opening" }] }
            ] }
        ]
    }))
    .unwrap()
}

fn plan(op: WordsOp, segment: Option<&str>, text: Option<Value>) -> Plan {
    Plan {
        op,
        version: SegmentId::new("he").unwrap(),
        segment: segment.map(|s| SegmentId::new(s).unwrap()),
        text,
        before: None,
        kind: None,
        language: None,
    }
}

/// Fresh ids `x1`, `x2`, ... with `p1` offered first, to show a used id is never handed out.
fn ids() -> impl FnMut() -> SegmentId {
    let mut n = 0;
    move || {
        n += 1;
        let id = if n == 1 {
            "p1".to_string()
        } else {
            format!("x{n}")
        };
        SegmentId::new(&id).unwrap()
    }
}

fn texts(body: &Body, version: &str) -> Vec<String> {
    body.version(version)
        .unwrap()
        .segments
        .iter()
        .map(|s| {
            let words: String = s
                .text
                .iter()
                .filter_map(|r| match r {
                    Run::Text { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            format!("{}:{words}", s.id)
        })
        .collect()
}

#[test]
fn edit_replaces_the_words_and_keeps_the_id() {
    let p = plan(
        WordsOp::Edit,
        Some("p1"),
        Some(json!([{ "text": "פתח", "marks": ["b"] }])),
    );
    let out = apply(Some(body()), &p, &mut ids()).unwrap();
    assert_eq!(out.field, "/body/versions/he/segments/p1/text");
    assert_eq!(texts(&out.body, "he")[0], "p1:פתח");
    // The other version is untouched.
    assert_eq!(out.body.version("en"), body().version("en"));
}

#[test]
fn edit_reaches_nested_segments_and_can_change_the_kind() {
    let mut p = plan(WordsOp::Edit, Some("p2.1"), Some(json!([{ "text": "ב" }])));
    p.kind = Some(SegmentKind::Verse);
    let out = apply(Some(body()), &p, &mut ids()).unwrap();
    assert_eq!(
        out.field,
        "/body/versions/he/segments/p2/children/p2.1/text"
    );
    let child = &out.body.version("he").unwrap().segments[1].children[0];
    assert_eq!(child.kind, SegmentKind::Verse);
    assert_eq!(child.text, vec![Run::text("ב")]);
}

#[test]
fn an_edit_that_changes_nothing_is_refused() {
    let p = plan(
        WordsOp::Edit,
        Some("p1"),
        Some(json!([{ "text": "פתיחה" }])),
    );
    assert!(matches!(
        apply(Some(body()), &p, &mut ids()),
        Err(NotApplied::Bad(m)) if m.to_string().contains("change nothing")
    ));
}

#[test]
fn add_puts_a_fresh_id_right_after_the_segment() {
    let p = plan(WordsOp::Add, Some("p1"), Some(json!([{ "text": "חדש" }])));
    let out = apply(Some(body()), &p, &mut ids()).unwrap();
    // `p1` is taken, so the next id offered is used.
    assert_eq!(
        texts(&out.body, "he"),
        ["p1:פתיחה", "x2:חדש", "p2:ביום הזה"]
    );
    assert_eq!(out.field, "/body/versions/he/segments/x2/text");
    let nested = plan(WordsOp::Add, Some("p2.1"), Some(json!([{ "text": "ב" }])));
    let out = apply(Some(body()), &nested, &mut ids()).unwrap();
    assert_eq!(out.field, "/body/versions/he/segments/p2/children/x2/text");
    assert_eq!(
        out.body.version("he").unwrap().segments[1].children.len(),
        2
    );
}

#[test]
fn remove_takes_the_segment_and_its_children_out() {
    let p = plan(WordsOp::Remove, Some("p2"), None);
    let out = apply(Some(body()), &p, &mut ids()).unwrap();
    assert_eq!(texts(&out.body, "he"), ["p1:פתיחה"]);
    assert_eq!(out.text, None);
}

#[test]
fn start_makes_the_first_segment_the_version_and_the_body() {
    let mut p = plan(WordsOp::Start, None, Some(json!([{ "text": "ראשית" }])));
    let out = apply(Some(body()), &p, &mut ids()).unwrap();
    assert_eq!(texts(&out.body, "he")[0], "x2:ראשית");

    p.version = SegmentId::new("yi").unwrap();
    assert!(matches!(
        apply(Some(body()), &p, &mut ids()),
        Err(NotApplied::Bad(m)) if m.to_string().starts_with("language:")
    ));
    p.language = Some("yi".into());
    p.segment = Some(SegmentId::new("p1").unwrap());
    // The same place keeps the same id across versions only when the id is new to the words.
    assert!(matches!(
        apply(Some(body()), &p, &mut ids()),
        Err(NotApplied::Bad(m)) if m.to_string().contains("already used")
    ));
    p.segment = Some(SegmentId::new("y1").unwrap());
    let out = apply(Some(body()), &p, &mut ids()).unwrap();
    assert_eq!(texts(&out.body, "yi"), ["y1:ראשית"]);

    let out = apply(None, &p, &mut ids()).unwrap();
    assert_eq!(out.body.profile.as_str(), "plain");
    assert_eq!(out.body.versions.len(), 1);
}

#[test]
fn before_must_match_the_words_in_main() {
    let mut p = plan(WordsOp::Edit, Some("p2"), Some(json!([{ "text": "x" }])));
    p.before = Some(json!([{ "text": "ביום הזה" }, { "note": "n1" }]));
    assert!(apply(Some(body()), &p, &mut ids()).is_ok());
    p.before = Some(json!([{ "text": "ביום ההוא" }]));
    let Err(NotApplied::Changed {
        field,
        before,
        main,
    }) = apply(Some(body()), &p, &mut ids())
    else {
        panic!("a changed segment must be refused");
    };
    assert_eq!(field, "/body/versions/he/segments/p2/text");
    assert_eq!(before, vec![Run::text("ביום ההוא")]);
    assert_eq!(main.unwrap().len(), 2);
}

#[test]
fn before_may_be_the_segment_object_as_seen() {
    let mut p = plan(WordsOp::Edit, Some("p2"), Some(json!([{ "text": "x" }])));
    let seen = |id: &str, text: Value| json!({ "id": id, "kind": "paragraph", "text": text });
    p.before = Some(seen(
        "p2",
        json!([{ "text": "ביום הזה" }, { "note": "n1" }]),
    ));
    assert!(apply(Some(body()), &p, &mut ids()).is_ok());
    p.before = Some(seen("p2", json!([{ "text": "ביום ההוא" }])));
    assert!(matches!(
        apply(Some(body()), &p, &mut ids()),
        Err(NotApplied::Changed { .. })
    ));
    // Another segment's object, or one without its words, is a mistake in the request.
    p.before = Some(seen(
        "p1",
        json!([{ "text": "ביום הזה" }, { "note": "n1" }]),
    ));
    let Err(NotApplied::Bad(bad @ BadWords::OtherSegment { .. })) =
        apply(Some(body()), &p, &mut ids())
    else {
        panic!("another segment's object must be refused");
    };
    let message = bad.to_string();
    assert!(
        message.contains("p1") && message.contains("p2"),
        "{message}"
    );
    p.before = Some(json!({ "id": "p2", "kind": "paragraph" }));
    assert!(matches!(
        apply(Some(body()), &p, &mut ids()),
        Err(NotApplied::Bad(BadWords::SeenWithoutText))
    ));
}

#[test]
fn a_segment_gone_since_it_was_seen_is_a_change_not_a_miss() {
    let mut p = plan(WordsOp::Remove, Some("p9"), None);
    assert!(matches!(
        apply(Some(body()), &p, &mut ids()),
        Err(NotApplied::Missing(Missing::Segment { .. }))
    ));
    p.before = Some(json!([{ "text": "was here" }]));
    assert!(matches!(
        apply(Some(body()), &p, &mut ids()),
        Err(NotApplied::Changed { main: None, .. })
    ));
}

#[test]
fn start_compares_before_with_the_first_segment_or_nothing() {
    let mut p = plan(WordsOp::Start, None, Some(json!([{ "text": "א" }])));
    p.before = Some(json!([]));
    assert!(matches!(
        apply(Some(body()), &p, &mut ids()),
        Err(NotApplied::Changed { .. })
    ));
    p.before = Some(json!([{ "text": "פתיחה" }]));
    assert!(apply(Some(body()), &p, &mut ids()).is_ok());
    p.version = SegmentId::new("fr").unwrap();
    p.language = Some("fr".into());
    p.before = Some(json!([]));
    assert!(apply(Some(body()), &p, &mut ids()).is_ok());
}

#[test]
fn new_words_may_only_mark_notes_of_their_version() {
    let p = plan(
        WordsOp::Edit,
        Some("p1"),
        Some(json!([{ "text": "x" }, { "note": "n1" }])),
    );
    assert!(apply(Some(body()), &p, &mut ids()).is_ok());
    let mut p = plan(WordsOp::Edit, Some("p1"), Some(json!([{ "note": "n1" }])));
    p.version = SegmentId::new("en").unwrap();
    assert!(matches!(
        apply(Some(body()), &p, &mut ids()),
        Err(NotApplied::Bad(m)) if m.to_string().contains("not among the version's notes")
    ));
}

#[test]
fn changes_other_than_start_need_words_and_a_version() {
    let p = plan(WordsOp::Edit, Some("p1"), Some(json!([{ "text": "x" }])));
    assert!(matches!(
        apply(None, &p, &mut ids()),
        Err(NotApplied::Missing(Missing::Words(_)))
    ));
    let mut p = p;
    p.version = SegmentId::new("fr").unwrap();
    assert!(matches!(
        apply(Some(body()), &p, &mut ids()),
        Err(NotApplied::Missing(m)) if m.to_string().contains("no version fr")
    ));
    p.version = SegmentId::new("he").unwrap();
    p.language = Some("en".into());
    assert!(matches!(
        apply(Some(body()), &p, &mut ids()),
        Err(NotApplied::Bad(m)) if m.to_string().contains("is in he, not en")
    ));
}

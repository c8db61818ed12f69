//! The merge rules, one example each.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::{Clash, merge_item};
use crate::Side;

const A: &str = "cat-0000000a";
const B: &str = "cat-0000000b";
const C: &str = "cat-0000000c";

fn merged(base: Value, main: Value, suggestion: Value) -> Value {
    let out = merge_item(
        Some(&base),
        Some(&main),
        Some(&suggestion),
        &BTreeMap::new(),
    );
    assert!(out.clashes.is_empty(), "{:?}", out.clashes);
    out.data.expect("merged data")
}

fn clashes(base: Value, main: Value, suggestion: Value) -> Vec<Clash> {
    merge_item(
        Some(&base),
        Some(&main),
        Some(&suggestion),
        &BTreeMap::new(),
    )
    .clashes
}

fn fields(clashes: &[Clash]) -> Vec<&str> {
    clashes.iter().map(|c| c.field.as_str()).collect()
}

#[test]
fn different_fields_merge() {
    assert_eq!(
        merged(
            json!({ "date": "5784-01-01", "kind": "farbrengen" }),
            json!({ "date": "5784-01-02", "kind": "farbrengen" }),
            json!({ "date": "5784-01-01", "kind": "other", "note": "added" }),
        ),
        json!({ "date": "5784-01-02", "kind": "other", "note": "added" })
    );
}

#[test]
fn one_field_changed_two_ways_clashes_at_its_pointer() {
    let c = clashes(
        json!({ "date": "5784-01-01" }),
        json!({ "date": "5784-01-02" }),
        json!({ "date": "5784-01-03" }),
    );
    assert_eq!(
        c,
        vec![Clash {
            field: "/date".into(),
            base: Some(json!("5784-01-01")),
            main: Some(json!("5784-01-02")),
            suggestion: Some(json!("5784-01-03")),
        }]
    );
}

#[test]
fn a_field_removed_on_one_side_and_edited_on_the_other_clashes() {
    let c = clashes(
        json!({ "note": "old words" }),
        json!({}),
        json!({ "note": "new words" }),
    );
    assert_eq!(fields(&c), ["/note"]);
    assert_eq!(c[0].main, None);
}

#[test]
fn the_same_change_on_both_sides_is_no_clash() {
    assert_eq!(
        merged(json!({ "a": 1 }), json!({ "a": 2 }), json!({ "a": 2 })),
        json!({ "a": 2 })
    );
}

#[test]
fn id_lists_merge_as_sets() {
    assert_eq!(
        merged(
            json!({ "sets": [A] }),
            json!({ "sets": [A, B] }),
            json!({ "sets": [C] }),
        ),
        json!({ "sets": [B, C] })
    );
}

#[test]
fn other_lists_merge_whole() {
    let c = clashes(
        json!({ "position": [1, 2] }),
        json!({ "position": [1, 3] }),
        json!({ "position": [4, 2] }),
    );
    assert_eq!(fields(&c), ["/position"]);
}

#[test]
fn lines_merge_by_id_and_text_word_by_word() {
    let base = json!({ "lines": [
        { "id": "a", "text": "first line here" },
        { "id": "b", "text": "second line" },
    ]});
    let main = json!({ "lines": [
        { "id": "a", "text": "first line there" },
        { "id": "b", "text": "second line", "checked": true },
    ]});
    let suggestion = json!({ "lines": [
        { "id": "a", "text": "1st line here" },
        { "id": "b", "text": "second line!" },
        { "id": "c", "text": "a third" },
    ]});
    assert_eq!(
        merged(base, main, suggestion),
        json!({ "lines": [
            { "id": "a", "text": "1st line there" },
            { "id": "b", "text": "second line!", "checked": true },
            { "id": "c", "text": "a third" },
        ]})
    );
}

#[test]
fn a_line_changed_two_ways_clashes_at_its_id() {
    let c = clashes(
        json!({ "lines": [{ "id": "a", "text": "word" }] }),
        json!({ "lines": [{ "id": "a", "text": "ward" }] }),
        json!({ "lines": [{ "id": "a", "text": "wird" }] }),
    );
    assert_eq!(fields(&c), ["/lines/a/text"]);
}

#[test]
fn a_line_deleted_on_one_side_and_edited_on_the_other_clashes() {
    let c = clashes(
        json!({ "lines": [{ "id": "a", "text": "x" }, { "id": "b", "text": "y" }] }),
        json!({ "lines": [{ "id": "b", "text": "y" }] }),
        json!({ "lines": [{ "id": "a", "text": "x!" }, { "id": "b", "text": "y" }] }),
    );
    assert_eq!(fields(&c), ["/lines/a"]);
    assert_eq!(c[0].main, None);
}

#[test]
fn additions_keep_their_place_among_the_other_sides_elements() {
    let line = |id: &str| json!({ "id": id, "text": id });
    assert_eq!(
        merged(
            json!({ "lines": [line("a"), line("c")] }),
            json!({ "lines": [line("a"), line("c"), line("d")] }),
            json!({ "lines": [line("a"), line("b"), line("c")] }),
        ),
        json!({ "lines": [line("a"), line("b"), line("c"), line("d")] })
    );
}

#[test]
fn one_side_reordering_wins_and_two_reorderings_clash() {
    let line = |id: &str| json!({ "id": id, "text": id });
    assert_eq!(
        merged(
            json!({ "lines": [line("a"), line("b"), line("c")] }),
            // Main adds d after b; the suggestion moves c to the front.
            json!({ "lines": [line("a"), line("b"), line("d"), line("c")] }),
            json!({ "lines": [line("c"), line("a"), line("b")] }),
        ),
        json!({ "lines": [line("c"), line("a"), line("b"), line("d")] })
    );
    let c = clashes(
        json!({ "lines": [line("a"), line("b"), line("c")] }),
        json!({ "lines": [line("b"), line("a"), line("c")] }),
        json!({ "lines": [line("a"), line("c"), line("b")] }),
    );
    assert_eq!(fields(&c), ["/lines"]);
}

#[test]
fn body_segments_merge_by_version_then_segment_and_children() {
    let body = |s1: &str, s2: &str, child: &str| {
        json!({ "body": { "profile": "plain", "versions": [{
            "id": "he", "language": "he",
            "segments": [
                { "id": "s1", "kind": "paragraph", "text": [{ "text": s1 }] },
                { "id": "s2", "kind": "section", "text": [{ "text": s2 }],
                  "children": [{ "id": "k1", "kind": "item", "text": [{ "text": child }] }] },
            ],
        }]}})
    };
    assert_eq!(
        merged(
            body("one", "two", "kid"),
            body("ONE", "two", "kid"),
            body("one", "two", "KID"),
        ),
        body("ONE", "two", "KID")
    );
    let c = clashes(
        body("one", "two", "kid"),
        body("one", "two", "kid 1"),
        body("one", "two", "kid 2"),
    );
    assert_eq!(
        fields(&c),
        ["/body/versions/he/segments/s2/children/k1/text"]
    );
}

#[test]
fn names_merge_whole() {
    let c = clashes(
        json!({ "title": { "he": "א", "en": "a" } }),
        json!({ "title": { "he": "ב", "en": "a" } }),
        json!({ "title": { "he": "א", "en": "b" } }),
    );
    assert_eq!(fields(&c), ["/title"]);
    let c = clashes(
        json!({ "label": { "he": "א", "en": "a" } }),
        json!({ "label": { "he": "ב", "en": "a" } }),
        json!({ "label": { "he": "א", "en": "b" } }),
    );
    assert_eq!(fields(&c), ["/label"]);
    // A plain-string title is a name too: not merged word by word.
    let c = clashes(
        json!({ "title": "one two" }),
        json!({ "title": "ONE two" }),
        json!({ "title": "one TWO" }),
    );
    assert_eq!(fields(&c), ["/title"]);
}

#[test]
fn an_item_deleted_on_one_side_and_edited_on_the_other_clashes_whole() {
    let base = json!({ "a": 1 });
    let edited = json!({ "a": 2 });
    let out = merge_item(Some(&base), None, Some(&edited), &BTreeMap::new());
    assert_eq!(fields(&out.clashes), [""]);
    let out = merge_item(Some(&base), Some(&edited), None, &BTreeMap::new());
    assert_eq!(fields(&out.clashes), [""]);
    // Both deleting is no clash.
    let out = merge_item(Some(&base), None, None, &BTreeMap::new());
    assert!(out.clashes.is_empty() && out.data.is_none());
}

#[test]
fn pointers_escape_slash_and_tilde() {
    let c = clashes(
        json!({ "externalIds": { "a/b~c": "1" } }),
        json!({ "externalIds": { "a/b~c": "2" } }),
        json!({ "externalIds": { "a/b~c": "3" } }),
    );
    assert_eq!(fields(&c), ["/externalIds/a~1b~0c"]);
}

#[test]
fn resolutions_settle_named_clashes_and_report_them() {
    let base = json!({ "date": "5784-01-01", "kind": "a", "lines": [{ "id": "x", "text": "t" }] });
    let main = json!({ "date": "5784-01-02", "kind": "b", "lines": [] });
    let suggestion =
        json!({ "date": "5784-01-03", "kind": "c", "lines": [{ "id": "x", "text": "u" }] });
    let mut settle = BTreeMap::new();
    settle.insert("/date".to_string(), Side::Suggestion);
    settle.insert("/lines/x".to_string(), Side::Main);
    let out = merge_item(Some(&base), Some(&main), Some(&suggestion), &settle);
    assert_eq!(fields(&out.clashes), ["/kind"]);
    assert_eq!(
        out.settled.iter().map(String::as_str).collect::<Vec<_>>(),
        ["/date", "/lines/x"]
    );
    settle.insert("/kind".to_string(), Side::Main);
    let out = merge_item(Some(&base), Some(&main), Some(&suggestion), &settle);
    assert!(out.clashes.is_empty());
    assert_eq!(
        out.data,
        Some(json!({ "date": "5784-01-03", "kind": "b", "lines": [] }))
    );
}

//! Reading the runs a words change sends (`text`, and `before` as runs or as the whole segment): only the shapes a body allows —
//! text with the six fixed marks and a link of the three allowed kinds, footnote markers naming
//! a note of the version, the source's own markers and line breaks. Anything else is refused
//! with the place and the reason (`text[1]: mark "script" is not allowed`), never dropped.

use catalog_schemas::body::{Mark, Run, SegmentId, parse_runs};
use serde_json::Value;

use crate::error::BadWords;

/// Reads `value` as the runs of request field `field`. With `notes`, every footnote marker must
/// name one of them (the new words of a segment); without, markers are taken as written (the
/// words as the person saw them, whose notes may since have gone).
pub(crate) fn read_runs(
    field: &'static str,
    value: &Value,
    notes: Option<&[SegmentId]>,
) -> Result<Vec<Run>, BadWords> {
    let runs = parse_runs(value).map_err(|source| BadWords::Runs { field, source })?;
    if let Some(notes) = notes {
        for (i, run) in runs.iter().enumerate() {
            if let Run::Note(id) = run
                && !notes.contains(id)
            {
                return Err(BadWords::UnknownNote {
                    field,
                    index: i,
                    note: id.clone(),
                });
            }
        }
    }
    Ok(runs)
}

/// The words `before` says the person saw. It is "the segment as the person saw it", so the
/// segment object itself is taken (its `text`) as well as the bare list of its runs; a segment
/// object naming another segment than the one the change is about is refused.
pub(crate) fn seen_runs(value: &Value, segment: Option<&SegmentId>) -> Result<Vec<Run>, BadWords> {
    let Value::Object(seen) = value else {
        return read_runs("before", value, None);
    };
    if let (Some(want), Some(id)) = (segment, seen.get("id"))
        && id.as_str() != Some(want.as_str())
    {
        return Err(BadWords::OtherSegment {
            seen: id.to_string(),
            wanted: want.clone(),
        });
    }
    let text = seen.get("text").ok_or(BadWords::SeenWithoutText)?;
    read_runs("before.text", text, None)
}

/// Whether two run lists hold the same words: marks compare as sets, since their order carries
/// no meaning (`["b","i"]` is `["i","b"]`).
pub(crate) fn same_words(a: &[Run], b: &[Run]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_run(x, y))
}

fn same_run(a: &Run, b: &Run) -> bool {
    match (a, b) {
        (
            Run::Text {
                text: ta,
                marks: ma,
                href: ha,
            },
            Run::Text {
                text: tb,
                marks: mb,
                href: hb,
            },
        ) => ta == tb && ha == hb && mark_set(ma) == mark_set(mb),
        _ => a == b,
    }
}

fn mark_set(marks: &[Mark]) -> [bool; 6] {
    Mark::ALL.map(|m| marks.contains(&m))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;

    fn notes() -> Vec<SegmentId> {
        vec![SegmentId::new("n1").unwrap()]
    }

    #[test]
    fn refusals_name_the_field_and_place() {
        let bad = |v: Value| {
            read_runs("text", &v, Some(&notes()))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            bad(json!([{ "text": "a" }, { "text": "b", "marks": ["script"] }])),
            r#"text[1]: mark "script" is not allowed"#
        );
        assert_eq!(
            bad(json!([{ "text": "a", "href": "javascript:alert(1)" }])),
            r#"text[0].href: href "javascript:alert(1)" is not a web address, a site path or an item id"#
        );
        assert_eq!(
            bad(json!([{ "text": "a", "style": "color:red" }])),
            r#"text[0]: field "style" is not allowed"#
        );
        assert_eq!(
            bad(json!([{ "html": "<b>a</b>" }])),
            "text[0]: a run has text, note, marker or br"
        );
        assert_eq!(
            bad(json!("<b>a</b>")),
            "text: is a string, not a list of runs"
        );
        assert_eq!(
            bad(json!([{ "note": "n2" }])),
            r#"text[0]: note "n2" is not among the version's notes"#
        );
    }

    #[test]
    fn every_allowed_shape_is_read() {
        let runs = read_runs(
            "text",
            &json!([
                { "text": "a", "marks": ["b", "i", "u", "small", "sup", "sub"] },
                { "text": "b", "href": "https://example.org/x" },
                { "text": "c", "href": "/events/5784-06B-14" },
                { "text": "d", "href": "cat-7k2m9q4x" },
                { "note": "n1" }, { "marker": "*" }, { "br": true }
            ]),
            Some(&notes()),
        )
        .unwrap();
        assert_eq!(runs.len(), 7);
        // The words as seen may name notes that have since gone.
        assert!(read_runs("before", &json!([{ "note": "n9" }]), None).is_ok());
    }

    #[test]
    fn marks_compare_as_sets() {
        let a = read_runs("t", &json!([{ "text": "x", "marks": ["b", "i"] }]), None).unwrap();
        let b = read_runs("t", &json!([{ "text": "x", "marks": ["i", "b"] }]), None).unwrap();
        let c = read_runs("t", &json!([{ "text": "x", "marks": ["i"] }]), None).unwrap();
        assert!(same_words(&a, &b));
        assert!(!same_words(&a, &c));
        assert!(!same_words(&a, &[]));
    }

    fn arb_marks() -> impl Strategy<Value = Vec<&'static str>> {
        proptest::sample::subsequence(Mark::ALL.map(Mark::as_str).to_vec(), 0..=6)
    }

    proptest! {
        #[test]
        fn reordered_marks_are_the_same_words(text in "\\PC{0,10}", marks in arb_marks(), seed in any::<u64>()) {
            let mut shuffled = marks.clone();
            let len = shuffled.len().max(1);
            shuffled.rotate_left((seed as usize) % len);
            let a = read_runs("t", &json!([{ "text": text, "marks": marks }]), None).unwrap();
            let b = read_runs("t", &json!([{ "text": text, "marks": shuffled }]), None).unwrap();
            prop_assert!(same_words(&a, &b));
        }

        #[test]
        fn a_run_with_any_other_field_is_refused(field in "[a-z]{1,10}", value in "\\PC{0,6}") {
            prop_assume!(!["text", "marks", "href"].contains(&field.as_str()));
            let v = json!([{ "text": "x", field.clone(): value }]);
            let err = read_runs("text", &v, None).unwrap_err().to_string();
            prop_assert_eq!(err, format!("text[0]: field {field:?} is not allowed"));
        }
    }
}

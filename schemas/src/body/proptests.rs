use proptest::prelude::*;
use serde_json::Value;

use super::*;

fn arb_mark() -> impl Strategy<Value = Vec<Mark>> {
    proptest::sample::subsequence(Mark::ALL.to_vec(), 0..=3)
}

fn arb_href() -> impl Strategy<Value = Option<Href>> {
    prop_oneof![
        Just(None),
        "[a-z]{1,8}".prop_map(|h| Some(Href::Web(format!("https://{h}.example/x")))),
        "[a-z0-9/]{0,12}".prop_map(|p| Some(Href::Site(format!("/{p}")))),
        (0u64..(1 << 40)).prop_map(|v| Some(Href::Item(Id::from_u64(v).unwrap()))),
    ]
    .prop_filter(
        "a site path never starts with //",
        |h| !matches!(h, Some(Href::Site(p)) if p.starts_with("//")),
    )
}

fn arb_run(note_ids: Vec<String>) -> impl Strategy<Value = Run> {
    let note = if note_ids.is_empty() {
        Just(Run::Break).boxed()
    } else {
        proptest::sample::select(note_ids)
            .prop_map(|id| Run::Note(SegmentId(id)))
            .boxed()
    };
    prop_oneof![
        4 => ("\\PC{0,12}", arb_mark(), arb_href())
            .prop_map(|(text, marks, href)| Run::Text { text, marks, href }),
        1 => note,
        1 => "[*†a-z]{1,3}".prop_map(Run::Marker),
        1 => Just(Run::Break),
    ]
}

fn arb_number() -> impl Strategy<Value = Option<SourceNumber>> {
    prop_oneof![
        Just(None),
        any::<u32>().prop_map(|n| Some(SourceNumber::Count(u64::from(n)))),
        "[א-ת]{1,3}".prop_map(|s| Some(SourceNumber::Text(s))),
    ]
}

fn arb_leaf(
    note_ids: Vec<String>,
) -> impl Strategy<Value = (SegmentKind, Option<SourceNumber>, bool, Vec<Run>)> {
    (
        proptest::sample::select(SegmentKind::ALL.to_vec()),
        arb_number(),
        any::<bool>(),
        proptest::collection::vec(arb_run(note_ids), 0..4),
    )
}

fn arb_segments(note_ids: Vec<String>) -> impl Strategy<Value = Vec<Segment>> {
    proptest::collection::vec(
        (
            arb_leaf(note_ids.clone()),
            proptest::collection::vec(arb_leaf(note_ids), 0..3),
        ),
        0..5,
    )
    .prop_map(|list| {
        // Ids are assigned afterwards so they are unique within the version.
        let mut next = 0;
        let mut make =
            |(kind, n, end, text): (SegmentKind, Option<SourceNumber>, bool, Vec<Run>)| {
                next += 1;
                Segment {
                    id: SegmentId(format!("s{next}")),
                    kind,
                    n,
                    end,
                    origin: None,
                    text,
                    children: Vec::new(),
                }
            };
        list.into_iter()
            .map(|(parent, children)| {
                let mut segment = make(parent);
                segment.children = children.into_iter().map(&mut make).collect();
                segment
            })
            .collect()
    })
}

fn arb_version(index: usize) -> impl Strategy<Value = Version> {
    (0usize..3)
        .prop_flat_map(move |note_count| {
            let note_ids: Vec<String> = (1..=note_count).map(|i| format!("n{i}")).collect();
            (
                Just(note_ids.clone()),
                arb_segments(note_ids),
                proptest::option::of("\\PC{1,10}"),
                proptest::sample::select(vec!["he", "en", "yi", "und", "en-US"]),
            )
        })
        .prop_map(move |(note_ids, segments, title, language)| Version {
            id: SegmentId(format!("v{index}")),
            language: language.to_owned(),
            title,
            credit: None,
            licence: None,
            url: None,
            segments,
            notes: note_ids
                .into_iter()
                .map(|id| Note {
                    id: SegmentId(id),
                    n: Some(SourceNumber::Count(1)),
                    text: vec![Run::text("note")],
                })
                .collect(),
        })
}

fn arb_body() -> impl Strategy<Value = Body> {
    (
        proptest::sample::select(vec!["plain", "outline", "source-a"]),
        arb_version(1),
        proptest::option::of(arb_version(2)),
    )
        .prop_map(|(profile, first, second)| Body {
            profile: Profile::new(profile).unwrap(),
            versions: std::iter::once(first).chain(second).collect(),
            body_source: None,
        })
}

const BODY_WORDS: &[&str] = &[
    "text",
    "note",
    "br",
    "marks",
    "b",
    "id",
    "kind",
    "paragraph",
    "he",
    "cat-00000001",
    "https://x.example",
    "/a",
    "versions",
    "segments",
    "profile",
    "plain",
];

const BODY_KEYS: &[&str] = &[
    "profile", "versions", "id", "language", "segments", "notes", "kind", "text", "children",
    "marks", "href", "note", "marker", "br", "n", "end",
];

fn arb_json() -> impl Strategy<Value = Value> {
    crate::arb_json::arb_json(BODY_WORDS, BODY_KEYS)
}

proptest! {
    #[test]
    fn generated_bodies_roundtrip(body in arb_body()) {
        let value = body.to_value();
        let back = Body::from_value(&value).unwrap();
        prop_assert_eq!(&back, &body);
        prop_assert_eq!(back.to_value(), value);
    }

    #[test]
    fn random_json_never_panics(value in arb_json()) {
        if let Ok(body) = Body::from_value(&value) {
            // Whatever is accepted must survive a round trip unchanged.
            prop_assert_eq!(Body::from_value(&body.to_value()).unwrap(), body);
        }
        let _ = parse_content(&value);
    }

    #[test]
    fn any_text_as_a_body_is_read_or_refused(text in "\\PC{0,200}") {
        // A legacy body is a plain string; text is also what `from_plain` turns into words.
        match Body::from_value(&Value::String(text.clone())) {
            Ok(body) => prop_assert_eq!(Body::from_value(&body.to_value()).unwrap(), body),
            Err(e) => prop_assert!(matches!(e, SchemaError::Body { .. }), "{e:?}"),
        }
        let plain = Body::from_plain(&text);
        prop_assert_eq!(Body::from_value(&plain.to_value()).unwrap(), plain);
    }

    #[test]
    fn plain_text_roundtrips_through_from_plain(paragraphs in proptest::collection::vec("[a-z ]{0,10}[a-z]", 0..5)) {
        let text = paragraphs.join("\n\n");
        let body = Body::from_plain(&text);
        prop_assert_eq!(body.versions[0].segments.len(), paragraphs.len());
        prop_assert_eq!(body.plain_text(), paragraphs.iter().map(|p| p.trim_end()).collect::<Vec<_>>().join("\n\n"));
    }
}

fn arb_runs() -> impl Strategy<Value = Vec<Run>> {
    proptest::collection::vec(arb_run(vec!["n1".to_owned(), "n2".to_owned()]), 0..8)
}

/// A mark name that is none of the six allowed ones.
fn arb_bad_mark() -> impl Strategy<Value = String> {
    "[a-z]{1,8}".prop_filter("not an allowed mark", |m| Mark::parse(m).is_none())
}

proptest! {
    #[test]
    fn runs_roundtrip_through_their_json(runs in arb_runs()) {
        let value = runs_to_value(&runs);
        let back = parse_runs(&value).unwrap();
        prop_assert_eq!(&back, &runs);
        prop_assert_eq!(runs_to_value(&back), value);
    }

    #[test]
    fn a_mark_outside_the_six_is_refused_by_name(
        runs in arb_runs(),
        at in any::<proptest::sample::Index>(),
        bad in arb_bad_mark(),
    ) {
        let mut value = runs_to_value(&runs);
        let list = value.as_array_mut().unwrap();
        let i = at.index(list.len() + 1);
        list.insert(i, serde_json::json!({ "text": "x", "marks": ["b", bad] }));
        let err = parse_runs(&value).unwrap_err();
        prop_assert_eq!(
            err,
            SchemaError::Body {
                at: format!("[{i}]"),
                pointer: format!("/{i}"),
                reason: format!("mark {bad:?} is not allowed"),
            }
        );
    }

    #[test]
    fn an_href_of_another_kind_is_refused(
        runs in arb_runs(),
        scheme in proptest::sample::select(vec!["javascript:", "data:", "ftp://", "//", "mailto:"]),
        rest in "[a-z]{1,8}",
    ) {
        let mut value = runs_to_value(&runs);
        let list = value.as_array_mut().unwrap();
        let href = format!("{scheme}{rest}");
        list.push(serde_json::json!({ "text": "x", "href": href }));
        let i = list.len() - 1;
        let err = parse_runs(&value).unwrap_err();
        let SchemaError::Body { pointer, .. } = err else {
            return Err(TestCaseError::fail("not a body error"));
        };
        prop_assert_eq!(pointer, format!("/{i}/href"));
    }

    #[test]
    fn random_json_runs_never_panic_and_what_passes_roundtrips(value in arb_json()) {
        if let Ok(runs) = parse_runs(&value) {
            prop_assert_eq!(parse_runs(&runs_to_value(&runs)).unwrap(), runs);
        }
    }
}

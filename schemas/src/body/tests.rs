use serde_json::json;

use super::*;

fn sample() -> Value {
    json!({
        "profile": "outline",
        "versions": [{
            "id": "he",
            "language": "he",
            "title": "ראשי דברים",
            "segments": [
                {"id": "s1", "kind": "section", "n": 1, "text": [{"text": "א"}], "children": [
                    {"id": "s1.1", "kind": "item", "n": "א", "text": [
                        {"text": "see ", "marks": ["b", "i"]},
                        {"text": "there", "href": "CAT-7K2M-9Q4X"},
                        {"note": "n1"},
                        {"br": true},
                        {"marker": "*"},
                        {"text": "web", "href": "https://example.org/a?b#c"},
                        {"text": "site", "href": "/events/5784-06B-14"}
                    ]}
                ]},
                {"id": "s2", "kind": "paragraph", "end": true, "origin": {"by": "ocr", "checked": false},
                 "text": [{"text": "again", "href": "cat-7k2m9q4x"}, {"text": "other", "href": "cat-00000001"}]}
            ],
            "notes": [{"id": "n1", "kind": "note", "n": 1, "text": [{"text": "a note"}]}]
        }],
        "bodySource": {"source": "somewhere", "rights": "open"}
    })
}

fn err(value: Value) -> String {
    Body::from_value(&value).unwrap_err().to_string()
}

fn with_run(run: Value) -> Value {
    json!({"profile": "plain", "versions": [{"id": "v1", "language": "en", "segments": [
        {"id": "p1", "kind": "paragraph", "text": [{"text": "ok"}, run]}
    ]}]})
}

#[test]
fn reads_and_writes_a_full_body() {
    let body = Body::from_value(&sample()).unwrap();
    assert_eq!(body.profile.as_str(), "outline");
    let version = body.version("he").unwrap();
    assert_eq!(
        version.segments[0].children[0].n,
        Some(SourceNumber::Text("א".into()))
    );
    assert!(version.segments[1].end);
    // Written back, the only change is the canonical spelling of the item id.
    let mut expected = sample();
    expected["versions"][0]["segments"][0]["children"][0]["text"][1]["href"] =
        json!("cat-7k2m9q4x");
    assert_eq!(body.to_value(), expected);
    assert_eq!(Body::from_value(&body.to_value()).unwrap(), body);
}

#[test]
fn hrefs_lists_item_ids_once_in_order() {
    let body = Body::from_value(&sample()).unwrap();
    let ids: Vec<String> = body.hrefs().iter().map(ToString::to_string).collect();
    assert_eq!(ids, ["cat-7k2m9q4x", "cat-00000001"]);
}

#[test]
fn refusals_name_the_place() {
    assert_eq!(
        err(with_run(json!({"text": "x", "marks": ["script"]}))),
        r#"body versions[0].segments[0].text[1]: mark "script" is not allowed"#
    );
    assert_eq!(
        err(with_run(
            json!({"text": "x", "href": "javascript:alert(1)"})
        )),
        r#"body versions[0].segments[0].text[1].href: href "javascript:alert(1)" is not a web address, a site path or an item id"#
    );
    assert!(
        err(with_run(json!({"text": "x", "href": "//evil.example"})))
            .contains("is not a web address")
    );
    assert!(
        err(with_run(json!({"text": "x", "href": "https://"}))).contains("is not a web address")
    );
    assert!(
        err(with_run(json!({"text": "x", "style": "color:red"})))
            .contains(r#"field "style" is not allowed"#)
    );
    assert!(
        err(with_run(json!({"note": "n9"})))
            .contains(r#"note "n9" is not among the version's notes"#)
    );
    assert!(err(with_run(json!({"br": false}))).contains("not true"));
    assert!(
        err(with_run(json!({"html": "<b>x</b>"}))).contains("a run has text, note, marker or br")
    );
    assert!(err(with_run(json!({"text": "x", "marks": ["b", "b"]}))).contains("appears twice"));
    assert!(err(with_run(json!("bare"))).contains("not an object"));
}

#[test]
fn structural_refusals() {
    let mut dup = sample();
    dup["versions"][0]["segments"][1]["id"] = json!("s1.1");
    assert_eq!(
        err(dup),
        r#"body versions[0].segments[1].id: segment id "s1.1" is used twice"#
    );
    let mut kind = sample();
    kind["versions"][0]["segments"][1]["kind"] = json!("div");
    assert!(err(kind).contains(r#"segment kind "div" is not allowed"#));
    let mut lang = sample();
    lang["versions"][0]["language"] = json!("Hebrew");
    assert!(err(lang).contains("is not a language tag"));
    let mut profile = sample();
    profile["profile"] = json!("Bad Profile");
    assert!(err(profile).contains("is not a profile name"));
    let mut versions = sample();
    versions["versions"] = json!({});
    assert_eq!(err(versions), "body versions: is an object, not a list");
    assert_eq!(
        err(json!(42)),
        "body: is a number, not an object or a string"
    );
    let mut extra = sample();
    extra["html"] = json!("<p>");
    assert!(err(extra).contains(r#"field "html" is not allowed"#));
}

#[test]
fn errors_carry_a_json_pointer() {
    match Body::from_value(&with_run(json!({"text": "x", "marks": ["script"]}))) {
        Err(SchemaError::Body { pointer, .. }) => {
            assert_eq!(pointer, "/versions/0/segments/0/text/1");
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn deep_nesting_is_refused() {
    let mut seg = json!({"id": "leaf", "kind": "item", "text": []});
    for depth in 0..MAX_DEPTH {
        seg = json!({"id": format!("d{depth}"), "kind": "section", "text": [], "children": [seg]});
    }
    let body =
        json!({"profile": "plain", "versions": [{"id": "v", "language": "he", "segments": [seg]}]});
    assert!(err(body).contains("nest deeper"));
}

#[test]
fn legacy_plain_strings_become_paragraphs() {
    let body = Body::from_value(&json!(
        "first line\nsecond line\n\n\n  \nnext paragraph\r\n"
    ))
    .unwrap();
    assert_eq!(body.profile.as_str(), "plain");
    let version = &body.versions[0];
    assert_eq!(version.language, "und");
    let ids: Vec<&str> = version.segments.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["p1", "p2"]);
    assert_eq!(
        version.segments[0].text,
        [
            Run::text("first line"),
            Run::Break,
            Run::text("second line")
        ]
    );
    assert_eq!(
        body.plain_text(),
        "first line\nsecond line\n\nnext paragraph"
    );
    // Deterministic: the same text gives the same body, and it survives a round trip.
    let again = Body::from_plain("first line\nsecond line\n\n\n  \nnext paragraph\r\n");
    assert_eq!(again, body);
    assert_eq!(Body::from_value(&body.to_value()).unwrap(), body);
    assert!(Body::from_plain("").versions[0].segments.is_empty());
}

#[test]
fn content_is_runs_or_a_string() {
    assert_eq!(
        parse_content(&json!("a\nb")).unwrap(),
        [Run::text("a"), Run::Break, Run::text("b")]
    );
    let runs = parse_content(&json!([{"text": "x", "marks": ["sup"]}, {"note": "n1"}])).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(
        runs_to_value(&runs),
        json!([{"text": "x", "marks": ["sup"]}, {"note": "n1"}])
    );
    assert_eq!(
        parse_content(&json!([{"text": "x", "marks": ["blink"]}]))
            .unwrap_err()
            .to_string(),
        r#"body [0]: mark "blink" is not allowed"#
    );
}

#[test]
fn href_kinds() {
    assert!(matches!(
        Href::parse("https://a.example/x"),
        Some(Href::Web(_))
    ));
    assert!(matches!(
        Href::parse("HTTP://a.example"),
        Some(Href::Web(_))
    ));
    assert!(matches!(Href::parse("/sets/tanya"), Some(Href::Site(_))));
    assert!(matches!(Href::parse("cat-7k2m-9q4x"), Some(Href::Item(_))));
    for bad in [
        "",
        "ftp://x",
        "data:text/html,x",
        "/a b",
        "mailto:a@b",
        "https://a.example/\"x",
    ] {
        assert_eq!(Href::parse(bad), None, "{bad:?}");
    }
}

#[test]
fn serde_goes_through_the_same_checks() {
    let body: Body = serde_json::from_value(sample()).unwrap();
    assert_eq!(serde_json::to_value(&body).unwrap(), body.to_value());
    assert!(
        serde_json::from_value::<Body>(with_run(json!({"text": "x", "marks": ["script"]})))
            .is_err()
    );
}

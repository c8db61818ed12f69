use serde_json::json;

use super::*;

/// A small valid example of every kind.
pub(super) fn example(ty: ItemType) -> Value {
    let id = "cat-00000001";
    let name = json!({"he": "שם", "en": "Name"});
    match ty {
        ItemType::Set => {
            json!({"name": name, "slug": "sichos", "keepers": ["moshe"], "policy": "open"})
        }
        ItemType::Author => json!({"name": name, "kind": "rebbe", "rebbe": 7, "slug": "the-rebbe"}),
        ItemType::Work => {
            json!({"title": name, "slug": "likkutei-sichos", "authors": [id], "levels": ["volume", "sicha"],
            "cover": {"file": "a".repeat(64), "page": 3}})
        }
        ItemType::Unit => {
            json!({"work": id, "position": [12, "vayeira"], "order": "a0", "label": name,
            "kind": "sicha", "date": "5784-06B-14", "events": [id]})
        }
        ItemType::Event => {
            json!({"kind": "farbrengen", "title": name, "date": "5784-06B-14", "place": id, "occasion": "purim"})
        }
        ItemType::Publication => {
            json!({"kind": "volume", "title": name, "work": id, "date": "5745",
            "printing": 2, "identifiers": {"isbn": "978"}, "simcha": id, "slug": "ls-1"})
        }
        ItemType::Scan => {
            json!({"publication": id, "file": "0".repeat(64), "completeness": "complete",
            "preferred": true, "pageLabels": ["i", "1"]})
        }
        ItemType::ContentsMap => {
            json!({"publication": id, "pages": {"from": 3, "to": 9, "scheme": "pdf"}, "unit": id})
        }
        ItemType::TextLayer => {
            json!({"scan": id, "kind": "machine-ocr", "engine": {"name": "tess", "version": "5"}})
        }
        ItemType::TextPage => json!({"layer": id, "page": 1, "proofread": 0,
            "lines": [{"id": "l1", "text": "שורה", "box": [0, 0, 10, 2]}]}),
        ItemType::Text => {
            json!({"kind": "translation", "unit": id, "translationOf": id, "language": "en",
            "licence": "cc-by", "credit": "someone", "body": "one\n\ntwo"})
        }
        ItemType::Segment => json!({"text": id, "order": "a0V", "kind": "paragraph",
            "content": [{"text": "x", "marks": ["b"]}], "proofread": 1}),
        ItemType::Recording => {
            json!({"event": id, "file": "f".repeat(64), "url": "https://a.example/x.mp3",
            "durationMs": 1000, "part": 1, "videos": ["https://v.example/1"]})
        }
        ItemType::Alignment => json!({"recording": id, "text": id, "granularity": "word"}),
        ItemType::AlignmentSpan => {
            json!({"alignment": id, "segment": id, "startMs": 0, "endMs": 500, "locked": true})
        }
        ItemType::Relation => json!({"kind": "cites", "from": id, "to": id}),
        ItemType::Person | ItemType::Place | ItemType::Topic => json!({"name": name, "slug": "x"}),
        ItemType::Source => json!({"name": name, "url": "https://source.example", "terms": "cc0"}),
        ItemType::Schema => json!({"type": "work", "version": 5, "schema": {"type": "object"}}),
        other => panic!("{other} is not built in"),
    }
}

fn pointers(ty: ItemType, data: &Value) -> Vec<String> {
    validate(ty, data)
        .err()
        .unwrap_or_default()
        .into_iter()
        .map(|v| v.pointer)
        .collect()
}

#[test]
fn every_schema_compiles_and_names_itself() {
    // Building the shipped registry compiles every schema (it panics on one that does not).
    for def in TypeRegistry::built_in().iter() {
        let (ty, schema) = (def.ty, &def.schema);
        assert_eq!(schema["$id"], json!(format!("urn:catalog:schema:{ty}")));
        assert_eq!(
            schema["$schema"],
            json!("https://json-schema.org/draft/2020-12/schema")
        );
    }
    assert_eq!(TypeRegistry::built_in().iter().count(), 21);
}

#[test]
fn examples_of_every_kind_are_valid() {
    for ty in ItemType::BUILT_IN {
        let data = example(ty);
        assert_eq!(validate(ty, &data), Ok(()), "{ty}");
    }
}

#[test]
fn shared_fields_are_allowed_on_every_kind() {
    for ty in ItemType::BUILT_IN {
        let mut data = example(ty);
        data["sets"] = json!(["cat-00000001"]);
        data["externalIds"] = json!({"hebrewbooks": "1234"});
        data["sources"] = json!(["cat-00000002"]);
        data["topics"] = json!(["cat-00000003"]);
        data["note"] = json!("checked against the print");
        data["origin"] = json!({"by": "ocr", "checked": false});
        data["somethingNew"] = json!({"any": "thing"});
        assert_eq!(validate(ty, &data), Ok(()), "{ty}");
    }
}

#[test]
fn missing_required_fields_are_reported() {
    let violations = validate(ItemType::Event, &json!({"kind": "farbrengen"})).unwrap_err();
    assert_eq!(violations.len(), 2);
    let mut got: Vec<&str> = violations.iter().map(|v| v.pointer.as_str()).collect();
    got.sort();
    assert_eq!(got, ["/date", "/title"]);
    assert!(
        violations
            .iter()
            .any(|v| v.message == "\"title\" is missing: an event needs it")
    );
}

#[test]
fn a_contents_map_names_a_unit_or_the_words_its_pages_hold() {
    let mut data = example(ItemType::ContentsMap);
    data.as_object_mut().unwrap().remove("unit");
    let violations = validate(ItemType::ContentsMap, &data).unwrap_err();
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0].pointer, "/unit");
    assert_eq!(
        violations[0].message,
        "a contents-map needs one of: unit, label"
    );
    data["label"] = json!({"he": "הקדמה", "en": "Preface"});
    assert_eq!(validate(ItemType::ContentsMap, &data), Ok(()));
    data["label"] = json!({"en": "Preface"});
    assert_eq!(pointers(ItemType::ContentsMap, &data), ["/label/he"]);
}

#[test]
fn a_recording_has_a_file_or_a_url() {
    let mut data = example(ItemType::Recording);
    assert_eq!(validate(ItemType::Recording, &data), Ok(()));
    data.as_object_mut().unwrap().remove("file");
    assert_eq!(validate(ItemType::Recording, &data), Ok(()));
    data.as_object_mut().unwrap().remove("url");
    let violations = validate(ItemType::Recording, &data).unwrap_err();
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0].pointer, "/file");
    assert_eq!(violations[0].message, "a recording needs one of: file, url");
}

#[test]
fn a_text_takes_the_four_licences() {
    let mut data = example(ItemType::Text);
    for licence in ["public-domain", "cc0", "cc-by", "cc-by-nc"] {
        data["licence"] = json!(licence);
        assert_eq!(validate(ItemType::Text, &data), Ok(()), "{licence}");
    }
    for licence in ["cc-by-sa", "all-rights-reserved", "CC0"] {
        data["licence"] = json!(licence);
        assert_eq!(pointers(ItemType::Text, &data), ["/licence"], "{licence}");
    }
    // None given: the writer's own, under CC-BY-SA.
    data.as_object_mut().unwrap().remove("licence");
    assert_eq!(validate(ItemType::Text, &data), Ok(()));
}

#[test]
fn patterns_are_described_not_quoted() {
    let mut data = example(ItemType::Unit);
    data["work"] = json!("work-1");
    data["date"] = json!("5784-6");
    let violations = validate(ItemType::Unit, &data).unwrap_err();
    let message = |at: &str| {
        violations
            .iter()
            .find(|v| v.pointer == at)
            .map(|v| v.message.clone())
            .unwrap()
    };
    assert_eq!(
        message("/work"),
        "\"work-1\" is not an id (cat- and 8 letters or digits)"
    );
    assert!(message("/date").starts_with("\"5784-6\" is not a date key"));
}

#[test]
fn kinds_say_whether_they_hold_words() {
    assert!(has_body(ItemType::Text));
    assert!(has_body(ItemType::Unit));
    assert!(!has_body(ItemType::Scan));
    assert!(!has_body(ItemType::TextPage));
    let mut data = example(ItemType::Scan);
    data["body"] = json!("words");
    let violations = validate(ItemType::Scan, &data).unwrap_err();
    assert_eq!(violations[0].message, "a scan may not hold this field");
}

#[test]
fn wrong_values_point_at_their_place() {
    let mut data = example(ItemType::Unit);
    data["work"] = json!("work-1");
    data["date"] = json!("5784-6");
    data["order"] = json!("0a");
    data["label"] = json!({"he": " "});
    data["kind"] = json!("essay");
    data["position"] = json!([1, "a/b"]);
    let mut got = pointers(ItemType::Unit, &data);
    got.sort();
    assert_eq!(
        got,
        [
            "/date",
            "/kind",
            "/label/he",
            "/order",
            "/position/1",
            "/work"
        ]
    );
}

#[test]
fn closed_shapes_refuse_unknown_fields() {
    let mut data = example(ItemType::Work);
    data["title"] = json!({"he": "x", "fr": "y"});
    assert_eq!(pointers(ItemType::Work, &data), ["/title"]);
    let mut data = example(ItemType::ContentsMap);
    data["pages"]["last"] = json!(3);
    assert_eq!(pointers(ItemType::ContentsMap, &data), ["/pages"]);
}

#[test]
fn bodies_are_checked_in_depth() {
    let mut data = example(ItemType::Event);
    data["body"] = json!({"profile": "outline", "versions": [{"id": "v", "language": "he", "segments": [
        {"id": "s1", "kind": "item", "text": [{"text": "x", "marks": ["script"]}]}
    ]}]});
    let violations = validate(ItemType::Event, &data).unwrap_err();
    assert_eq!(violations.len(), 1);
    assert_eq!(violations[0].pointer, "/body/versions/0/segments/0/text/0");
    assert!(
        violations[0]
            .message
            .contains(r#"mark "script" is not allowed"#)
    );

    let mut data = example(ItemType::Segment);
    data["content"] = json!([{"text": "x", "href": "javascript:x"}]);
    assert_eq!(pointers(ItemType::Segment, &data), ["/content/0/href"]);
}

#[test]
fn a_body_where_none_belongs_is_refused() {
    let mut data = example(ItemType::Scan);
    data["body"] = json!("words");
    assert_eq!(pointers(ItemType::Scan, &data), ["/body"]);
}

#[test]
fn ranges_must_be_in_order() {
    let mut data = example(ItemType::AlignmentSpan);
    data["endMs"] = json!(10);
    data["startMs"] = json!(20);
    let violations = validate(ItemType::AlignmentSpan, &data).unwrap_err();
    assert_eq!(violations[0].pointer, "/endMs");
    assert_eq!(violations[0].message, "endMs 10 is before startMs 20");
    let mut data = example(ItemType::ContentsMap);
    data["pages"] = json!({"from": 5, "to": 4});
    assert_eq!(pointers(ItemType::ContentsMap, &data), ["/pages/to"]);
}

#[test]
fn work_slugs_may_not_take_site_paths() {
    let mut data = example(ItemType::Work);
    data["slug"] = json!("events");
    assert_eq!(pointers(ItemType::Work, &data), ["/slug"]);
    data["slug"] = json!("תניא");
    assert_eq!(validate(ItemType::Work, &data), Ok(()));
}

#[test]
fn non_objects_are_refused() {
    for ty in ItemType::BUILT_IN {
        assert!(validate(ty, &json!([1, 2])).is_err(), "{ty}");
        assert!(validate(ty, &json!(null)).is_err(), "{ty}");
    }
}

#[test]
fn dates_lists_every_date_key_with_its_verdict() {
    let got = dates(ItemType::Event, &json!({"date": "5785-06A-01"}));
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].0, "/date");
    assert_eq!(
        got[0].1.as_ref().unwrap_err().to_string(),
        "date key 5785-06A-01: 5785 is not a leap year: say Adar"
    );
    let got = dates(ItemType::Unit, &example(ItemType::Unit));
    assert_eq!(got[0].1.as_ref().unwrap().to_string(), "5784-06B-14");
    assert!(dates(ItemType::Scan, &json!({"date": "5785"})).is_empty());
    assert!(dates(ItemType::Event, &json!({"date": 5785})).is_empty());
}

#[test]
fn a_span_times_at_most_max_span_words_words() {
    let mut data = example(ItemType::AlignmentSpan);
    data["words"] = json!(vec![json!({"atMs": 10, "locked": false}); MAX_SPAN_WORDS]);
    assert!(validate(ItemType::AlignmentSpan, &data).is_ok());
    data["words"]
        .as_array_mut()
        .unwrap()
        .push(json!({"atMs": 11}));
    assert_eq!(pointers(ItemType::AlignmentSpan, &data), ["/words"]);
}

#[test]
fn a_span_word_says_when_it_is_heard() {
    let mut data = example(ItemType::AlignmentSpan);
    data["words"] = json!([{"atMs": 0, "text": "kept"}, {"atMs": 5, "locked": true}]);
    data["checked"] = json!(true);
    assert!(validate(ItemType::AlignmentSpan, &data).is_ok());
    data["words"] = json!([{"atMs": -1}]);
    assert_eq!(pointers(ItemType::AlignmentSpan, &data), ["/words/0/atMs"]);
    data["words"] = json!([{"atMs": 3, "locked": "yes"}]);
    assert_eq!(
        pointers(ItemType::AlignmentSpan, &data),
        ["/words/0/locked"]
    );
}

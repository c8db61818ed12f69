use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

fn id(n: u64) -> Id {
    Id::from_u64(n).unwrap()
}

fn ref_value(r: &Ref) -> Value {
    json!(r.to_string())
}

fn refs_value(list: &[Ref]) -> Value {
    Value::Array(list.iter().map(ref_value).collect())
}

fn placement_value(p: &Placement) -> Value {
    match p {
        Placement::Start => json!("start"),
        Placement::End => json!("end"),
        Placement::After(r) => json!({ "after": r.to_string() }),
        Placement::Before(r) => json!({ "before": r.to_string() }),
    }
}

fn name_value(n: &Name) -> Value {
    serde_json::to_value(n).unwrap()
}

/// The JSON a client would send for `op` (the inverse of [`Operation::parse`]).
fn to_value(op: &Operation) -> Value {
    let mut v = match op {
        Operation::Move {
            items,
            to,
            from,
            only,
            position,
        } => {
            let mut v = json!({ "items": refs_value(items), "to": to.as_ref().map(ref_value) });
            if let Some(f) = from {
                v["from"] = ref_value(f);
            }
            if *only {
                v["mode"] = json!("only");
            }
            if let Some(p) = position {
                v["position"] = placement_value(p);
            }
            v
        }
        Operation::MoveUp { items, from } => {
            let mut v = json!({ "items": refs_value(items) });
            if let Some(f) = from {
                v["from"] = ref_value(f);
            }
            v
        }
        Operation::Rename {
            item,
            name,
            slug,
            path,
        } => {
            let mut v = json!({ "item": ref_value(item) });
            if let Some(n) = name {
                v["name"] = name_value(n);
            }
            if let Some(s) = slug {
                v["slug"] = json!(s);
            }
            if let Some(p) = path {
                v["path"] = json!(p);
            }
            v
        }
        Operation::Reorder {
            items,
            parent,
            position,
        } => {
            let mut v = json!({ "items": refs_value(items) });
            if let Some(p) = parent {
                v["parent"] = p.as_ref().map_or(Value::Null, ref_value);
            }
            if let Some(p) = position {
                v["position"] = placement_value(p);
            }
            v
        }
        Operation::CreateSet {
            key,
            name,
            slug,
            parent,
            items,
        } => {
            let mut v = json!({ "name": name_value(name), "slug": slug });
            if let Some(k) = key {
                v["key"] = json!(k);
            }
            if let Some(p) = parent {
                v["parent"] = ref_value(p);
            }
            if !items.is_empty() {
                v["items"] = refs_value(items);
            }
            v
        }
        Operation::DeleteSet { item } => json!({ "item": ref_value(item) }),
        Operation::Merge { from, into } => {
            json!({ "from": ref_value(from), "into": ref_value(into) })
        }
        Operation::Split {
            work,
            units,
            title,
            slug,
            key,
        } => {
            let mut v =
                json!({ "work": ref_value(work), "title": name_value(title), "slug": slug });
            match units {
                Selection::Units(list) => v["units"] = refs_value(list),
                Selection::Range { from, to } => {
                    v["range"] = json!({ "from": from.to_string(), "to": to.to_string() });
                }
            }
            if let Some(k) = key {
                v["key"] = json!(k);
            }
            v
        }
    };
    v["op"] = json!(op.name());
    v
}

fn err(v: Value) -> FieldError {
    Operation::parse(&v).expect_err("refused")
}

#[test]
fn reads_every_operation() {
    let a = id(1).to_string();
    let b = id(2).to_string();
    assert_eq!(
        Operation::parse(&json!({ "op": "move", "items": [a, "new:x"], "to": null, "from": b }))
            .unwrap(),
        Operation::Move {
            items: vec![Ref::Id(id(1)), Ref::New("x".into())],
            to: None,
            from: Some(Ref::Id(id(2))),
            only: false,
            position: None,
        }
    );
    assert_eq!(
        Operation::parse(
            &json!({ "op": "reorder", "items": [a], "parent": null, "position": { "after": b } })
        )
        .unwrap(),
        Operation::Reorder {
            items: vec![Ref::Id(id(1))],
            parent: Some(None),
            position: Some(Placement::After(Ref::Id(id(2)))),
        }
    );
    // Ids are read forgivingly, as everywhere else.
    assert_eq!(
        Operation::parse(&json!({ "op": "delete-set", "item": "CAT-0000-0001" })).unwrap(),
        Operation::DeleteSet {
            item: Ref::Id(id(1))
        }
    );
    assert_eq!(
        Operation::parse(&json!({
            "op": "split", "work": a, "range": { "from": b, "to": b },
            "title": { "he": "ב" }, "slug": "two"
        }))
        .unwrap(),
        Operation::Split {
            work: Ref::Id(id(1)),
            units: Selection::Range {
                from: Ref::Id(id(2)),
                to: Ref::Id(id(2))
            },
            title: Name::new("ב", None).unwrap(),
            slug: "two".into(),
            key: None,
        }
    );
}

#[test]
fn refusals_name_the_field() {
    let a = id(1).to_string();
    let cases = [
        (json!({ "items": [a] }), "op"),
        (json!({ "op": "shuffle" }), "op"),
        (json!({ "op": "move", "items": [a] }), "to"),
        (json!({ "op": "move", "items": [], "to": null }), "items"),
        (
            json!({ "op": "move", "items": [a, a], "to": null }),
            "items",
        ),
        (
            json!({ "op": "move", "items": ["cat-nope"], "to": null }),
            "items",
        ),
        (
            json!({ "op": "move", "items": [a], "to": null, "mode": "all" }),
            "mode",
        ),
        (
            json!({ "op": "move", "items": [a], "to": null, "position": "middle" }),
            "position",
        ),
        (
            json!({ "op": "move", "items": [a], "to": null, "colour": 1 }),
            "op",
        ),
        (json!({ "op": "rename", "item": a }), "name"),
        (
            json!({ "op": "rename", "item": a, "name": { "en": "x" } }),
            "name",
        ),
        (json!({ "op": "rename", "item": a, "slug": "  " }), "slug"),
        (json!({ "op": "create-set", "slug": "s" }), "name"),
        (
            json!({ "op": "create-set", "name": { "he": "א" }, "slug": "s", "key": "Bad Key" }),
            "key",
        ),
        (json!({ "op": "merge", "from": a }), "into"),
        (
            json!({ "op": "split", "work": a, "title": { "he": "א" }, "slug": "s" }),
            "units",
        ),
        (
            json!({ "op": "split", "work": a, "units": [a], "range": { "from": a, "to": a },
                    "title": { "he": "א" }, "slug": "s" }),
            "range",
        ),
        (
            json!({ "op": "split", "work": a, "range": { "from": a },
                    "title": { "he": "א" }, "slug": "s" }),
            "range",
        ),
        (json!({ "op": "delete-set", "item": "new:" }), "item"),
    ];
    for (value, field) in cases {
        assert_eq!(err(value.clone()).field, field, "{value}");
    }
}

#[test]
fn items_limit_edges() {
    let list = |n: u64| Value::Array((1..=n).map(|i| json!(id(i).to_string())).collect());
    let ok = Operation::parse(&json!({ "op": "move-up", "items": list(MAX_ITEMS as u64) }));
    assert!(ok.is_ok());
    let over = err(json!({ "op": "move-up", "items": list(MAX_ITEMS as u64 + 1) }));
    assert_eq!(over.field, "items");
    assert!(over.message.contains("1-500"), "{}", over.message);
}

#[test]
fn key_length_edges() {
    let key = |n: usize| "k".repeat(n);
    let make =
        |k: String| json!({ "op": "create-set", "key": k, "name": { "he": "א" }, "slug": "s" });
    assert!(Operation::parse(&make(key(MAX_KEY_CHARS))).is_ok());
    assert_eq!(err(make(key(MAX_KEY_CHARS + 1))).field, "key");
    assert_eq!(err(make(String::new())).field, "key");
}

fn a_ref() -> impl Strategy<Value = Ref> {
    prop_oneof![
        (1u64..1_000_000).prop_map(|n| Ref::Id(id(n))),
        "[a-z0-9][a-z0-9_-]{0,10}".prop_map(Ref::New),
    ]
}

fn refs() -> impl Strategy<Value = Vec<Ref>> {
    proptest::collection::vec(a_ref(), 1..6).prop_map(|mut v| {
        let mut seen = Vec::new();
        v.retain(|r| {
            let fresh = !seen.contains(r);
            seen.push(r.clone());
            fresh
        });
        v
    })
}

fn placement() -> impl Strategy<Value = Placement> {
    prop_oneof![
        Just(Placement::Start),
        Just(Placement::End),
        a_ref().prop_map(Placement::After),
        a_ref().prop_map(Placement::Before),
    ]
}

fn name() -> impl Strategy<Value = Name> {
    ("[א-ת]{1,8}", proptest::option::of("[a-z ]{0,8}"))
        .prop_map(|(he, en)| Name::new(he, en).unwrap())
}

fn text() -> impl Strategy<Value = String> {
    "[a-z0-9/-]{1,12}".prop_filter("not blank", |s| !s.trim().is_empty())
}

fn key() -> impl Strategy<Value = String> {
    "[a-z0-9][a-z0-9_-]{0,10}"
}

fn operation() -> impl Strategy<Value = Operation> {
    prop_oneof![
        (
            refs(),
            proptest::option::of(a_ref()),
            proptest::option::of(a_ref()),
            any::<bool>(),
            proptest::option::of(placement())
        )
            .prop_map(|(items, to, from, only, position)| Operation::Move {
                items,
                to,
                from,
                only,
                position
            }),
        (refs(), proptest::option::of(a_ref()))
            .prop_map(|(items, from)| Operation::MoveUp { items, from }),
        (
            a_ref(),
            proptest::option::of(name()),
            proptest::option::of(text()),
            proptest::option::of(text())
        )
            .prop_filter("something to rename", |(_, n, s, p)| n.is_some()
                || s.is_some()
                || p.is_some())
            .prop_map(|(item, name, slug, path)| Operation::Rename {
                item,
                name,
                slug,
                path
            }),
        (
            refs(),
            proptest::option::of(proptest::option::of(a_ref())),
            proptest::option::of(placement())
        )
            .prop_map(|(items, parent, position)| Operation::Reorder {
                items,
                parent,
                position
            }),
        (
            proptest::option::of(key()),
            name(),
            text(),
            proptest::option::of(a_ref()),
            prop_oneof![Just(Vec::new()), refs()]
        )
            .prop_map(|(key, name, slug, parent, items)| Operation::CreateSet {
                key,
                name,
                slug,
                parent,
                items
            }),
        a_ref().prop_map(|item| Operation::DeleteSet { item }),
        (a_ref(), a_ref()).prop_map(|(from, into)| Operation::Merge { from, into }),
        (
            a_ref(),
            prop_oneof![
                refs().prop_map(Selection::Units),
                (a_ref(), a_ref()).prop_map(|(from, to)| Selection::Range { from, to })
            ],
            name(),
            text(),
            proptest::option::of(key())
        )
            .prop_map(|(work, units, title, slug, key)| Operation::Split {
                work,
                units,
                title,
                slug,
                key
            }),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        "\\PC{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("move"),
            Just("merge"),
            Just("start"),
            Just("new:a"),
            Just("cat-00000001")
        ]
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(
                prop_oneof![
                    Just("op".to_string()),
                    Just("items".to_string()),
                    Just("to".to_string()),
                    Just("from".to_string()),
                    Just("position".to_string()),
                    Just("after".to_string()),
                    "[a-z]{1,6}"
                ],
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn every_operation_reads_back_from_its_json(op in operation()) {
        prop_assert_eq!(Operation::parse(&to_value(&op)), Ok(op));
    }

    #[test]
    fn the_reader_never_panics(value in json_value()) {
        if let Err(e) = Operation::parse(&value) {
            prop_assert!(!e.message.is_empty());
        }
    }
}

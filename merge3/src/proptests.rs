//! Properties of the merge: an untouched side gives the other, equal sides give themselves,
//! edits that do not overlap all land and do not depend on which side made which.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::{merge_item, words};

/// Any JSON value of a few levels, with strings drawn from few words so sides often agree.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        (0i64..4).prop_map(Value::from),
        text().prop_map(Value::from),
        Just(json!("cat-0000000a")),
        Just(json!("cat-0000000b")),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-d]", inner.clone(), 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
            prop::collection::btree_map("[a-d]", inner, 0..3).prop_map(|m| {
                // Keyed lists, the shape lines and segments have.
                Value::Array(
                    m.into_iter()
                        .map(|(id, v)| json!({ "id": id, "v": v }))
                        .collect(),
                )
            }),
        ]
    })
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(vec!["a", "b", "c", "אב"]), 0..5)
        .prop_map(|w| w.join(" "))
}

fn object() -> impl Strategy<Value = Value> {
    prop::collection::btree_map("[a-f]", value(), 0..6)
        .prop_map(|m| Value::Object(m.into_iter().collect()))
}

fn clean(base: &Value, main: &Value, suggestion: &Value) -> Value {
    let out = merge_item(Some(base), Some(main), Some(suggestion), &BTreeMap::new());
    assert!(out.clashes.is_empty(), "{:?}", out.clashes);
    out.data.expect("data")
}

proptest! {
    #[test]
    fn main_unchanged_gives_the_suggestion(b in object(), s in object()) {
        prop_assert_eq!(clean(&b, &b, &s), s);
    }

    #[test]
    fn suggestion_unchanged_gives_main(b in object(), m in object()) {
        prop_assert_eq!(clean(&b, &m, &b), m);
    }

    #[test]
    fn both_sides_equal_give_that_side(b in object(), x in object()) {
        prop_assert_eq!(clean(&b, &x, &x), x);
    }

    /// Main changes some fields, the suggestion others: both land, whichever side is which.
    #[test]
    fn disjoint_field_edits_commute(
        b in object(),
        edits in prop::collection::btree_map("[a-h]", (any::<bool>(), prop::option::of(value())), 0..6),
    ) {
        let base = b.as_object().unwrap();
        let (mut m, mut s) = (base.clone(), base.clone());
        for (key, (main_side, new)) in &edits {
            let side: &mut Map<String, Value> = if *main_side { &mut m } else { &mut s };
            match new {
                Some(v) => side.insert(key.clone(), v.clone()),
                None => side.remove(key),
            };
        }
        let (m, s) = (Value::Object(m), Value::Object(s));
        let one = clean(&b, &m, &s);
        let other = clean(&b, &s, &m);
        prop_assert_eq!(&one, &other);
        for (key, (main_side, _)) in &edits {
            let want = if *main_side { m.get(key) } else { s.get(key) };
            prop_assert_eq!(one.get(key), want, "field {}", key);
        }
    }

    /// Words changed in separate stretches of a text both land, in either order.
    #[test]
    fn disjoint_word_edits_merge_and_commute(
        n in 3usize..12,
        cut in 1usize..10,
        early in prop::collection::vec("[f-h]{1,2}", 0..3),
        late in prop::collection::vec("[f-h]{1,2}", 0..3),
    ) {
        // Distinct words, so each side's diff against the base has one reading.
        let base: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
        let cut = cut.min(n - 2);
        // Main rewrites words before `cut`, the suggestion words after it; word `cut` stays.
        let mut main = early.clone();
        main.extend(base[cut..].iter().cloned());
        let mut suggestion = base[..=cut].to_vec();
        suggestion.extend(late.iter().cloned());
        let (b, m, s) = (base.join(" "), main.join(" "), suggestion.join(" "));
        let mut want = early;
        want.push(base[cut].clone());
        want.extend(late);
        let merged = words::merge(&b, &m, &s);
        prop_assert_eq!(merged.clone(), Some(want.join(" ")));
        prop_assert_eq!(merged, words::merge(&b, &s, &m));
    }

    /// Id lists: main's list less what the suggestion removed, plus what it added.
    #[test]
    fn id_lists_merge_as_sets(
        b in prop::collection::btree_set(0u64..8, 0..6),
        m in prop::collection::btree_set(0u64..8, 0..6),
        s in prop::collection::btree_set(0u64..8, 0..6),
    ) {
        let id = |n: &u64| json!(catalog_schemas::Id::from_u64(*n).unwrap().to_string());
        let list = |set: &BTreeSet<u64>| json!({ "sets": set.iter().map(id).collect::<Vec<_>>() });
        let merged = clean(&list(&b), &list(&m), &list(&s));
        let got: BTreeSet<String> = merged["sets"].as_array().unwrap().iter()
            .map(|v| v.as_str().unwrap().to_string()).collect();
        let want: BTreeSet<String> = m.iter().filter(|n| !b.contains(n) || s.contains(n))
            .chain(s.iter().filter(|n| !b.contains(n)))
            .map(|n| id(n).as_str().unwrap().to_string()).collect();
        prop_assert_eq!(got, want);
    }

    /// Lines edited on one side or the other, never both, all keep their side's text.
    #[test]
    fn lines_edited_on_either_side_merge(
        texts in prop::collection::vec("[a-c]{1,3}", 1..8),
        sides in prop::collection::vec(prop::option::of(any::<bool>()), 8),
    ) {
        let lines = |f: &dyn Fn(usize, &String) -> String| json!({ "lines": texts.iter().enumerate()
            .map(|(i, t)| json!({ "id": format!("l{i}"), "text": f(i, t) })).collect::<Vec<_>>() });
        let b = lines(&|_, t| t.clone());
        let m = lines(&|i, t| if sides[i] == Some(true) { format!("{t}m") } else { t.clone() });
        let s = lines(&|i, t| if sides[i] == Some(false) { format!("{t}s") } else { t.clone() });
        let want = lines(&|i, t| match sides[i] {
            Some(true) => format!("{t}m"),
            Some(false) => format!("{t}s"),
            None => t.clone(),
        });
        prop_assert_eq!(clean(&b, &m, &s), want);
    }
}

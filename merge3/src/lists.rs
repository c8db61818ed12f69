//! Lists that merge deeper than whole: keyed lists (objects with an `id`) element by element,
//! and lists of item ids as sets. Any other list changed two ways is a clash of the whole list.

use std::collections::{HashMap, HashSet};

use catalog_schemas::Id;
use serde_json::Value;

use super::{Merger, child};

/// Merges three versions of a list that both sides changed; a list of a kind that merges only
/// whole is a clash of the whole list.
pub(super) fn merge(
    merger: &mut Merger<'_>,
    ptr: &str,
    base: &[Value],
    main: &[Value],
    suggestion: &[Value],
) -> Option<Value> {
    if let (Some(b), Some(m), Some(s)) = (keyed(base), keyed(main), keyed(suggestion)) {
        return merge_keyed(merger, ptr, &b, &m, &s);
    }
    if let (Some(b), Some(m), Some(s)) = (id_set(base), id_set(main), id_set(suggestion)) {
        return Some(merge_set(&b, &m, &s));
    }
    clash_whole(merger, ptr, base, main, suggestion)
}

fn clash_whole(
    merger: &mut Merger<'_>,
    ptr: &str,
    base: &[Value],
    main: &[Value],
    suggestion: &[Value],
) -> Option<Value> {
    let whole = |list: &[Value]| Value::Array(list.to_vec());
    merger.clash(
        ptr,
        Some(&whole(base)),
        Some(&whole(main)),
        Some(&whole(suggestion)),
    )
}

/// A keyed list read as (id, element) in order; `None` unless every element is an object with a
/// string `id` and no id repeats.
fn keyed(list: &[Value]) -> Option<Vec<(&str, &Value)>> {
    let mut seen = HashSet::with_capacity(list.len());
    list.iter()
        .map(|v| {
            let id = v.as_object()?.get("id")?.as_str()?;
            seen.insert(id).then_some((id, v))
        })
        .collect()
}

/// A list of item ids as (id, the string as written); `None` unless every element is one.
fn id_set(list: &[Value]) -> Option<Vec<(Id, &Value)>> {
    list.iter()
        .map(|v| Some((Id::parse(v.as_str()?).ok()?, v)))
        .collect()
}

/// Main's list without what the suggestion removed, then what the suggestion added, in the
/// suggestion's order: base `[1]`, main `[1, 2]`, suggestion `[3]` gives `[2, 3]`.
fn merge_set(base: &[(Id, &Value)], main: &[(Id, &Value)], suggestion: &[(Id, &Value)]) -> Value {
    let in_base: HashSet<Id> = base.iter().map(|(id, _)| *id).collect();
    let in_suggestion: HashSet<Id> = suggestion.iter().map(|(id, _)| *id).collect();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (id, v) in main {
        let removed = in_base.contains(id) && !in_suggestion.contains(id);
        if !removed && seen.insert(*id) {
            out.push((*v).clone());
        }
    }
    for (id, v) in suggestion {
        if !in_base.contains(id) && seen.insert(*id) {
            out.push((*v).clone());
        }
    }
    Value::Array(out)
}

/// Element by element, matched by id; the order is the order of whichever side rearranged the
/// elements both kept (main's when neither did), with the other side's additions placed after
/// the element they follow on that side. Both sides rearranging differently is a clash of the
/// whole list.
fn merge_keyed(
    merger: &mut Merger<'_>,
    ptr: &str,
    base: &[(&str, &Value)],
    main: &[(&str, &Value)],
    suggestion: &[(&str, &Value)],
) -> Option<Value> {
    let b: HashMap<&str, &Value> = base.iter().copied().collect();
    let m: HashMap<&str, &Value> = main.iter().copied().collect();
    let s: HashMap<&str, &Value> = suggestion.iter().copied().collect();

    let kept_by_all = |list: &[(&str, &Value)]| -> Vec<String> {
        list.iter()
            .map(|(id, _)| *id)
            .filter(|id| b.contains_key(id) && m.contains_key(id) && s.contains_key(id))
            .map(str::to_string)
            .collect()
    };
    let (order_b, order_m, order_s) = (
        kept_by_all(base),
        kept_by_all(main),
        kept_by_all(suggestion),
    );
    let (primary, secondary) = if order_s == order_b {
        (main, suggestion)
    } else if order_m == order_b || order_m == order_s {
        (suggestion, main)
    } else {
        let values = |list: &[(&str, &Value)]| -> Vec<Value> {
            list.iter().map(|(_, v)| (*v).clone()).collect()
        };
        return clash_whole(
            merger,
            ptr,
            &values(base),
            &values(main),
            &values(suggestion),
        );
    };

    let order = interleave(primary, secondary);
    let mut out = Vec::with_capacity(order.len());
    for id in order {
        let at = child(ptr, id);
        let merged = merger.value(
            &at,
            None,
            b.get(id).copied(),
            m.get(id).copied(),
            s.get(id).copied(),
        );
        out.extend(merged);
    }
    Some(Value::Array(out))
}

/// Every id of `primary` in its order, with each id only `secondary` has placed right after the
/// nearest id before it in `secondary` (at the front when there is none).
fn interleave<'a>(primary: &[(&'a str, &Value)], secondary: &[(&'a str, &Value)]) -> Vec<&'a str> {
    let mut order: Vec<&str> = primary.iter().map(|(id, _)| *id).collect();
    let mut placed: HashSet<&str> = order.iter().copied().collect();
    let mut anchor: Option<&str> = None;
    for (id, _) in secondary {
        if placed.insert(id) {
            let at = match anchor {
                Some(a) => order
                    .iter()
                    .position(|x| *x == a)
                    .map_or(order.len(), |i| i + 1),
                None => 0,
            };
            order.insert(at, id);
        }
        anchor = Some(id);
    }
    order
}

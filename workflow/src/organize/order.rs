//! Placing items among their siblings with as few new order keys as possible.
//!
//! Siblings are listed by `(order key, id)`, an item without a key first (the children read
//! model's order). Placing some of them — at the start, at the end, after or before another, or
//! in the places they already hold but in a new order — gives a wanted sequence; this module
//! then hands out keys so that sorting by `(key, id)` yields exactly that sequence, keeping every
//! key that already fits. An item that is not placed keeps its key unless it has none and a
//! keyed item must now come before it: only then does it get one.

use std::collections::{HashMap, HashSet};

use catalog_schemas::{Id, OrderKey};

/// One sibling and its current key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Sibling {
    pub id: Id,
    pub key: Option<OrderKey>,
}

/// Where the placed items go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Spot {
    Start,
    End,
    After(Id),
    Before(Id),
    /// The places the placed items hold now, filled in the order given.
    InPlace,
}

/// Why a placement cannot be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PlaceError {
    /// `after`/`before` names an item that is not a sibling, or is one of the placed items.
    NotASibling(Id),
    /// In place: a placed item is not among the siblings.
    NotPlaced(Id),
}

/// The sort position of a sibling.
fn rank(key: &Option<OrderKey>, id: Id) -> (Option<&OrderKey>, Id) {
    (key.as_ref(), id)
}

/// The siblings sorted as the read models list them.
pub(crate) fn sorted(mut siblings: Vec<Sibling>) -> Vec<Sibling> {
    siblings.sort_by(|a, b| rank(&a.key, a.id).cmp(&rank(&b.key, b.id)));
    siblings
}

/// The sequence wanted after placing `placed` (in that order) at `spot` among `siblings`
/// (sorted). Placed items need not be siblings yet, except in place.
pub(crate) fn wanted(
    siblings: &[Sibling],
    placed: &[Id],
    spot: Spot,
) -> Result<Vec<Id>, PlaceError> {
    let moving: HashSet<Id> = placed.iter().copied().collect();
    let rest: Vec<Id> = siblings
        .iter()
        .map(|s| s.id)
        .filter(|id| !moving.contains(id))
        .collect();
    let at = |anchor: Id| {
        rest.iter()
            .position(|&id| id == anchor)
            .ok_or(PlaceError::NotASibling(anchor))
    };
    let split = match spot {
        Spot::Start => 0,
        Spot::End => rest.len(),
        Spot::After(anchor) => at(anchor)? + 1,
        Spot::Before(anchor) => at(anchor)?,
        Spot::InPlace => {
            if let Some(&missing) = placed
                .iter()
                .find(|id| !siblings.iter().any(|s| s.id == **id))
            {
                return Err(PlaceError::NotPlaced(missing));
            }
            let mut queue = placed.iter().copied();
            let mut out = Vec::with_capacity(siblings.len());
            for s in siblings {
                out.push(if moving.contains(&s.id) {
                    queue.next().unwrap_or(s.id)
                } else {
                    s.id
                });
            }
            return Ok(out);
        }
    };
    let mut out = rest[..split].to_vec();
    out.extend_from_slice(placed);
    out.extend_from_slice(&rest[split..]);
    Ok(out)
}

/// New keys for the items of `sequence` that need one so that `(key, id)` order is `sequence`.
/// `current` holds every item's key now (missing = none); `placed` items are the ones asked to
/// move, whose current key is kept only when it already fits.
pub(crate) fn assign(
    sequence: &[Id],
    current: &HashMap<Id, Option<OrderKey>>,
    placed: &HashSet<Id>,
) -> Vec<(Id, OrderKey)> {
    let key_of = |id: &Id| current.get(id).cloned().flatten();
    let mut out = Vec::new();
    let mut prev: Option<(Option<OrderKey>, Id)> = None;
    for (i, &id) in sequence.iter().enumerate() {
        let key = key_of(&id);
        let above_prev = prev
            .as_ref()
            .is_none_or(|(pk, pid)| rank(&key, id) > rank(pk, *pid));
        let moving = placed.contains(&id);
        if !moving && above_prev {
            prev = Some((key, id));
            continue;
        }
        let lower = prev.as_ref().and_then(|(k, _)| k.clone());
        // The nearest later item that will keep its key bounds this one from above. Unplaced
        // items keep theirs when they sort above what comes before them; a keyless one or one
        // not above `lower` will be given a new key itself, so it bounds nothing.
        let upper = sequence[i + 1..]
            .iter()
            .filter(|j| !placed.contains(j))
            .filter_map(key_of)
            .find(|k| lower.as_ref().is_none_or(|l| k > l));
        let fits = above_prev
            && key
                .as_ref()
                .is_some_and(|k| upper.as_ref().is_none_or(|u| k < u));
        if fits {
            prev = Some((key, id));
            continue;
        }
        // `lower < upper` holds by the choice of `upper`, so this cannot fail.
        let fresh =
            OrderKey::between(lower.as_ref(), upper.as_ref()).unwrap_or_else(|_| OrderKey::first());
        out.push((id, fresh.clone()));
        prev = Some((Some(fresh), id));
    }
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn id(n: u64) -> Id {
        Id::from_u64(n).unwrap()
    }

    fn keys(n: usize) -> Vec<OrderKey> {
        OrderKey::n_between(None, None, n).unwrap()
    }

    /// The order after applying `changes`.
    fn resulting(siblings: &[Sibling], extra: &[Id], changes: &[(Id, OrderKey)]) -> Vec<Id> {
        let mut all: Vec<Sibling> = siblings.to_vec();
        for &e in extra {
            if !all.iter().any(|s| s.id == e) {
                all.push(Sibling { id: e, key: None });
            }
        }
        for s in &mut all {
            if let Some((_, k)) = changes.iter().find(|(i, _)| *i == s.id) {
                s.key = Some(k.clone());
            }
        }
        sorted(all).into_iter().map(|s| s.id).collect()
    }

    fn run(siblings: &[Sibling], placed: &[Id], spot: Spot) -> (Vec<Id>, Vec<(Id, OrderKey)>) {
        let want = wanted(siblings, placed, spot).unwrap();
        let current = siblings.iter().map(|s| (s.id, s.key.clone())).collect();
        let moving = placed.iter().copied().collect();
        let changes = assign(&want, &current, &moving);
        (want, changes)
    }

    #[test]
    fn a_move_to_the_end_touches_only_the_moved_item() {
        let k = keys(3);
        let siblings: Vec<Sibling> = (0..3)
            .map(|i| Sibling {
                id: id(i as u64 + 1),
                key: Some(k[i].clone()),
            })
            .collect();
        let (want, changes) = run(&siblings, &[id(1)], Spot::End);
        assert_eq!(want, vec![id(2), id(3), id(1)]);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].0, id(1));
        assert!(changes[0].1 > k[2]);
    }

    #[test]
    fn items_already_in_place_keep_their_keys() {
        let k = keys(4);
        let siblings: Vec<Sibling> = (0..4)
            .map(|i| Sibling {
                id: id(i as u64 + 1),
                key: Some(k[i].clone()),
            })
            .collect();
        let (_, changes) = run(&siblings, &[id(2), id(3)], Spot::After(id(1)));
        assert!(changes.is_empty());
        let (_, changes) = run(&siblings, &[id(2), id(4)], Spot::InPlace);
        assert!(changes.is_empty());
        let (want, changes) = run(&siblings, &[id(4), id(2)], Spot::InPlace);
        assert_eq!(want, vec![id(1), id(4), id(3), id(2)]);
        assert_eq!(resulting(&siblings, &[], &changes), want);
    }

    #[test]
    fn keyless_siblings_get_keys_only_when_something_must_precede_them() {
        let siblings = vec![
            Sibling {
                id: id(1),
                key: None,
            },
            Sibling {
                id: id(2),
                key: None,
            },
        ];
        // A newcomer at the end needs a key; the keyless ones stay as they are.
        let (want, changes) = run(&siblings, &[id(9)], Spot::End);
        assert_eq!(want, vec![id(1), id(2), id(9)]);
        assert_eq!(changes.iter().map(|c| c.0).collect::<Vec<_>>(), vec![id(9)]);
        // At the start, both keyless siblings must follow a keyed newcomer.
        let (want, changes) = run(&siblings, &[id(9)], Spot::Start);
        assert_eq!(want, vec![id(9), id(1), id(2)]);
        assert_eq!(changes.len(), 3);
        assert_eq!(resulting(&siblings, &[id(9)], &changes), want);
    }

    #[test]
    fn anchors_must_be_other_siblings() {
        let siblings = vec![Sibling {
            id: id(1),
            key: None,
        }];
        assert_eq!(
            wanted(&siblings, &[id(1)], Spot::After(id(1))),
            Err(PlaceError::NotASibling(id(1)))
        );
        assert_eq!(
            wanted(&siblings, &[id(1)], Spot::Before(id(5))),
            Err(PlaceError::NotASibling(id(5)))
        );
        assert_eq!(
            wanted(&siblings, &[id(7)], Spot::InPlace),
            Err(PlaceError::NotPlaced(id(7)))
        );
    }

    /// Siblings with keys drawn from a small pool (so ties happen) or none.
    fn siblings() -> impl Strategy<Value = Vec<Sibling>> {
        proptest::collection::vec(proptest::option::of(0usize..6), 0..10).prop_map(|picks| {
            let pool = keys(6);
            sorted(
                picks
                    .into_iter()
                    .enumerate()
                    .map(|(i, pick)| Sibling {
                        id: id(i as u64 * 7 + 3),
                        key: pick.map(|p| pool[p].clone()),
                    })
                    .collect(),
            )
        })
    }

    fn case() -> impl Strategy<Value = (Vec<Sibling>, Vec<Id>, Spot, Vec<Id>)> {
        siblings().prop_flat_map(|sibs| {
            let n = sibs.len();
            let ids: Vec<Id> = sibs.iter().map(|s| s.id).collect();
            (
                Just(sibs),
                proptest::sample::subsequence(ids.clone(), 0..=n).prop_shuffle(),
                0usize..5,
                proptest::collection::vec(1000u64..1003, 0..3),
                proptest::sample::select(if ids.is_empty() { vec![id(1)] } else { ids }),
            )
                .prop_map(|(sibs, mut placed, spot, newcomers, anchor)| {
                    let mut newcomers: Vec<Id> = newcomers.into_iter().map(id).collect();
                    newcomers.sort();
                    newcomers.dedup();
                    let spot = match spot {
                        0 => Spot::Start,
                        1 => Spot::End,
                        2 => Spot::After(anchor),
                        3 => Spot::Before(anchor),
                        _ => Spot::InPlace,
                    };
                    // In place, only siblings can be placed.
                    if spot == Spot::InPlace {
                        newcomers.clear();
                    }
                    placed.extend(newcomers.iter().copied());
                    placed.retain(|p| !matches!(spot, Spot::After(a) | Spot::Before(a) if a == *p));
                    (sibs, placed, spot, newcomers)
                })
        })
    }

    proptest! {
        #[test]
        fn the_keys_given_sort_into_the_wanted_order((sibs, placed, spot, newcomers) in case()) {
            let Ok(want) = wanted(&sibs, &placed, spot) else {
                // Only an anchor outside the remaining siblings is refused.
                prop_assert!(matches!(spot, Spot::After(_) | Spot::Before(_)));
                return Ok(());
            };
            let current = sibs.iter().map(|s| (s.id, s.key.clone())).collect();
            let moving: HashSet<Id> = placed.iter().copied().collect();
            let changes = assign(&want, &current, &moving);
            prop_assert_eq!(resulting(&sibs, &newcomers, &changes), want.clone());
            // Each item gets at most one key.
            let mut changed: Vec<Id> = changes.iter().map(|c| c.0).collect();
            changed.sort();
            changed.dedup();
            prop_assert_eq!(changed.len(), changes.len());
        }

        #[test]
        fn with_distinct_keys_unplaced_siblings_keep_theirs(
            n in 0usize..10,
            picks in proptest::collection::vec(any::<proptest::sample::Index>(), 0..4),
            spot in 0usize..3,
        ) {
            let k = keys(n);
            let sibs: Vec<Sibling> = (0..n)
                .map(|i| Sibling { id: id(i as u64 + 1), key: Some(k[i].clone()) })
                .collect();
            let mut placed: Vec<Id> = Vec::new();
            if n > 0 {
                for p in picks {
                    let chosen = sibs[p.index(n)].id;
                    if !placed.contains(&chosen) {
                        placed.push(chosen);
                    }
                }
            }
            let spot = [Spot::Start, Spot::End, Spot::InPlace][spot];
            let (want, changes) = run(&sibs, &placed, spot);
            prop_assert!(changes.iter().all(|(i, _)| placed.contains(i)));
            prop_assert_eq!(resulting(&sibs, &[], &changes), want);
        }
    }
}

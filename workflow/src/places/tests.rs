use serde_json::json;

use super::*;
use crate::UserClass;
use crate::tests::{Harness, class};

fn new(kind: PlaceKind, key: &str) -> NewPlace {
    NewPlace {
        kind,
        key: key.to_string(),
        title: format!("title of {key}"),
        href: format!("/read/{key}"),
        sub: None,
        place: json!({ "segment": key, "offset": 3 }),
    }
}

fn all(h: &Harness, p: &Principal, kind: Option<PlaceKind>) -> Vec<String> {
    let q = PlaceQuery {
        kind,
        key: None,
        limit: MAX_PLACES,
    };
    h.wf.places(p, &q)
        .unwrap()
        .into_iter()
        .map(|p| p.key)
        .collect()
}

#[test]
fn the_sixty_first_put_drops_the_oldest_of_its_kind_only() {
    let h = Harness::new();
    let p = h.writer("reader", false);
    h.wf.put_place(&p, new(PlaceKind::Listen, "kept")).unwrap();
    for n in 0..MAX_PLACES {
        h.wf.put_place(&p, new(PlaceKind::Read, &format!("k{n}")))
            .unwrap();
    }
    assert_eq!(all(&h, &p, Some(PlaceKind::Read)).len(), MAX_PLACES);
    h.wf.put_place(&p, new(PlaceKind::Read, "k60")).unwrap();
    let read = all(&h, &p, Some(PlaceKind::Read));
    assert_eq!(read.len(), MAX_PLACES);
    assert_eq!(read[0], "k60");
    assert!(!read.contains(&"k0".to_string()), "the oldest went");
    assert_eq!(read.last().unwrap(), "k1");
    assert_eq!(all(&h, &p, Some(PlaceKind::Listen)), ["kept"]);
    // Putting a kept key again moves it to the top and drops nothing.
    h.wf.put_place(&p, new(PlaceKind::Read, "k1")).unwrap();
    let read = all(&h, &p, Some(PlaceKind::Read));
    assert_eq!((read.len(), read[0].as_str()), (MAX_PLACES, "k1"));
    assert!(read.contains(&"k2".to_string()));
}

#[test]
fn puts_at_one_moment_keep_their_order() {
    let h = Harness::new();
    let p = h.writer("reader", false);
    for key in ["a", "c", "b"] {
        h.wf.put_place(&p, new(PlaceKind::Read, key)).unwrap();
    }
    h.clock.advance_millis(1);
    h.wf.put_place(&p, new(PlaceKind::Listen, "z")).unwrap();
    assert_eq!(all(&h, &p, None), ["z", "b", "c", "a"]);
    assert_eq!(all(&h, &p, Some(PlaceKind::Read)), ["b", "c", "a"]);
}

#[test]
fn sizes_are_refused_past_their_edges_and_nothing_is_written() {
    let h = Harness::new();
    let p = h.writer("reader", false);
    let at_edges = NewPlace {
        key: "k".repeat(MAX_PLACE_KEY),
        title: "ת".repeat(MAX_PLACE_TITLE),
        href: "h".repeat(MAX_PLACE_HREF),
        sub: Some("s".repeat(MAX_PLACE_SUB)),
        ..new(PlaceKind::Read, "x")
    };
    h.wf.put_place(&p, at_edges.clone()).unwrap();
    let refused = [
        NewPlace {
            key: "k".repeat(MAX_PLACE_KEY + 1),
            ..at_edges.clone()
        },
        NewPlace {
            key: String::new(),
            ..at_edges.clone()
        },
        NewPlace {
            title: "ת".repeat(MAX_PLACE_TITLE + 1),
            ..at_edges.clone()
        },
        NewPlace {
            href: "h".repeat(MAX_PLACE_HREF + 1),
            ..at_edges.clone()
        },
        NewPlace {
            sub: Some(String::new()),
            ..at_edges.clone()
        },
        NewPlace {
            place: json!([1]),
            ..at_edges.clone()
        },
    ];
    for place in refused {
        assert_eq!(
            class(h.wf.put_place(&p, place)),
            Some(UserClass::BadRequest)
        );
    }
    assert_eq!(all(&h, &p, None).len(), 1);
}

#[test]
fn the_place_object_is_capped_in_bytes_and_depth() {
    let h = Harness::new();
    let p = h.writer("reader", false);
    // {"a":"…"} is 8 bytes around the string.
    let fits = json!({ "a": "x".repeat(MAX_PLACE_BYTES - 8) });
    assert_eq!(serde_json::to_vec(&fits).unwrap().len(), MAX_PLACE_BYTES);
    let mut place = new(PlaceKind::Read, "x");
    place.place = fits;
    h.wf.put_place(&p, place.clone()).unwrap();
    place.place = json!({ "a": "x".repeat(MAX_PLACE_BYTES - 7) });
    assert_eq!(
        class(h.wf.put_place(&p, place.clone())),
        Some(UserClass::BadRequest)
    );
    let mut deep = json!({});
    for _ in 1..MAX_PLACE_DEPTH {
        deep = json!({ "d": deep });
    }
    place.place = deep.clone();
    h.wf.put_place(&p, place.clone()).unwrap();
    place.place = json!({ "d": deep });
    let e = h.wf.put_place(&p, place).unwrap_err().to_string();
    assert!(e.contains("nests deeper than 8"), "{e}");
}

#[test]
fn a_read_token_may_not_put_or_delete() {
    let h = Harness::new();
    let p = h.writer("reader", false);
    h.wf.put_place(&p, new(PlaceKind::Read, "a")).unwrap();
    let read = Principal {
        scopes: catalog_identity::Scopes::READ,
        ..p.clone()
    };
    assert_eq!(
        class(h.wf.put_place(&read, new(PlaceKind::Read, "b"))),
        Some(UserClass::Forbidden)
    );
    assert_eq!(
        class(h.wf.delete_place(&read, PlaceKind::Read, "a")),
        Some(UserClass::Forbidden)
    );
    h.wf.delete_place(&p, PlaceKind::Read, "a").unwrap();
    assert_eq!(
        class(h.wf.delete_place(&p, PlaceKind::Read, "a")),
        Some(UserClass::NotFound)
    );
    assert!(all(&h, &p, None).is_empty());
}

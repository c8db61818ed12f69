use serde_json::json;

use super::*;
use crate::testutil::*;

fn board(t: &Fixture, kind: MissingKind, within: Option<&str>) -> Vec<Id> {
    let within = within.map(|w| DateKey::parse(w).unwrap());
    let (entries, next) = t.rm.missing(kind, within.as_ref(), None, 100).unwrap();
    assert!(next.is_none());
    entries.into_iter().map(|e| e.item.id).collect()
}

fn counts(t: &Fixture, kind: MissingKind, year: Option<u16>) -> (u64, u64) {
    let c = t.rm.missing_counts(kind, year).unwrap();
    (c.total, c.missing)
}

fn farbrengen(date: &str) -> Value {
    json!({"kind": "farbrengen", "title": format!("farbrengen {date}"), "date": date})
}

#[test]
fn farbrengens_leave_and_rejoin_the_boards_as_recordings_and_texts_come_and_go() {
    let t = Fixture::new();
    let (a, b, c, other) = (t.id(), t.id(), t.id(), t.id());
    t.commit(vec![
        t.put(a, "event", None, farbrengen("5785-07-11")),
        t.put(b, "event", None, farbrengen("5784-01-10")),
        t.put(c, "event", None, farbrengen("5785-01-13")),
        t.put(
            other,
            "event",
            None,
            json!({"kind": "yechidus", "title": "y", "date": "5785-02-02"}),
        ),
    ]);
    assert_eq!(board(&t, MissingKind::Recordings, None), vec![b, c, a]);
    assert_eq!(board(&t, MissingKind::Recordings, Some("5785")), vec![c, a]);
    assert_eq!(board(&t, MissingKind::Recordings, Some("5785-07")), vec![a]);
    assert_eq!(counts(&t, MissingKind::Recordings, None), (3, 3));
    assert_eq!(counts(&t, MissingKind::Texts, Some(5785)), (2, 2));

    // A recording takes its event off the recordings board only; a translation is no text of it.
    let (rec, transcript, translation) = (t.id(), t.id(), t.id());
    t.commit(vec![
        t.put(
            rec,
            "recording",
            None,
            json!({"event": a.to_string(), "url": "https://x.org/a"}),
        ),
        t.put(
            translation,
            "text",
            None,
            json!({"kind": "translation", "language": "en", "event": b.to_string()}),
        ),
    ]);
    assert_eq!(board(&t, MissingKind::Recordings, None), vec![b, c]);
    assert_eq!(board(&t, MissingKind::Texts, None), vec![b, c, a]);
    assert_eq!(counts(&t, MissingKind::Recordings, Some(5785)), (2, 1));
    assert!(!t.rm.is_missing(MissingKind::Recordings, a).unwrap());
    assert!(t.rm.is_missing(MissingKind::Texts, a).unwrap());

    t.commit(vec![t.put(
        transcript,
        "text",
        None,
        json!({"kind": "transcript", "language": "yi", "event": b.to_string()}),
    )]);
    assert_eq!(board(&t, MissingKind::Texts, None), vec![c, a]);

    // The recording pointed elsewhere, then deleted: its events come back.
    t.commit(vec![t.put(
        rec,
        "recording",
        None,
        json!({"event": c.to_string(), "url": "https://x.org/a"}),
    )]);
    assert_eq!(board(&t, MissingKind::Recordings, None), vec![b, a]);
    t.commit(vec![t.delete(rec, "recording")]);
    assert_eq!(board(&t, MissingKind::Recordings, None), vec![b, c, a]);

    // A date that moves moves the entry and its year's counters; a kind that stops being a
    // farbrengen leaves the board.
    t.commit(vec![t.put(c, "event", None, farbrengen("5786-01-13"))]);
    assert_eq!(board(&t, MissingKind::Recordings, Some("5786")), vec![c]);
    assert_eq!(counts(&t, MissingKind::Recordings, Some(5785)), (1, 1));
    assert_eq!(counts(&t, MissingKind::Recordings, Some(5786)), (1, 1));
    t.commit(vec![t.put(
        c,
        "event",
        None,
        json!({"kind": "other", "title": "c", "date": "5786-01-13"}),
    )]);
    assert_eq!(board(&t, MissingKind::Recordings, None), vec![b, a]);
    assert_eq!(counts(&t, MissingKind::Recordings, None), (2, 2));
    t.commit(vec![t.delete(a, "event")]);
    assert_eq!(counts(&t, MissingKind::Recordings, None), (1, 1));
}

#[test]
fn a_recording_before_its_event_keeps_the_event_off_the_board() {
    let t = Fixture::new();
    let (ev, rec) = (t.id(), t.id());
    t.commit(vec![t.put(
        rec,
        "recording",
        None,
        json!({"event": ev.to_string(), "url": "https://x.org/a"}),
    )]);
    t.commit(vec![t.put(ev, "event", None, farbrengen("5785-07-11"))]);
    assert!(board(&t, MissingKind::Recordings, None).is_empty());
    assert_eq!(counts(&t, MissingKind::Recordings, None), (1, 0));
}

#[test]
fn sefarim_without_scans_and_files_lost_upstream() {
    let t = Fixture::new();
    let (book, letter, scan) = (t.id(), t.id(), t.id());
    t.commit(vec![
        t.put(
            book,
            "publication",
            None,
            json!({"kind": "volume", "title": "book"}),
        ),
        t.put(
            letter,
            "publication",
            None,
            json!({"kind": "document", "title": "letter"}),
        ),
    ]);
    assert_eq!(board(&t, MissingKind::Scans, None), vec![book]);
    let sha = "a".repeat(64);
    t.commit(vec![t.put(
        scan,
        "scan",
        None,
        json!({"publication": book.to_string(), "file": sha}),
    )]);
    assert!(board(&t, MissingKind::Scans, None).is_empty());
    assert!(board(&t, MissingKind::Files, None).is_empty());
    assert_eq!(counts(&t, MissingKind::Files, None), (1, 0));

    t.commit(vec![t.put(
        scan,
        "scan",
        None,
        json!({"publication": book.to_string(), "file": sha, "upstream": {"lost": true}}),
    )]);
    assert_eq!(board(&t, MissingKind::Files, None), vec![scan]);
    assert_eq!(counts(&t, MissingKind::Files, None), (1, 1));
    t.commit(vec![t.delete(scan, "scan")]);
    assert!(board(&t, MissingKind::Files, None).is_empty());
    assert_eq!(board(&t, MissingKind::Scans, None), vec![book]);
    assert_eq!(counts(&t, MissingKind::Files, None), (0, 0));
}

#[test]
fn pages_follow_their_cursor() {
    let t = Fixture::new();
    let ids: Vec<Id> = (0..5).map(|_| t.id()).collect();
    t.commit(
        ids.iter()
            .enumerate()
            .map(|(i, id)| t.put(*id, "event", None, farbrengen(&format!("5785-07-1{i}"))))
            .collect(),
    );
    let within = DateKey::parse("5785").unwrap();
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let (page, next) =
            t.rm.missing(MissingKind::Recordings, Some(&within), after.as_deref(), 2)
                .unwrap();
        seen.extend(page.iter().map(|e| e.item.id));
        assert!(page.iter().all(|e| e.date.is_some()));
        match next {
            Some(n) => after = Some(n),
            None => break,
        }
    }
    assert_eq!(seen, ids);
}

proptest::proptest! {
    #[test]
    fn kind_accepts_only_its_four_words(s in "[a-z]{0,12}") {
        let parsed = s.parse::<MissingKind>();
        let known = ["recordings", "texts", "scans", "files"].contains(&s.as_str());
        proptest::prop_assert_eq!(parsed.is_ok(), known);
    }
}

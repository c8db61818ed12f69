//! Bounded waits: for a suggestion another request holds, and for the read models after a merge.

use std::time::{Duration, Instant};

use crate::suggestions::PostReview;
use crate::tests::World;
use crate::{Error, Refusal, Resolutions, Status};

#[test]
fn a_held_suggestion_is_waited_for_only_so_long() {
    let w = World::new();
    let (id, _) = w.open_topic("held");
    w.h.wf.set_suggestion_lock_wait(Duration::from_millis(50));
    let held = w.h.wf.suggestion_lock(id.0).unwrap();
    let started = Instant::now();
    let refused = w.h.wf.send_back(&w.keeper, id);
    assert!(
        matches!(&refused, Err(e @ Error::Refused(Refusal::Busy { .. })) if e.to_string().contains("another request")),
        "{refused:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    drop(held);
    assert_eq!(
        w.h.wf.send_back(&w.keeper, id).unwrap().status,
        Status::SentBack
    );
}

#[test]
fn send_back_clears_a_pending_post_review() {
    let w = World::new();
    let (id, _) = w.open_topic("live");
    // A line fix marked for a live merge that did not happen (its approval failed).
    w.h.wf
        .set_post_review(id, Some(PostReview::Pending))
        .unwrap();
    let back = w.h.wf.send_back(&w.keeper, id).unwrap();
    assert_eq!((back.status, back.post_review), (Status::SentBack, None));
    let stored = w.h.wf.suggestion(id).unwrap().unwrap();
    assert_eq!(stored.post_review, None, "cleared in the store too");
}

#[test]
fn a_merge_that_stops_waiting_still_answers_merged() {
    let w = World::new();
    let (id, _) = w.open_topic("quick");
    w.h.wf.set_merge_wait(Duration::ZERO);
    let merged = w.h.wf.approve(&w.keeper, id, &Resolutions::none()).unwrap();
    assert_eq!(merged.status, Status::Merged);
    assert!(merged.not_yet_visible);
    let stored = w.h.wf.suggestion(id).unwrap().unwrap();
    assert_eq!(stored.status, Status::Merged);
    assert!(!stored.not_yet_visible, "the flag is never stored");
}

#[test]
fn only_a_call_that_says_so_leaves_the_merge_wait_to_its_caller() {
    let w = World::new();
    w.h.wf.set_merge_wait(Duration::ZERO);
    let (first, _) = w.open_topic("left-to-caller");
    let merged = w.h.wf.leaving_merge_waits_to_caller(|wf| {
        wf.approve(&w.keeper, first, &Resolutions::none()).unwrap()
    });
    assert_eq!(merged.status, Status::Merged);
    assert!(
        !merged.not_yet_visible,
        "workflow did not wait, so it has no note"
    );
    // The next call on the same thread waits in workflow again (here: zero, so the note).
    let (second, _) = w.open_topic("waited-for");
    let merged =
        w.h.wf
            .approve(&w.keeper, second, &Resolutions::none())
            .unwrap();
    assert!(merged.not_yet_visible);
}

use catalog_schemas::ItemType;
use serde_json::json;

use crate::tests::Harness;
use crate::{
    Handle, ListFilter, Principal, PutItem, Resolutions, StateFilter, Status, SuggestionId,
    SuggestionPage,
};

/// An open suggestion adding one set (a set needs no other item, so its checks pass).
fn open(h: &Harness, author: &Principal, title: &str, slug: &str) -> SuggestionId {
    let id = h.wf.create_draft(author, title, None).unwrap().id;
    let put = PutItem {
        id: None,
        ty: Some(ItemType::Set),
        data: Some(json!({ "name": { "he": "אוסף" }, "slug": slug })),
    };
    h.wf.put_item(author, id, put).unwrap();
    h.wf.submit(author, id).unwrap();
    id
}

fn filter(state: StateFilter) -> ListFilter {
    ListFilter {
        state,
        author: None,
        reviewer: None,
        words: Vec::new(),
    }
}

fn ids(page: &SuggestionPage) -> Vec<u64> {
    page.items.iter().map(|l| l.suggestion.id.0).collect()
}

/// Suggestions 1-6: a draft, open, merged by the steward, withdrawn, sent back, open by the
/// steward.
struct World {
    h: Harness,
}

impl World {
    fn new() -> World {
        let h = Harness::new();
        let steward = h.writer("steward", true);
        let editor = h.writer("editor", false);
        h.wf.create_draft(&editor, "a draft nobody sees", None)
            .unwrap();
        open(&h, &editor, "Spelling of Rashi", "a");
        let merged = open(&h, &editor, "new set of seforim", "b");
        h.wf.approve(&steward, merged, &Resolutions::none())
            .unwrap();
        let withdrawn = open(&h, &editor, "withdrawn idea", "c");
        h.wf.withdraw(&editor, withdrawn).unwrap();
        let back = open(&h, &editor, "needs work", "d");
        h.wf.send_back(&steward, back).unwrap();
        open(&h, &steward, "steward's own rashi fix", "e");
        World { h }
    }

    fn list(&self, filter: &ListFilter, before: Option<u64>, limit: usize) -> SuggestionPage {
        self.h
            .wf
            .list_suggestions(filter, before.map(SuggestionId), limit)
            .unwrap()
    }
}

#[test]
fn states_never_show_drafts_and_count_sent_back_as_open() {
    let w = World::new();
    assert_eq!(
        ids(&w.list(&filter(StateFilter::Open), None, 50)),
        [6, 5, 2]
    );
    assert_eq!(ids(&w.list(&filter(StateFilter::Closed), None, 50)), [4, 3]);
    let all = w.list(&filter(StateFilter::All), None, 50);
    assert_eq!(ids(&all), [6, 5, 4, 3, 2]);
    assert_eq!((all.counts.open, all.counts.closed), (3, 2));
    assert!(all.next.is_none());
    let exact = w.list(&filter(StateFilter::Exactly(Status::SentBack)), None, 50);
    assert_eq!(ids(&exact), [5]);
    let drafts = w.list(&filter(StateFilter::Exactly(Status::Draft)), None, 50);
    assert!(drafts.items.is_empty());
}

#[test]
fn counts_follow_author_and_words_but_not_state() {
    let w = World::new();
    let mut f = filter(StateFilter::Closed);
    f.author = Some(Handle::parse("steward").unwrap());
    let page = w.list(&f, None, 50);
    assert!(page.items.is_empty());
    assert_eq!((page.counts.open, page.counts.closed), (1, 0));

    let mut f = filter(StateFilter::All);
    f.words = ListFilter::words_of("  RASHI ");
    let page = w.list(&f, None, 50);
    assert_eq!(ids(&page), [6, 2]);
    assert_eq!((page.counts.open, page.counts.closed), (2, 0));

    // Every word must appear.
    f.words = ListFilter::words_of("rashi spelling");
    assert_eq!(ids(&w.list(&f, None, 50)), [2]);
}

#[test]
fn reviewer_is_who_reviewed() {
    let w = World::new();
    let mut f = filter(StateFilter::All);
    let steward = Handle::parse("steward").unwrap();
    f.reviewer = Some(steward.clone());
    let page = w.list(&f, None, 50);
    // The steward sent 5 back and merged 3: both are reviews.
    assert_eq!(ids(&page), [5, 3]);
    let (back, merged) = (&page.items[0], &page.items[1]);
    assert_eq!(back.reviewers, std::slice::from_ref(&steward));
    assert_eq!((back.approvals, back.changes_requested), (0, true));
    assert_eq!(merged.reviewers, [steward]);
    assert_eq!((merged.approvals, merged.changes_requested), (1, false));
    assert_eq!(merged.comments, 0);
    f.reviewer = Some(Handle::parse("editor").unwrap());
    assert!(w.list(&f, None, 50).items.is_empty());
}

#[test]
fn pages_run_newest_first_without_gaps() {
    let w = World::new();
    let f = filter(StateFilter::All);
    let first = w.list(&f, None, 2);
    assert_eq!(ids(&first), [6, 5]);
    assert_eq!(first.next, Some(SuggestionId(5)));
    let second = w.list(&f, first.next.map(|n| n.0), 2);
    assert_eq!(ids(&second), [4, 3]);
    let third = w.list(&f, second.next.map(|n| n.0), 2);
    assert_eq!(ids(&third), [2]);
    assert!(third.next.is_none());
    // Counts are for the whole list on every page.
    assert_eq!((third.counts.open, third.counts.closed), (3, 2));
}

/// The workflow opened again on the same store, as a restart would (the backfill runs on open).
fn reopen(h: &Harness) -> crate::Workflow {
    crate::Workflow::open_with_clock(
        &h.store,
        &h.log,
        &h.projector,
        &h.read_models,
        h.clock.clone(),
    )
    .unwrap()
}

/// Every key of the list indexes, and the list counters, as the store holds them.
fn index_state(h: &Harness) -> Vec<(&'static str, Vec<u8>, Vec<u8>)> {
    let kv = h.wf.kv();
    let mut out = Vec::new();
    for cf in [
        crate::lists::SUGGESTION_LISTS,
        crate::lists::ISSUE_LISTS,
        crate::lists::REFERENCES,
    ] {
        for (k, v) in kv.scan_raw(cf).unwrap() {
            out.push((cf, k, v));
        }
    }
    for (k, v) in kv.scan_raw(crate::kv::COUNTERS).unwrap() {
        if k.starts_with(b"suggestion-lists/") || k.starts_with(b"issue-lists/") {
            out.push((crate::kv::COUNTERS, k, v));
        }
    }
    out
}

#[test]
fn a_store_without_the_list_indexes_gets_them_on_open() {
    let w = World::new();
    let h = &w.h;
    let steward = h.session(&Handle::parse("steward").unwrap());
    h.wf.open_issue(
        &steward,
        crate::NewIssue {
            title: "an issue #2 mentions".into(),
            body: None,
            kind: None,
            entity: None,
            labels: Vec::new(),
            private: None,
        },
    )
    .unwrap();
    let written = index_state(h);
    assert!(written.len() > 20, "{}", written.len());
    let before = w.list(&filter(StateFilter::All), None, 50);

    // The layout before the indexes: the records only.
    let kv = h.wf.kv();
    for (cf, key, _) in &written {
        kv.delete(cf, key).unwrap();
    }
    kv.delete(crate::kv::META, b"lists-indexed").unwrap();
    assert!(index_state(h).is_empty());
    assert!(w.list(&filter(StateFilter::All), None, 50).items.is_empty());

    let reopened = reopen(h);
    assert_eq!(
        index_state(h),
        written,
        "the backfill writes what the writes did"
    );
    let after = reopened
        .list_suggestions(&filter(StateFilter::All), None, 50)
        .unwrap();
    assert_eq!(after, before);
}

#[test]
fn counters_follow_state_changes() {
    let w = World::new();
    let steward = w.h.session(&Handle::parse("steward").unwrap());
    let page = w.list(&filter(StateFilter::Open), None, 50);
    assert_eq!((page.counts.open, page.counts.closed), (3, 2));
    w.h.wf.withdraw(&steward, SuggestionId(6)).unwrap();
    let page = w.list(&filter(StateFilter::Open), None, 50);
    assert_eq!(ids(&page), [5, 2]);
    assert_eq!((page.counts.open, page.counts.closed), (2, 3));
    let mut mine = filter(StateFilter::Open);
    mine.author = Some(Handle::parse("steward").unwrap());
    let page = w.list(&mine, None, 50);
    assert_eq!((page.counts.open, page.counts.closed), (0, 1));
}

#[test]
fn an_examination_stops_at_its_bound_and_its_cursor_goes_on() {
    let h = Harness::new();
    let authors = [h.account("someone", false)];
    let reviewers = [h.account("looker", false)];
    let total = 2 * crate::EXAMINE_LIMIT as u64 + 10;
    h.wf.generate(&crate::Generate {
        suggestions: total,
        issues: 1,
        authors: &authors,
        reviewers: &reviewers,
        set: None,
    })
    .unwrap();
    // Generated suggestions 0, 1000, ... 4000 (ids one more) have w0 in their titles.
    let mut f = filter(StateFilter::All);
    f.words = ListFilter::words_of("w0");
    let mut seen = Vec::new();
    let mut before = None;
    let mut pages = 0;
    loop {
        let page = h.wf.list_suggestions(&f, before, 50).unwrap();
        pages += 1;
        seen.extend(ids(&page));
        match page.next {
            Some(next) => before = Some(next),
            None => break,
        }
    }
    assert_eq!(seen, [4001, 3001, 2001, 1001, 1]);
    assert_eq!(pages, 3, "two bounded examinations, then the rest");
    // A threads word search looks at the newest EXAMINE_LIMIT numbers only: of generated
    // 999, 1999, 2999 and 3999 it finds the last two.
    let found = h.wf.find_threads(None, "w999", 10).unwrap();
    let numbers: Vec<u64> = found.iter().map(|t| t.id).collect();
    assert_eq!(numbers, [4000, 3000]);
}

/// The ids under one reviewer scope and class of the suggestion index, newest first.
fn reviewer_ids(h: &Harness, handle: &str, class: u8) -> Vec<u64> {
    let mut out = Vec::new();
    crate::lists::walk(
        h.wf.kv(),
        crate::lists::SUGGESTION_LISTS,
        &crate::lists::prefix(&crate::lists::reviewer_scope(handle), class),
        None,
        100,
        |id| {
            out.push(id);
            Ok(crate::lists::Step::Go)
        },
    )
    .unwrap();
    out
}

fn by_reviewer(state: StateFilter, handle: &str) -> ListFilter {
    ListFilter {
        reviewer: Some(Handle::parse(handle).unwrap()),
        ..filter(state)
    }
}

#[test]
fn reviewer_entries_move_with_the_state_and_are_counted_by_counters() {
    use crate::lists::{ANY, CLOSED, OPEN};
    let w = World::new();
    let h = &w.h;
    let editor = h.session(&Handle::parse("editor").unwrap());
    let looker = Handle::parse("looker").unwrap();
    h.writer("looker", false);
    // Asked on a draft: listed in `a` only, and counted nowhere.
    let draft = h.wf.create_draft(&editor, "asked early", None).unwrap().id;
    h.wf.put_item(
        &editor,
        draft,
        PutItem {
            id: None,
            ty: Some(ItemType::Set),
            data: Some(json!({ "name": { "he": "אוסף" }, "slug": "f" })),
        },
    )
    .unwrap();
    for id in [SuggestionId(2), SuggestionId(5), draft] {
        h.wf.request_reviews(&editor, id, std::slice::from_ref(&looker))
            .unwrap();
    }
    assert_eq!(reviewer_ids(h, "looker", ANY), [draft.0, 5, 2]);
    assert_eq!(reviewer_ids(h, "looker", OPEN), [5, 2]);
    let page = w.list(&by_reviewer(StateFilter::Open, "looker"), None, 50);
    assert_eq!(ids(&page), [5, 2]);
    assert_eq!((page.counts.open, page.counts.closed), (2, 0));

    // Submitted, the draft joins the open class.
    h.wf.submit(&editor, draft).unwrap();
    assert_eq!(reviewer_ids(h, "looker", OPEN), [draft.0, 5, 2]);
    // Withdrawn, 2 moves to the closed class in the same write.
    h.wf.withdraw(&editor, SuggestionId(2)).unwrap();
    assert_eq!(reviewer_ids(h, "looker", OPEN), [draft.0, 5]);
    assert_eq!(reviewer_ids(h, "looker", CLOSED), [2]);
    let page = w.list(&by_reviewer(StateFilter::Closed, "looker"), None, 50);
    assert_eq!(ids(&page), [2]);
    assert_eq!((page.counts.open, page.counts.closed), (2, 1));

    // A request taken back takes the entries and the count off.
    h.wf.remove_review_request(&editor, SuggestionId(5), &looker)
        .unwrap();
    assert_eq!(reviewer_ids(h, "looker", ANY), [draft.0, 2]);
    assert_eq!(reviewer_ids(h, "looker", OPEN), [draft.0]);
    let page = w.list(&by_reviewer(StateFilter::All, "looker"), None, 50);
    assert_eq!(ids(&page), [draft.0, 2]);
    assert_eq!((page.counts.open, page.counts.closed), (1, 1));

    // The steward reviewed 5 (sent back: open) and 3 (merged: closed); a review keeps a
    // reviewer listed when a request is taken back.
    assert_eq!(reviewer_ids(h, "steward", OPEN), [5]);
    assert_eq!(reviewer_ids(h, "steward", CLOSED), [3]);
    let steward = Handle::parse("steward").unwrap();
    h.wf.request_reviews(&editor, SuggestionId(5), std::slice::from_ref(&steward))
        .unwrap();
    h.wf.remove_review_request(&editor, SuggestionId(5), &steward)
        .unwrap();
    assert_eq!(reviewer_ids(h, "steward", OPEN), [5]);
    let page = w.list(&by_reviewer(StateFilter::Open, "steward"), None, 50);
    assert_eq!(ids(&page), [5]);
    assert_eq!((page.counts.open, page.counts.closed), (1, 1));
}

#[test]
fn a_review_under_a_new_handle_answers_the_request_to_the_old_one() {
    use crate::lists::{ANY, OPEN};
    let w = World::new();
    let h = &w.h;
    let editor = h.session(&Handle::parse("editor").unwrap());
    h.writer("looker", false);
    h.wf.request_reviews(
        &editor,
        SuggestionId(2),
        &[Handle::parse("looker").unwrap()],
    )
    .unwrap();
    h.wf.identity()
        .rename(
            &Handle::parse("looker").unwrap(),
            &Handle::parse("looker-now").unwrap(),
        )
        .unwrap();
    let renamed = h.session(&Handle::parse("looker-now").unwrap());
    h.wf.review(
        &renamed,
        SuggestionId(2),
        crate::NewReview {
            body: Some("fine by me".into()),
            ..crate::NewReview::bare(crate::Verdict::Comment)
        },
    )
    .unwrap();
    assert!(reviewer_ids(h, "looker", ANY).is_empty());
    assert_eq!(reviewer_ids(h, "looker-now", OPEN), [2]);
    for handle in ["looker", "looker-now"] {
        let page = w.list(&by_reviewer(StateFilter::Open, handle), None, 50);
        assert_eq!(ids(&page), [2], "{handle}");
        assert_eq!((page.counts.open, page.counts.closed), (1, 0), "{handle}");
    }
}

#[test]
fn a_store_of_the_reviewer_entries_without_classes_gets_them_on_open() {
    use crate::lists::{ANY, CLOSED, OPEN};
    let w = World::new();
    let h = &w.h;
    let editor = h.session(&Handle::parse("editor").unwrap());
    let looker = Handle::parse("looker").unwrap();
    h.writer("looker", false);
    // Asked on the draft 1, on 2 (withdrawn then), 5 (taken back then) and the steward's 6.
    for id in [1, 2, 5] {
        h.wf.request_reviews(&editor, SuggestionId(id), std::slice::from_ref(&looker))
            .unwrap();
    }
    let steward = h.session(&Handle::parse("steward").unwrap());
    h.wf.request_reviews(&steward, SuggestionId(6), std::slice::from_ref(&looker))
        .unwrap();
    h.wf.withdraw(&editor, SuggestionId(2)).unwrap();
    h.wf.remove_review_request(&editor, SuggestionId(5), &looker)
        .unwrap();
    let written = index_state(h);
    let before = w.list(&by_reviewer(StateFilter::Open, "looker"), None, 50);
    assert_eq!(ids(&before), [6]);
    assert_eq!((before.counts.open, before.counts.closed), (1, 1));
    assert_eq!(reviewer_ids(h, "looker", ANY), [6, 2, 1]);

    // Layout 3: reviewer entries in `a` only, one naming the request taken back, no counters.
    let kv = h.wf.kv();
    let class_of = |key: &[u8]| key.iter().position(|b| *b == 0).map(|at| key[at + 1]);
    for (cf, key, _) in &written {
        let counter = key.starts_with(b"suggestion-lists/o/reviewer/")
            || key.starts_with(b"suggestion-lists/c/reviewer/");
        if counter || (key.starts_with(b"reviewer/") && class_of(key) != Some(ANY)) {
            kv.delete(cf, key).unwrap();
        }
    }
    let mut old = kv.batch();
    let stale = crate::lists::entry(&crate::lists::reviewer_scope("looker"), ANY, 5);
    old.put_raw(crate::lists::SUGGESTION_LISTS, &stale, &[])
        .unwrap();
    old.put_raw(crate::kv::META, b"lists-indexed", &[3])
        .unwrap();
    kv.write(old).unwrap();
    assert!(reviewer_ids(h, "looker", OPEN).is_empty());
    assert!(reviewer_ids(h, "looker", CLOSED).is_empty());
    assert_eq!(reviewer_ids(h, "looker", ANY), [6, 5, 2, 1]);
    // A cursor handed out under the old layout (an id) goes on under the new one.
    let first = w.list(&by_reviewer(StateFilter::All, "looker"), None, 1);
    assert_eq!(ids(&first), [6]);

    let reopened = reopen(h);
    assert_eq!(
        index_state(h),
        written,
        "the backfill writes what the writes did, and drops what they took off"
    );
    let after = reopened
        .list_suggestions(&by_reviewer(StateFilter::Open, "looker"), None, 50)
        .unwrap();
    assert_eq!(after, before);
    let rest = reopened
        .list_suggestions(&by_reviewer(StateFilter::All, "looker"), first.next, 50)
        .unwrap();
    assert_eq!(ids(&rest), [2]);
}

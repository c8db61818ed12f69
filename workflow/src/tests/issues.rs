use catalog_schemas::{Id, ItemType};

use super::{World, class, new_item, topic};
use crate::kv::{META, THREADS};
use crate::{
    Error, Happened, IssueFilter, IssueQuery, IssueState, IssueStateFilter, Limit, Missing,
    NewIssue, NotAllowed, Principal, Refusal, ReportKind, ShownIssue, StateReason, Status,
    SuggestionId, ThreadKind, ThreadNumber, UserClass, WantedState, Workflow,
};

fn issue(title: &str) -> NewIssue {
    NewIssue {
        title: title.into(),
        ..NewIssue::default()
    }
}

/// An open suggestion by the editor adding a topic, with `description`.
fn open_suggestion(w: &World, slug: &str, description: &str) -> (SuggestionId, ThreadNumber) {
    let wf = &w.h.wf;
    let created = wf
        .create_draft(&w.editor, "add a topic", Some(description))
        .unwrap();
    wf.put_item(
        &w.editor,
        created.id,
        new_item(ItemType::Topic, topic(w.set, slug)),
    )
    .unwrap();
    wf.submit(&w.editor, created.id).unwrap();
    (created.id, created.number)
}

fn all(state: IssueStateFilter) -> IssueFilter {
    IssueFilter::state(state)
}

fn numbers(items: &[ShownIssue]) -> Vec<u64> {
    items.iter().map(|i| i.issue.number.0).collect()
}

#[test]
fn suggestions_and_issues_share_one_number_space() {
    let w = World::new();
    let wf = &w.h.wf;
    let first = wf.create_draft(&w.editor, "one", None).unwrap().number;
    let second = wf.open_issue(&w.editor, issue("two")).unwrap().issue.number;
    let third = wf.create_draft(&w.editor, "three", None).unwrap().number;
    assert_eq!(second.0, first.0 + 1);
    assert_eq!(third.0, second.0 + 1);
    assert_eq!(
        wf.thread_ref(second).unwrap().map(|t| t.kind),
        Some(ThreadKind::Issue)
    );
    // A draft is its author's alone.
    assert!(matches!(
        wf.thread(Some(&w.keeper), first),
        Err(Error::Missing(Missing::Thread(_)))
    ));
    assert_eq!(
        wf.thread(Some(&w.editor), first).unwrap().kind,
        ThreadKind::Suggestion
    );
    let t = wf.thread(None, second).unwrap();
    assert_eq!(
        (t.kind, t.title.as_deref(), t.id),
        (ThreadKind::Issue, Some("two"), 1)
    );
    assert!(matches!(
        wf.thread(None, ThreadNumber(third.0 + 1)),
        Err(Error::Missing(Missing::Thread(_)))
    ));
}

#[test]
fn opening_checks_what_it_is_given() {
    let w = World::new();
    let wf = &w.h.wf;
    let bad = |new: NewIssue| class(wf.open_issue(&w.editor, new)) == Some(UserClass::BadRequest);
    assert!(bad(issue("")));
    assert!(bad(issue("   ")));
    assert!(bad(issue(&"א".repeat(201))));
    assert!(!bad(issue(&"א".repeat(200))));
    assert!(bad(NewIssue {
        body: Some("b".repeat(10_001)),
        ..issue("t")
    }));
    assert!(!bad(NewIssue {
        body: Some("b".repeat(10_000)),
        ..issue("t")
    }));
    assert!(bad(NewIssue {
        labels: vec!["bug".into()],
        ..issue("t")
    }));
    let missing = NewIssue {
        entity: Some(Id::parse("cat-zzzzzzzz").unwrap()),
        ..issue("t")
    };
    assert!(matches!(
        wf.open_issue(&w.editor, missing),
        Err(Error::Missing(Missing::Item(_)))
    ));
    let topic = w.merged_topic("joy");
    let rights = wf
        .open_issue(
            &w.editor,
            NewIssue {
                kind: Some(ReportKind::Rights),
                private: Some(false),
                entity: Some(topic),
                ..issue("  scans of a living author  ")
            },
        )
        .unwrap()
        .issue;
    assert!(rights.private, "rights reports are private always");
    assert_eq!(rights.title.as_deref(), Some("scans of a living author"));
    assert_eq!(rights.set, Some(w.set));
    assert_eq!(rights.entity.as_ref().map(|e| e.ty), Some(ItemType::Topic));
    assert_eq!(rights.author, Some(w.editor.account));
    let plain = wf.open_issue(&w.editor, issue("plain")).unwrap().issue;
    assert_eq!((plain.kind, plain.private), (ReportKind::Other, false));
}

#[test]
fn the_state_table_exactly() {
    let w = World::new();
    let wf = &w.h.wf;
    let n = wf.open_issue(&w.editor, issue("t")).unwrap().issue.number;
    let set = |p: &Principal, s: WantedState| wf.set_issue_state(p, n, s, Some("why"));
    assert!(matches!(
        set(&w.editor, WantedState::Open),
        Err(Error::Refused(Refusal::IssueState {
            state: IssueState::Open,
            ..
        }))
    ));
    let closed = set(&w.editor, WantedState::Completed).unwrap().issue;
    assert_eq!(
        (closed.state, closed.state_reason),
        (IssueState::Closed, Some(StateReason::Completed))
    );
    assert_eq!(closed.closed_by, Some(w.editor.handle.clone()));
    assert!(closed.closed_at.is_some());
    for again in [WantedState::Completed, WantedState::NotPlanned] {
        assert!(matches!(
            set(&w.editor, again),
            Err(Error::Refused(Refusal::IssueState { .. }))
        ));
    }
    let open = set(&w.steward, WantedState::Open).unwrap().issue;
    assert_eq!((open.state, open.state_reason), (IssueState::Open, None));
    assert_eq!((open.closed_at, open.closed_by), (None, None));
    let not_planned = set(&w.editor, WantedState::NotPlanned).unwrap().issue;
    assert_eq!(not_planned.state_reason, Some(StateReason::NotPlanned));

    let timeline = wf.issue_thread(None, n).unwrap().timeline;
    let kinds: Vec<&Happened> = timeline.iter().map(|e| &e.what).collect();
    assert!(matches!(
        kinds[..],
        [
            Happened::Opened,
            Happened::Closed {
                reason: StateReason::Completed,
                ..
            },
            Happened::Reopened { .. },
            Happened::Closed {
                reason: StateReason::NotPlanned,
                ..
            }
        ]
    ));
    assert!(
        matches!(&timeline[1].what, Happened::Closed { note: Some(note), .. } if note == "why")
    );

    let long = "n".repeat(2_001);
    assert!(matches!(
        wf.set_issue_state(&w.editor, n, WantedState::Open, Some(&long)),
        Err(Error::Limit(Limit { max: 2_000, .. }))
    ));
    assert!(
        wf.set_issue_state(&w.editor, n, WantedState::Open, Some(&long[..2_000]))
            .is_ok()
    );
}

#[test]
fn who_may_close_and_reopen() {
    let w = World::new();
    let wf = &w.h.wf;
    let stranger = w.h.writer("stranger", false);
    let topic = w.merged_topic("joy");
    let about = wf
        .open_issue(
            &w.editor,
            NewIssue {
                entity: Some(topic),
                ..issue("about the topic")
            },
        )
        .unwrap()
        .issue
        .number;
    let loose = wf
        .open_issue(&w.editor, issue("loose"))
        .unwrap()
        .issue
        .number;
    let close = |p: &Principal, n| wf.set_issue_state(p, n, WantedState::Completed, None);
    let refused = |e| matches!(e, Err(Error::NotAllowed(NotAllowed::TriageIssue { .. })));
    assert!(refused(close(&stranger, about)));
    assert!(refused(close(&w.keeper, loose)));
    assert!(close(&w.keeper, about).is_ok(), "keeper of the item's set");
    assert!(close(&w.steward, loose).is_ok());
    let thread = wf.issue_thread(Some(&w.editor), about).unwrap();
    assert!(!thread.rights.close && thread.rights.reopen);
    assert!(
        !wf.issue_thread(Some(&stranger), about)
            .unwrap()
            .rights
            .reopen
    );
    assert!(!wf.issue_thread(None, about).unwrap().rights.reopen);
}

#[test]
fn private_issues_only_for_those_who_may_read_them() {
    let w = World::new();
    let wf = &w.h.wf;
    let stranger = w.h.writer("stranger", false);
    let topic = w.merged_topic("joy");
    let secret = wf
        .open_issue(
            &w.editor,
            NewIssue {
                kind: Some(ReportKind::Offensive),
                entity: Some(topic),
                ..issue("secret")
            },
        )
        .unwrap()
        .issue
        .number;
    wf.open_issue(&stranger, issue("public")).unwrap();
    let listed = |p: Option<&Principal>| {
        let page = wf
            .list_issues(p, &all(IssueStateFilter::All), None, 50)
            .unwrap();
        (numbers(&page.items).contains(&secret.0), page.counts.open)
    };
    assert_eq!(listed(None), (false, 1));
    assert_eq!(listed(Some(&stranger)), (false, 1));
    for reader in [&w.editor, &w.steward, &w.keeper] {
        assert_eq!(listed(Some(reader)), (true, 2), "{}", reader.handle);
        assert!(wf.issue_thread(Some(reader), secret).is_ok());
    }
    assert!(matches!(
        wf.issue_thread(Some(&stranger), secret),
        Err(Error::Missing(Missing::Issue(_)))
    ));
    assert!(matches!(
        wf.thread(None, secret),
        Err(Error::Missing(Missing::Thread(_)))
    ));
    assert!(matches!(
        wf.set_issue_state(&stranger, secret, WantedState::Completed, None),
        Err(Error::Missing(Missing::Issue(_)))
    ));
    assert!(
        wf.find_threads(None, "secret", 20).unwrap().is_empty(),
        "mention search hides it"
    );
    assert_eq!(
        wf.find_threads(Some(&w.steward), "secret", 20)
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn filters_counts_and_pages() {
    let w = World::new();
    let wf = &w.h.wf;
    let topic = w.merged_topic("joy");
    let a = wf
        .open_issue(
            &w.editor,
            NewIssue {
                kind: Some(ReportKind::BadScan),
                entity: Some(topic),
                body: Some("page 12 is Blurred".into()),
                ..issue("blurry scan")
            },
        )
        .unwrap()
        .issue
        .number;
    let b = wf
        .open_issue(&w.keeper, issue("a wrong date"))
        .unwrap()
        .issue
        .number;
    let c = wf
        .open_issue(&w.editor, issue("missing page"))
        .unwrap()
        .issue
        .number;
    wf.set_issue_state(&w.editor, c, WantedState::NotPlanned, None)
        .unwrap();
    let list = |f: &IssueFilter| wf.list_issues(None, f, None, 50).unwrap();

    let open = list(&all(IssueStateFilter::Open));
    assert_eq!(numbers(&open.items), [b.0, a.0], "newest first");
    assert_eq!((open.counts.open, open.counts.closed), (2, 1));
    assert_eq!(numbers(&list(&all(IssueStateFilter::Closed)).items), [c.0]);
    let by_kind = IssueFilter {
        kind: Some(ReportKind::BadScan),
        ..all(IssueStateFilter::All)
    };
    assert_eq!(numbers(&list(&by_kind).items), [a.0]);
    let by_entity = IssueFilter {
        entity: Some(topic),
        ..all(IssueStateFilter::All)
    };
    assert_eq!(numbers(&list(&by_entity).items), [a.0]);
    let by_author = IssueFilter {
        author: Some(w.editor.handle.clone()),
        ..all(IssueStateFilter::All)
    };
    let mine = list(&by_author);
    assert_eq!(numbers(&mine.items), [c.0, a.0]);
    assert_eq!((mine.counts.open, mine.counts.closed), (1, 1));
    let nobody = IssueFilter {
        author: Some(crate::Handle::parse("nobody").unwrap()),
        ..all(IssueStateFilter::All)
    };
    assert!(list(&nobody).items.is_empty());
    let words = IssueFilter {
        query: IssueQuery::parse("BLURRED page"),
        ..all(IssueStateFilter::All)
    };
    assert_eq!(
        numbers(&list(&words).items),
        [a.0],
        "words in the body count"
    );
    let number = IssueFilter {
        query: IssueQuery::parse(&format!("#{}", b.0)),
        ..all(IssueStateFilter::All)
    };
    assert_eq!(numbers(&list(&number).items), [b.0]);

    let every = all(IssueStateFilter::All);
    let first = wf.list_issues(None, &every, None, 2).unwrap();
    assert_eq!(numbers(&first.items), [c.0, b.0]);
    let rest = wf.list_issues(None, &every, first.next, 2).unwrap();
    assert_eq!(numbers(&rest.items), [a.0]);
    assert!(rest.next.is_none());
    assert_eq!(
        rest.counts, first.counts,
        "counts are the same on every page"
    );
}

#[test]
fn fixes_close_issues_when_the_suggestion_merges() {
    let w = World::new();
    let wf = &w.h.wf;
    let one = wf.open_issue(&w.editor, issue("one")).unwrap().issue.number;
    let two = wf.open_issue(&w.editor, issue("two")).unwrap().issue.number;
    let done = wf
        .open_issue(&w.editor, issue("done"))
        .unwrap()
        .issue
        .number;
    wf.set_issue_state(&w.editor, done, WantedState::NotPlanned, None)
        .unwrap();
    let (other, other_number) = open_suggestion(&w, "awe", "nothing to fix");
    let text = format!(
        "Fixes #{}, see #{}; closes #{} and resolves #{}",
        one.0, two.0, done.0, other_number.0
    );
    let (s, s_number) = open_suggestion(&w, "joy", &text);
    let suggestion = wf.suggestion(s).unwrap().unwrap();
    assert_eq!(
        wf.fixes_of(&suggestion),
        [one, done],
        "only issues; #two is mentioned"
    );

    let view = wf.issue_thread(None, one).unwrap();
    assert_eq!(view.closing_suggestions.len(), 1);
    assert_eq!(view.closing_suggestions[0].status, Status::Open);
    let two_view = wf.issue_thread(None, two).unwrap();
    assert!(two_view.closing_suggestions.is_empty());
    assert!(matches!(
        two_view.timeline.last().map(|e| &e.what),
        Some(Happened::Referenced { closes: false, .. })
    ));

    let merged = wf
        .approve(&w.keeper, s, &crate::Resolutions::none())
        .unwrap();
    let closed = wf.issue_thread(None, one).unwrap();
    assert_eq!(closed.issue.issue.state, IssueState::Closed);
    assert_eq!(
        closed.issue.issue.state_reason,
        Some(StateReason::Completed)
    );
    assert_eq!(closed.issue.issue.closed_by_suggestion, Some(s_number));
    assert_eq!(closed.issue.issue.closed_by, Some(w.keeper.handle.clone()));
    assert!(closed.timeline.iter().any(|e| matches!(
        e.what,
        Happened::ClosedBySuggestion { suggestion, commit, .. }
            if suggestion == s_number && Some(commit) == merged.merged_commit
    )));
    assert_eq!(closed.closing_suggestions[0].status, Status::Merged);
    assert_eq!(
        wf.issue_thread(None, two).unwrap().issue.issue.state,
        IssueState::Open
    );
    let still = wf.issue_thread(None, done).unwrap().issue.issue;
    assert_eq!(
        (still.state_reason, still.closed_by_suggestion),
        (Some(StateReason::NotPlanned), None),
        "a closed issue stays as it was"
    );
    assert_eq!(
        wf.suggestion(other).unwrap().unwrap().status,
        Status::Open,
        "a suggestion named with fixes is not touched"
    );

    // Reopened after the merge, it stays open when the store is opened again (the replay of
    // the merge's commit finds its closings done).
    wf.set_issue_state(&w.editor, done, WantedState::Open, None)
        .unwrap();
    let reopened = Workflow::open(&w.h.store, &w.h.log, &w.h.projector, &w.h.read_models).unwrap();
    assert_eq!(
        reopened.issue_thread(None, done).unwrap().issue.issue.state,
        IssueState::Open
    );
}

#[test]
fn a_withdrawn_suggestion_closes_nothing() {
    let w = World::new();
    let wf = &w.h.wf;
    let n = wf.open_issue(&w.editor, issue("one")).unwrap().issue.number;
    let (s, _) = open_suggestion(&w, "joy", &format!("fixes #{}", n.0));
    wf.withdraw(&w.editor, s).unwrap();
    let view = wf.issue_thread(None, n).unwrap();
    assert_eq!(view.issue.issue.state, IssueState::Open);
    assert!(view.closing_suggestions.is_empty());
}

#[test]
fn a_merge_that_landed_before_a_crash_still_closes_its_issues() {
    let w = World::new();
    let wf = &w.h.wf;
    let n = wf.open_issue(&w.editor, issue("one")).unwrap().issue.number;
    let (s, s_number) = open_suggestion(&w, "joy", &format!("Fixes #{}", n.0));
    // The commit is appended and the suggestion even marked merged, but the process dies
    // before the issue is closed.
    let commit = w.h.commit_behind_workflow(s);
    let mut marked = wf.suggestion(s).unwrap().unwrap();
    marked.status = Status::Merged;
    marked.merged_commit = Some(commit.seq);
    wf.save_suggestion(&marked).unwrap();
    assert_eq!(
        wf.issue_thread(None, n).unwrap().issue.issue.state,
        IssueState::Open
    );

    let reopened = Workflow::open(&w.h.store, &w.h.log, &w.h.projector, &w.h.read_models).unwrap();
    let issue = reopened.issue_thread(None, n).unwrap().issue.issue;
    assert_eq!(issue.state, IssueState::Closed);
    assert_eq!(issue.closed_by_suggestion, Some(s_number));

    // Someone reopens it; opening the store again does not close it a second time.
    reopened
        .set_issue_state(&w.editor, n, WantedState::Open, None)
        .unwrap();
    let again = Workflow::open(&w.h.store, &w.h.log, &w.h.projector, &w.h.read_models).unwrap();
    let view = again.issue_thread(None, n).unwrap();
    assert_eq!(view.issue.issue.state, IssueState::Open);
    let closings = view
        .timeline
        .iter()
        .filter(|e| matches!(e.what, Happened::ClosedBySuggestion { .. }))
        .count();
    assert_eq!(closings, 1);
}

#[test]
fn stores_made_before_the_index_are_indexed_on_open() {
    let w = World::new();
    let wf = &w.h.wf;
    let (_, number) = open_suggestion(&w, "joy", "no issue");
    // Forget the index, as a store written before it existed has none.
    let rows = wf.kv().scan_raw(THREADS).unwrap();
    assert!(!rows.is_empty());
    for (key, _) in rows {
        wf.kv().delete(THREADS, &key).unwrap();
    }
    wf.kv().delete(META, b"threads-indexed").unwrap();
    assert!(wf.thread_ref(number).unwrap().is_none());

    let reopened = Workflow::open(&w.h.store, &w.h.log, &w.h.projector, &w.h.read_models).unwrap();
    let t = reopened.thread(None, number).unwrap();
    assert_eq!(t.kind, ThreadKind::Suggestion);
    // The next number still follows on.
    let next = reopened
        .open_issue(&w.editor, issue("next"))
        .unwrap()
        .issue
        .number;
    assert_eq!(next.0, number.0 + 1);
}

#[test]
fn finding_threads_by_number_and_words() {
    let w = World::new();
    let wf = &w.h.wf;
    // Numbers 2.. (the world's set took #1): fill to #12 so that "1" matches several.
    let mut made = Vec::new();
    for i in 0..11 {
        let title = if i % 2 == 0 {
            "Scan of volume"
        } else {
            "date fix"
        };
        made.push(wf.open_issue(&w.editor, issue(title)).unwrap().issue.number);
    }
    assert_eq!(made.last().map(|n| n.0), Some(12));
    let found = |q: &str, limit| -> Vec<u64> {
        wf.find_threads(None, q, limit)
            .unwrap()
            .iter()
            .map(|t| t.number.0)
            .collect()
    };
    assert_eq!(
        found("#1", 20),
        [1, 12, 11, 10],
        "exact first, then by prefix"
    );
    assert_eq!(found("1", 2), [1, 12]);
    assert_eq!(found("scan VOLUME", 3), [12, 10, 8]);
    assert_eq!(found("", 2), [12, 11]);
    assert!(found("#99", 20).is_empty());
}

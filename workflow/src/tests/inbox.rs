//! The inbox: given people taking part in a suggestion, when things happen, then the right
//! people get lines with the right reasons, folded while unread, never for their own action.

use super::World;
use super::conversation::say;
use crate::{
    Error, Handle, InboxFilter, InboxQuery, InboxTarget, Limit, LineView, MarkInbox, Missing,
    NewReview, Principal, Reason, Subject, Verdict,
};

fn all(w: &World, who: &Principal) -> Vec<LineView> {
    query(w, who, InboxFilter::All, None, 100).0
}

fn query(
    w: &World,
    who: &Principal,
    filter: InboxFilter,
    after: Option<u64>,
    limit: usize,
) -> (Vec<LineView>, Option<u64>) {
    let page =
        w.h.wf
            .inbox(
                who,
                &InboxQuery {
                    filter,
                    after,
                    before_time: None,
                    limit,
                },
            )
            .unwrap();
    (page.lines, page.next)
}

fn reasons(lines: &[LineView]) -> Vec<(Reason, u64)> {
    lines.iter().map(|l| (l.reason, l.count)).collect()
}

#[test]
fn each_action_tells_the_right_people_once() {
    let w = World::new();
    let wf = &w.h.wf;
    let (s, _) = w.open_topic("joy");
    // Submitting asked the keeper; the editor did it and hears nothing.
    assert_eq!(reasons(&all(&w, &w.keeper)), [(Reason::ReviewRequested, 1)]);
    assert!(all(&w, &w.editor).is_empty());

    // A comment naming the steward: a mention for them, `author` for the editor, `comment` for
    // the keeper (asked, so taking part); nothing for the one who wrote it.
    let stranger = w.h.writer("stranger", false);
    wf.comment(
        &stranger,
        Subject::Changeset(s),
        say("@steward please look"),
    )
    .unwrap();
    assert_eq!(reasons(&all(&w, &w.steward)), [(Reason::Mention, 1)]);
    assert_eq!(reasons(&all(&w, &w.editor)), [(Reason::Author, 1)]);
    assert_eq!(
        reasons(&all(&w, &w.keeper)),
        [(Reason::Comment, 1), (Reason::ReviewRequested, 1)]
    );
    assert!(all(&w, &stranger).is_empty());

    // Approving: the author hears once (state, not also review); the commenter too.
    wf.review(&w.keeper, s, NewReview::bare(Verdict::Approve))
        .unwrap();
    let editor = all(&w, &w.editor);
    assert_eq!(reasons(&editor), [(Reason::State, 1), (Reason::Author, 1)]);
    assert_eq!(editor[0].detail["event"], "merged");
    assert_eq!(
        editor[0].actor_username,
        Some(Handle::parse("keeper").unwrap())
    );
    assert_eq!(editor[0].subject.state.as_deref(), Some("merged"));
    assert_eq!(reasons(&all(&w, &stranger)), [(Reason::State, 1)]);
    assert!(
        all(&w, &w.keeper).iter().all(|l| l.reason != Reason::State),
        "the approver is not told of their own merge"
    );
}

#[test]
fn unread_lines_fold_and_move_up() {
    let w = World::new();
    let wf = &w.h.wf;
    let (a, _) = w.open_topic("joy");
    let (b, _) = w.open_topic("awe");
    wf.comment(&w.steward, Subject::Changeset(a), say("one"))
        .unwrap();
    wf.comment(&w.steward, Subject::Changeset(b), say("on b"))
        .unwrap();
    wf.comment(&w.steward, Subject::Changeset(a), say("two"))
        .unwrap();
    let lines = all(&w, &w.editor);
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0].subject.subject,
        Subject::Changeset(a),
        "moved to the top"
    );
    assert_eq!(lines[0].count, 2);
    assert_eq!(lines[0].detail["excerpt"], "two");
    assert_eq!(lines[1].count, 1);

    // Once read, news starts a new line.
    let first = lines[0].id;
    wf.mark_inbox(
        &w.editor,
        &MarkInbox {
            target: InboxTarget::Ids(vec![first]),
            unread: false,
        },
    )
    .unwrap();
    wf.comment(&w.steward, Subject::Changeset(a), say("three"))
        .unwrap();
    let lines = all(&w, &w.editor);
    assert_eq!(lines.len(), 3);
    assert_eq!((lines[0].count, lines[0].read), (1, false));
    assert_ne!(lines[0].id, first);
    assert!(
        lines
            .iter()
            .any(|l| l.id == first && l.read && l.count == 2)
    );
    assert_eq!(wf.inbox_count(&w.editor).unwrap(), 2);
}

#[test]
fn marking_by_ids_subject_all_and_back() {
    let w = World::new();
    let wf = &w.h.wf;
    let (a, _) = w.open_topic("joy");
    let (b, _) = w.open_topic("awe");
    for (s, body) in [(a, "x"), (b, "y")] {
        wf.comment(&w.steward, Subject::Changeset(s), say(body))
            .unwrap();
    }
    wf.comment(&w.steward, Subject::Changeset(a), say("@editor z"))
        .unwrap();
    assert_eq!(wf.inbox_count(&w.editor).unwrap(), 3);
    let mark = |target, unread| MarkInbox { target, unread };

    // Someone else's line is not found, and nothing is marked.
    let keepers_line = all(&w, &w.keeper)[0].id;
    let mine = all(&w, &w.editor)[0].id;
    assert!(matches!(
        wf.mark_inbox(
            &w.editor,
            &mark(InboxTarget::Ids(vec![mine, keepers_line]), false)
        ),
        Err(Error::Missing(Missing::InboxLine(line))) if line == keepers_line
    ));
    assert_eq!(wf.inbox_count(&w.editor).unwrap(), 3);
    assert!(matches!(
        wf.mark_inbox(&w.editor, &mark(InboxTarget::Ids(vec![]), false)),
        Err(Error::Limit(Limit { min: 1, got: 0, .. }))
    ));

    let done = wf
        .mark_inbox(
            &w.editor,
            &mark(InboxTarget::Subject(Subject::Changeset(a)), false),
        )
        .unwrap();
    assert_eq!((done.changed, done.unread), (2, 1));
    let unread = query(&w, &w.editor, InboxFilter::Unread, None, 100).0;
    assert_eq!(unread.len(), 1);
    assert_eq!(unread[0].subject.subject, Subject::Changeset(b));
    // Reason filters show read lines too.
    let mentions = query(
        &w,
        &w.editor,
        InboxFilter::Reason(Reason::Mention),
        None,
        100,
    )
    .0;
    assert_eq!(mentions.len(), 1);
    assert!(mentions[0].read);

    let done = wf
        .mark_inbox(&w.editor, &mark(InboxTarget::All, false))
        .unwrap();
    assert_eq!((done.changed, done.unread), (1, 0));
    let done = wf
        .mark_inbox(&w.editor, &mark(InboxTarget::Ids(vec![mine]), true))
        .unwrap();
    assert_eq!((done.changed, done.unread), (1, 1));
    // A line marked unread takes news again.
    let line = all(&w, &w.editor)
        .into_iter()
        .find(|l| l.id == mine)
        .unwrap();
    let Subject::Changeset(again) = line.subject.subject else {
        unreachable!("the line is about a suggestion")
    };
    let text = if line.reason == Reason::Mention {
        "@editor again"
    } else {
        "again"
    };
    wf.comment(&w.steward, Subject::Changeset(again), say(text))
        .unwrap();
    let top = &all(&w, &w.editor)[0];
    assert_eq!((top.id, top.count), (mine, line.count + 1));
}

#[test]
fn pages_run_newest_first() {
    let w = World::new();
    let wf = &w.h.wf;
    let mut subjects = Vec::new();
    for slug in ["a1", "a2", "a3", "a4", "a5"] {
        let (s, _) = w.open_topic(slug);
        wf.comment(&w.steward, Subject::Changeset(s), say("hello"))
            .unwrap();
        subjects.push(Subject::Changeset(s));
    }
    subjects.reverse();
    let (first, next) = query(&w, &w.editor, InboxFilter::All, None, 2);
    let (second, next2) = query(&w, &w.editor, InboxFilter::All, next, 2);
    let (third, next3) = query(&w, &w.editor, InboxFilter::All, next2, 2);
    assert!(next.is_some() && next2.is_some() && next3.is_none());
    let seen: Vec<Subject> = [first, second, third]
        .concat()
        .into_iter()
        .map(|l| l.subject.subject)
        .collect();
    assert_eq!(seen, subjects);
}

#[test]
fn talk_pages_tell_those_who_spoke_there() {
    let w = World::new();
    let wf = &w.h.wf;
    let page = Subject::Entity(w.set);
    wf.comment(&w.editor, page.clone(), say("is this set complete?"))
        .unwrap();
    wf.comment(&w.keeper, page.clone(), say("not yet")).unwrap();
    let lines = all(&w, &w.editor);
    assert_eq!(reasons(&lines), [(Reason::Comment, 1)]);
    assert_eq!(lines[0].subject.path.as_deref(), Some("/sets/things"));
    assert!(lines[0].subject.name.is_some());
    let talk = wf.talk(w.set).unwrap();
    assert_eq!(talk.len(), 2);
    assert!(talk[0].anchor.is_none() && talk[0].resolved.is_none());
    assert!(matches!(
        wf.talk(catalog_schemas::Id::parse("cat-zzzzzzzz").unwrap()),
        Err(Error::Missing(Missing::Item(_)))
    ));
}

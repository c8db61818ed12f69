//! Follows: following needs a readable target and stays under the cap; followers hear of
//! merges (items and sets), comments on suggestions and issues, and issue state changes, never
//! of their own actions nor of a private issue they may not read.

use serde_json::json;

use super::{World, change, class};
use crate::error::UserClass;
use crate::follows::{CHANGES_SHOWN, FollowRequest, Followed, MAX_FOLLOWS};
use crate::{
    InboxFilter, InboxQuery, NewComment, NewIssue, Principal, Reason, ReportKind, Subject,
    WantedState,
};

fn on(target: Followed) -> FollowRequest {
    FollowRequest { target, on: true }
}

fn followed_lines(w: &World, p: &Principal) -> Vec<(String, u64)> {
    let q = InboxQuery {
        filter: InboxFilter::Reason(Reason::Followed),
        after: None,
        before_time: None,
        limit: 100,
    };
    w.h.wf
        .inbox(p, &q)
        .unwrap()
        .lines
        .into_iter()
        .map(|l| (l.subject.subject.id_text(), l.count))
        .collect()
}

fn comment(body: &str) -> NewComment {
    NewComment {
        body: body.into(),
        parent: None,
        anchor: None,
    }
}

#[test]
fn a_merge_tells_followers_of_the_item_and_of_its_set_but_not_the_actor() {
    let w = World::new();
    let wf = &w.h.wf;
    let fan = w.h.writer("fan", false);
    let topic_id = w.merged_topic("one");
    wf.follow(&fan, &on(Followed::Entity(topic_id))).unwrap();
    wf.follow(&fan, &on(Followed::Set(w.set))).unwrap();
    // The keeper approves (the actor) and follows the set too: not told of their own merge.
    wf.follow(&w.keeper, &on(Followed::Set(w.set))).unwrap();

    w.merge(vec![change(
        topic_id,
        Some(json!({ "name": { "he": "נושא", "en": "one!" },
        "slug": "one", "sets": [w.set] })),
    )]);
    let mut lines = followed_lines(&w, &fan);
    lines.sort();
    let mut want = vec![(topic_id.to_string(), 1), (w.set.to_string(), 1)];
    want.sort();
    assert_eq!(lines, want);
    assert!(followed_lines(&w, &w.keeper).is_empty());

    // A second merge into the set folds into the unread line.
    w.merged_topic("two");
    assert!(followed_lines(&w, &fan).contains(&(w.set.to_string(), 2)));

    // The list shows the set's latest changes and the item's own.
    let page = wf.follows(&fan, None, 10).unwrap();
    assert_eq!(page.items.len(), 2);
    let set = page.items.iter().find(|f| f.kind == "set").unwrap();
    assert_eq!(set.ty.as_deref(), Some("set"));
    assert_eq!(set.changes.len(), 3, "the set's creation, one and two");
    assert!(set.changes[0].commit > set.changes[1].commit);
    let item = page.items.iter().find(|f| f.kind == "entity").unwrap();
    assert_eq!(item.changes.len(), 2);
    assert!(item.changes.len() <= CHANGES_SHOWN);
}

#[test]
fn a_set_keeps_only_its_latest_changes() {
    let w = World::new();
    for n in 0..CHANGES_SHOWN + 2 {
        w.merged_topic(&format!("t{n}"));
    }
    let kept = w.h.wf.set_changes(w.set, 100).unwrap();
    assert_eq!(kept.len(), CHANGES_SHOWN);
}

#[test]
fn following_needs_a_target_that_exists_and_that_one_may_read() {
    let w = World::new();
    let wf = &w.h.wf;
    let fan = w.h.writer("fan", false);
    let topic_id = w.merged_topic("one");
    // A topic is not a set; a missing item is not found.
    assert_eq!(
        class(wf.follow(&fan, &on(Followed::Set(topic_id)))),
        Some(UserClass::BadRequest)
    );
    let nowhere = catalog_schemas::Id::parse("cat-zzzzzzzz").unwrap();
    assert_eq!(
        class(wf.follow(&fan, &on(Followed::Entity(nowhere)))),
        Some(UserClass::NotFound)
    );
    // A draft of someone else's is not found; its author may follow it.
    let draft = wf.create_draft(&w.editor, "a draft", None).unwrap();
    assert_eq!(
        class(wf.follow(&fan, &on(Followed::Changeset(draft.id)))),
        Some(UserClass::NotFound)
    );
    wf.follow(&w.editor, &on(Followed::Changeset(draft.id)))
        .unwrap();
    // A private issue only those who may read it.
    let private = wf
        .open_issue(
            &w.editor,
            NewIssue {
                title: "rights".into(),
                kind: Some(ReportKind::Rights),
                ..NewIssue::default()
            },
        )
        .unwrap();
    assert_eq!(
        class(wf.follow(&fan, &on(Followed::Report(private.issue.number)))),
        Some(UserClass::NotFound)
    );
    wf.follow(&w.steward, &on(Followed::Report(private.issue.number)))
        .unwrap();
    // Unfollowing asks nothing of the target, twice is the same as once.
    let off = FollowRequest {
        target: Followed::Entity(nowhere),
        on: false,
    };
    assert!(!wf.follow(&fan, &off).unwrap().following);
    let ids = wf.follow(&fan, &on(Followed::Entity(topic_id))).unwrap();
    assert!(ids.following);
    let again = wf.follow(&fan, &on(Followed::Entity(topic_id))).unwrap();
    assert_eq!(again.since, ids.since);
    let off = FollowRequest {
        target: Followed::Entity(topic_id),
        on: false,
    };
    assert!(!wf.follow(&fan, &off).unwrap().following);
    assert!(wf.follows(&fan, None, 10).unwrap().items.is_empty());
}

#[test]
fn the_cap_counts_follows_and_unfollowing_frees_a_place() {
    let w = World::new();
    let wf = &w.h.wf;
    let fan = w.h.writer("fan", false);
    let slugs: Vec<String> = (0..MAX_FOLLOWS)
        .map(|n| format!("p{n}"))
        .chain(["more".to_string()])
        .collect();
    for slug in &slugs {
        let new = crate::NewProject {
            slug: slug.clone(),
            name: slug.clone(),
            ..Default::default()
        };
        // A steward opens them: a person may open only ten projects a day.
        wf.create_project(&w.steward, new).unwrap();
    }
    for n in 0..MAX_FOLLOWS {
        wf.follow(&fan, &on(Followed::Project(format!("p{n}"))))
            .unwrap();
    }
    let one_more = on(Followed::Project("more".into()));
    assert_eq!(class(wf.follow(&fan, &one_more)), Some(UserClass::State));
    // Following one already followed is not one more.
    wf.follow(&fan, &on(Followed::Project("p0".into())))
        .unwrap();
    let off = FollowRequest {
        target: Followed::Project("p0".into()),
        on: false,
    };
    wf.follow(&fan, &off).unwrap();
    wf.follow(&fan, &one_more).unwrap();
    // Pages walk every follow once.
    let mut seen = 0;
    let mut after: Option<Vec<u8>> = None;
    loop {
        let page = wf.follows(&fan, after.as_deref(), 100).unwrap();
        seen += page.items.len();
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    assert_eq!(seen as u64, MAX_FOLLOWS);
}

#[test]
fn suggestion_and_issue_followers_hear_of_comments_and_states() {
    let w = World::new();
    let wf = &w.h.wf;
    let fan = w.h.writer("fan", false);
    let (sid, _) = w.open_topic("t");
    wf.follow(&fan, &on(Followed::Changeset(sid))).unwrap();
    wf.comment(&w.keeper, Subject::Changeset(sid), comment("looks good"))
        .unwrap();
    assert_eq!(followed_lines(&w, &fan), [(sid.to_string(), 1)]);
    // The follower's own comment makes them a participant, and tells them nothing.
    wf.comment(&fan, Subject::Changeset(sid), comment("me too"))
        .unwrap();
    assert_eq!(followed_lines(&w, &fan), [(sid.to_string(), 1)]);

    let issue = wf
        .open_issue(
            &w.editor,
            NewIssue {
                title: "typo".into(),
                ..NewIssue::default()
            },
        )
        .unwrap();
    let other = w.h.writer("other", false);
    wf.follow(&other, &on(Followed::Report(issue.issue.number)))
        .unwrap();
    wf.set_issue_state(&w.editor, issue.issue.number, WantedState::Completed, None)
        .unwrap();
    assert_eq!(
        followed_lines(&w, &other),
        [(issue.issue.number.0.to_string(), 1)]
    );
}

#[test]
fn a_follower_who_may_not_read_an_issue_now_hears_nothing_of_it() {
    let w = World::new();
    let wf = &w.h.wf;
    let fan = w.h.writer("fan", false);
    let topic_id = w.merged_topic("one");
    let issue = wf
        .open_issue(
            &w.editor,
            NewIssue {
                title: "offensive".into(),
                kind: Some(ReportKind::Offensive),
                entity: Some(topic_id),
                ..NewIssue::default()
            },
        )
        .unwrap();
    wf.follow(&w.steward, &on(Followed::Report(issue.issue.number)))
        .unwrap();
    // Written straight into the index: someone who could once read it (the point is the
    // check at telling time).
    let key = [
        &Followed::Report(issue.issue.number).key()[..],
        &fan.account.key(),
    ]
    .concat();
    let mut batch = wf.kv().batch();
    batch.put_raw(crate::follows::FOLLOWERS, &key, &[]).unwrap();
    wf.kv().write(batch).unwrap();
    wf.comment(
        &w.keeper,
        Subject::Report(issue.issue.number),
        comment("seen"),
    )
    .unwrap();
    assert!(followed_lines(&w, &fan).is_empty());
    assert_eq!(
        followed_lines(&w, &w.steward),
        [(issue.issue.number.0.to_string(), 1)]
    );
}

//! The conversation: given a keeper's set and an editor's suggestion, when people comment,
//! review, ask and rename, then the timeline, the review view and the list say so.

use catalog_schemas::ItemType;
use serde_json::{Value, json};

use super::{World, class, new_item, topic};
use crate::{
    Act, Anchor, ChangeAction, Error, EventKind, Handle, Limit, Missing, NewComment,
    NewFieldComment, NewReview, NotAllowed, Refusal, Scopes, Status, Subject, SuggestionEdit,
    SuggestionId, TimelineItem, UserClass, Verdict,
};

fn h(s: &str) -> Handle {
    Handle::parse(s).unwrap()
}

pub(super) fn say(body: &str) -> NewComment {
    NewComment {
        body: body.into(),
        ..NewComment::default()
    }
}

/// The timeline as short names: `comment`, `review:<verdict>`, or the event's name.
fn names(w: &World, id: SuggestionId) -> Vec<String> {
    w.h.wf
        .conversation(None, id)
        .unwrap()
        .timeline
        .into_iter()
        .map(|item| match item {
            TimelineItem::Comment(_) => "comment".to_string(),
            TimelineItem::Review(r) => format!("review:{}", r.verdict),
            TimelineItem::Event(e) => serde_json::to_value(&e.kind).unwrap()["event"]
                .as_str()
                .unwrap()
                .to_string(),
        })
        .collect()
}

fn review(verdict: Verdict, body: Option<&str>, comments: Vec<NewFieldComment>) -> NewReview {
    NewReview {
        verdict,
        body: body.map(str::to_string),
        comments,
        resolutions: None,
    }
}

#[test]
fn submit_asks_the_keepers_and_says_so() {
    let w = World::new();
    let (s, _) = w.open_topic("joy");
    let c = w.h.wf.conversation(None, s).unwrap();
    assert_eq!(
        c.asked
            .iter()
            .map(|r| r.handle.as_str())
            .collect::<Vec<_>>(),
        ["keeper"]
    );
    assert!(c.asked[0].auto && c.asked[0].by.is_none());
    assert_eq!(names(&w, s), ["sent_for_review", "review_requested"]);
    assert!(c.closes.is_empty());
}

#[test]
fn a_bots_suggestion_asks_no_keeper() {
    let w = World::new();
    let wf = &w.h.wf;
    let (_, token) = wf
        .identity()
        .create_token(&h("editor"), "bot:importer", Scopes::READ_WRITE, None)
        .unwrap();
    let bot = wf.identity().authenticate_token(&token).unwrap();
    assert!(bot.is_bot());
    let id = wf.create_draft(&bot, "import", None).unwrap().id;
    wf.put_item(&bot, id, new_item(ItemType::Topic, topic(w.set, "bot")))
        .unwrap();
    wf.submit(&bot, id).unwrap();
    assert!(wf.review_requests(id).unwrap().is_empty());
    assert_eq!(names(&w, id), ["sent_for_review"]);
}

#[test]
fn request_changes_then_resubmit_asks_the_reviewer_again() {
    let w = World::new();
    let wf = &w.h.wf;
    let (s, item) = w.open_topic("joy");
    let note = NewFieldComment {
        entity: item,
        field: "name".into(),
        body: "spell it as the sefer does".into(),
    };
    let done = wf
        .review(
            &w.keeper,
            s,
            review(Verdict::RequestChanges, Some("almost"), vec![note]),
        )
        .unwrap();
    assert_eq!(done.suggestion.status, Status::SentBack);
    assert_eq!(done.review.body.as_deref(), Some("almost"));
    let field = &done.review.comments[0];
    assert_eq!(
        field.anchor,
        Some(Anchor {
            entity: item,
            field: "/name".into()
        })
    );
    assert_eq!(field.resolved, Some(false));
    // Reviewing answered the keeper's request.
    assert!(wf.review_requests(s).unwrap().is_empty());

    wf.submit(&w.editor, s).unwrap();
    let asked = wf.review_requests(s).unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].handle, h("keeper"));
    assert_eq!(
        names(&w, s),
        [
            "sent_for_review",
            "review_requested",
            "review:request_changes",
            "sent_back",
            "sent_for_review",
            "review_requested",
        ]
    );
    let again = w.h.wf.conversation(None, s).unwrap().timeline;
    assert!(matches!(
        &again[4],
        TimelineItem::Event(e) if e.kind == EventKind::SentForReview { again: true }
    ));
}

#[test]
fn approving_review_merges_and_keeps_its_note() {
    let w = World::new();
    let wf = &w.h.wf;
    let (s, _) = w.open_topic("joy");
    let done = wf
        .review(&w.keeper, s, review(Verdict::Approve, Some("good"), vec![]))
        .unwrap();
    assert_eq!(done.suggestion.status, Status::Merged);
    let commit = done.suggestion.merged_commit.unwrap();
    assert_eq!(
        names(&w, s),
        [
            "sent_for_review",
            "review_requested",
            "review:approve",
            "merged"
        ]
    );
    let c = wf.conversation(None, s).unwrap();
    assert!(matches!(
        c.timeline.last(),
        Some(TimelineItem::Event(e)) if e.kind == EventKind::Merged { commit } && e.actor == Some(h("keeper"))
    ));
    // The plain operation records a bare review too.
    let (t, _) = w.open_topic("awe");
    wf.approve(&w.keeper, t, &crate::Resolutions::none())
        .unwrap();
    let reviews = wf.review_view(None, t, None).unwrap().reviews;
    assert_eq!(reviews.len(), 1);
    assert_eq!(
        (reviews[0].verdict, reviews[0].body.as_deref()),
        (Verdict::Approve, None)
    );
}

#[test]
fn refused_reviews_write_nothing() {
    let w = World::new();
    let wf = &w.h.wf;
    let (s, item) = w.open_topic("joy");
    let before = names(&w, s);
    let elsewhere = NewFieldComment {
        entity: w.set,
        field: "name".into(),
        body: "not in this suggestion".into(),
    };
    let empty = NewFieldComment {
        entity: item,
        field: "name".into(),
        body: "   ".into(),
    };
    for (who, r) in [
        (&w.keeper, review(Verdict::Approve, None, vec![elsewhere])),
        (
            &w.keeper,
            review(Verdict::RequestChanges, None, vec![empty]),
        ),
        (&w.keeper, review(Verdict::Comment, Some("  "), vec![])),
        (
            &w.keeper,
            review(Verdict::Comment, Some(&"x".repeat(10_001)), vec![]),
        ),
    ] {
        assert!(
            class(wf.review(who, s, r.clone())) == Some(UserClass::BadRequest),
            "{r:?}"
        );
    }
    // The author may not approve or send back their own suggestion.
    for verdict in [Verdict::Approve, Verdict::RequestChanges] {
        assert!(matches!(
            wf.review(&w.editor, s, review(verdict, None, vec![])),
            Err(Error::NotAllowed(NotAllowed::ApproveOwn { .. }))
        ));
    }
    assert_eq!(names(&w, s), before);
    assert_eq!(wf.get(s).unwrap().suggestion.status, Status::Open);
    assert!(wf.review_view(None, s, None).unwrap().reviews.is_empty());
}

#[test]
fn comment_reviews_only_while_reviewable() {
    let w = World::new();
    let wf = &w.h.wf;
    let draft = wf.create_draft(&w.editor, "draft", None).unwrap().id;
    let r = review(Verdict::Comment, Some("hm"), vec![]);
    // A draft is its author's: to anyone else it is not there at all.
    assert!(matches!(
        wf.review(&w.keeper, draft, r.clone()),
        Err(Error::Missing(Missing::Suggestion(_)))
    ));
    assert!(matches!(
        wf.review(&w.editor, draft, r.clone()),
        Err(Error::WrongStatus {
            status: Status::Draft,
            act: Act::Review,
            ..
        })
    ));
    let (s, _) = w.open_topic("joy");
    // Anyone signed in may leave a comment review, the author too.
    wf.review(&w.editor, s, r.clone()).unwrap();
    wf.review(&w.steward, s, r.clone()).unwrap();
    wf.withdraw(&w.editor, s).unwrap();
    assert!(matches!(
        wf.review(&w.keeper, s, r),
        Err(Error::WrongStatus {
            status: Status::Withdrawn,
            ..
        })
    ));
}

#[test]
fn comments_reply_anchor_and_reference() {
    let w = World::new();
    let wf = &w.h.wf;
    let (a, item) = w.open_topic("joy");
    let (b, _) = w.open_topic("awe");
    let number_a = wf.get(a).unwrap().suggestion.number;
    let first = wf
        .comment(
            &w.keeper,
            Subject::Changeset(a),
            NewComment {
                body: "  is this the right spelling?  ".into(),
                parent: None,
                anchor: Some(Anchor {
                    entity: item,
                    field: "/name/he".into(),
                }),
            },
        )
        .unwrap();
    assert_eq!(first.body.as_deref(), Some("is this the right spelling?"));
    assert_eq!(first.resolved, Some(false));
    let reply = wf
        .comment(
            &w.editor,
            Subject::Changeset(a),
            NewComment {
                body: "yes, like #9999 and as in ".to_string() + &number_a.to_string(),
                parent: Some(first.id),
                anchor: None,
            },
        )
        .unwrap();
    assert_eq!(reply.parent, Some(first.id));
    assert_eq!(reply.resolved, None, "only anchored comments resolve");
    // A parent from another page, or an anchor outside the suggestion, is refused.
    let wrong_parent = NewComment {
        body: "x".into(),
        parent: Some(first.id),
        anchor: None,
    };
    assert!(matches!(
        wf.comment(&w.keeper, Subject::Changeset(b), wrong_parent),
        Err(Error::Refused(Refusal::ParentElsewhere { .. }))
    ));
    let wrong_anchor = NewComment {
        body: "x".into(),
        parent: None,
        anchor: Some(Anchor {
            entity: w.set,
            field: "name".into(),
        }),
    };
    assert!(matches!(
        wf.comment(&w.keeper, Subject::Changeset(b), wrong_anchor),
        Err(Error::Refused(Refusal::AnchorOutside { .. }))
    ));
    // `#<a's number>` written on a itself is no reference; #9999 names nothing.
    assert!(!names(&w, a).contains(&"referenced".to_string()));
    let number_b = wf.get(b).unwrap().suggestion.number;
    wf.comment(
        &w.keeper,
        Subject::Changeset(b),
        say(&format!("see {number_a}")),
    )
    .unwrap();
    let last = wf.conversation(None, a).unwrap().timeline.pop().unwrap();
    assert!(
        matches!(
            &last,
            TimelineItem::Event(e) if matches!(&e.kind, EventKind::Referenced { from, number, .. }
                if *from == Subject::Changeset(b) && *number == Some(number_b))
        ),
        "{last:?}"
    );
}

#[test]
fn edit_hide_and_resolve_rules() {
    let w = World::new();
    let wf = &w.h.wf;
    let (s, item) = w.open_topic("joy");
    let stranger = w.h.writer("stranger", false);
    let anchored = wf
        .comment(
            &w.keeper,
            Subject::Changeset(s),
            NewComment {
                body: "which source?".into(),
                parent: None,
                anchor: Some(Anchor {
                    entity: item,
                    field: "slug".into(),
                }),
            },
        )
        .unwrap();
    assert_eq!(anchored.anchor.as_ref().unwrap().field, "/slug");
    // Only the author edits.
    assert!(matches!(
        wf.edit_comment(&w.editor, anchored.id, "mine now"),
        Err(Error::NotAllowed(NotAllowed::EditComment { .. }))
    ));
    let edited = wf
        .edit_comment(&w.keeper, anchored.id, "which printing?")
        .unwrap();
    assert_eq!(edited.body.as_deref(), Some("which printing?"));
    assert!(edited.edited_at.is_some());
    // A stranger may not resolve; the author, a reviewer and a steward may.
    assert!(matches!(
        wf.resolve_comment(&stranger, anchored.id, true),
        Err(Error::NotAllowed(NotAllowed::ResolveComments { .. }))
    ));
    assert_eq!(
        wf.resolve_comment(&w.editor, anchored.id, true)
            .unwrap()
            .resolved,
        Some(true)
    );
    assert_eq!(
        wf.resolve_comment(&w.keeper, anchored.id, false)
            .unwrap()
            .resolved,
        Some(false)
    );
    assert_eq!(
        wf.resolve_comment(&w.steward, anchored.id, true)
            .unwrap()
            .resolved,
        Some(true)
    );
    let plain = wf
        .comment(&stranger, Subject::Changeset(s), say("nice"))
        .unwrap();
    assert!(matches!(
        wf.resolve_comment(&w.steward, plain.id, true),
        Err(Error::Refused(Refusal::ResolveOffField(_)))
    ));
    // Hiding: its author or a steward; a hidden comment keeps its place without its words.
    assert!(matches!(
        wf.hide_comment(&w.keeper, plain.id),
        Err(Error::NotAllowed(NotAllowed::HideComment { .. }))
    ));
    let hidden = wf.hide_comment(&w.steward, plain.id).unwrap();
    assert!(hidden.hidden && hidden.body.is_none());
    assert!(wf.hide_comment(&stranger, plain.id).unwrap().hidden);
    assert!(matches!(
        wf.edit_comment(&stranger, plain.id, "again"),
        Err(Error::Refused(Refusal::CommentHidden(_)))
    ));
}

#[test]
fn renaming_is_an_event_and_stops_at_merge() {
    let w = World::new();
    let wf = &w.h.wf;
    let (s, _) = w.open_topic("joy");
    let edit = |title: Option<&str>, description: Option<Option<&str>>| SuggestionEdit {
        title: title.map(str::to_string),
        description: description.map(|d| d.map(str::to_string)),
    };
    assert!(matches!(
        wf.edit_suggestion(&w.keeper, s, edit(Some("mine"), None)),
        Err(Error::NotAllowed(NotAllowed::EditSuggestion { .. }))
    ));
    assert!(matches!(
        wf.edit_suggestion(&w.editor, s, edit(None, None)),
        Err(Error::Refused(Refusal::NothingToEdit))
    ));
    assert!(matches!(
        wf.edit_suggestion(&w.editor, s, edit(Some(&"t".repeat(201)), None)),
        Err(Error::Limit(Limit {
            max: 200,
            got: 201,
            ..
        }))
    ));
    let changed = wf
        .edit_suggestion(
            &w.editor,
            s,
            edit(Some(&"t".repeat(200)), Some(Some("why"))),
        )
        .unwrap();
    assert_eq!(changed.description.as_deref(), Some("why"));
    // The same title again is no rename; a steward may change it; null clears the description.
    wf.edit_suggestion(&w.editor, s, edit(Some(&"t".repeat(200)), None))
        .unwrap();
    let cleared = wf
        .edit_suggestion(&w.steward, s, edit(Some("Add joy"), Some(None)))
        .unwrap();
    assert_eq!(cleared.description, None);
    let renames: Vec<(String, String)> = wf
        .conversation(None, s)
        .unwrap()
        .timeline
        .into_iter()
        .filter_map(|i| match i {
            TimelineItem::Event(e) => match e.kind {
                EventKind::Renamed { from, to } => Some((from, to)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        renames,
        [
            ("add a topic".to_string(), "t".repeat(200)),
            ("t".repeat(200), "Add joy".to_string())
        ]
    );
    wf.approve(&w.keeper, s, &crate::Resolutions::none())
        .unwrap();
    assert!(matches!(
        wf.edit_suggestion(&w.editor, s, edit(Some("late"), None)),
        Err(Error::WrongStatus { act: Act::Edit, .. })
    ));
}

#[test]
fn review_requests_by_hand() {
    let w = World::new();
    let wf = &w.h.wf;
    let (s, _) = w.open_topic("joy");
    let other = w.h.writer("other", false);
    let asked = |wf: &crate::Workflow| -> Vec<String> {
        wf.review_requests(s)
            .unwrap()
            .into_iter()
            .map(|r| r.handle.to_string())
            .collect()
    };
    // A stranger may not ask; nobody may ask the author, or an unknown handle.
    assert!(matches!(
        wf.request_reviews(&other, s, &[h("steward")]),
        Err(Error::NotAllowed(NotAllowed::AskForReviews { .. }))
    ));
    for bad in [vec![h("editor")], vec![h("nobody")], vec![]] {
        assert_eq!(
            class(wf.request_reviews(&w.editor, s, &bad)),
            Some(UserClass::BadRequest)
        );
    }
    wf.request_reviews(&w.editor, s, &[h("other"), h("other"), h("keeper")])
        .unwrap();
    assert_eq!(asked(wf), ["keeper", "other"]);
    // Asking again changes nothing; after reviewing, asking asks again.
    let events_before = names(&w, s).len();
    wf.request_reviews(&w.editor, s, &[h("keeper")]).unwrap();
    assert_eq!(names(&w, s).len(), events_before);
    wf.review(&other, s, review(Verdict::Comment, Some("fine"), vec![]))
        .unwrap();
    assert_eq!(asked(wf), ["keeper"]);
    wf.request_reviews(&w.keeper, s, &[h("other")]).unwrap();
    assert_eq!(asked(wf), ["keeper", "other"]);
    // The person asked may decline; a stranger may not take a request back.
    let third = w.h.writer("third", false);
    assert!(matches!(
        wf.remove_review_request(&third, s, &h("keeper")),
        Err(Error::NotAllowed(NotAllowed::AskForReviews { .. }))
    ));
    wf.remove_review_request(&other, s, &h("other")).unwrap();
    assert!(matches!(
        wf.remove_review_request(&w.editor, s, &h("other")),
        Err(Error::Missing(Missing::ReviewRequest { .. }))
    ));
    assert_eq!(asked(wf), ["keeper"]);
    wf.approve(&w.keeper, s, &crate::Resolutions::none())
        .unwrap();
    assert!(matches!(
        wf.request_reviews(&w.editor, s, &[h("other")]),
        Err(Error::WrongStatus {
            act: Act::AskForReview,
            ..
        })
    ));
}

#[test]
fn the_review_view_shows_before_after_and_notes() {
    let w = World::new();
    let wf = &w.h.wf;
    let (s, item) = w.open_topic("joy");
    wf.approve(&w.keeper, s, &crate::Resolutions::none())
        .unwrap();
    let mut data: Value = topic(w.set, "joy");
    data["name"] = json!({ "he": "שמחה" });
    data["note"] = json!("added");
    let change = wf.create_draft(&w.editor, "fix", None).unwrap().id;
    wf.put_item(
        &w.editor,
        change,
        crate::PutItem {
            id: Some(item),
            ty: None,
            data: Some(data.clone()),
        },
    )
    .unwrap();
    wf.submit(&w.editor, change).unwrap();
    wf.review(
        &w.keeper,
        change,
        review(
            Verdict::Comment,
            Some("looks right"),
            vec![NewFieldComment {
                entity: item,
                field: "/note".into(),
                body: "source?".into(),
            }],
        ),
    )
    .unwrap();
    let view = wf.review_view(None, change, None).unwrap();
    assert_eq!(view.view.items.len(), 1, "keeps the items");
    let c = &view.changes[0];
    assert_eq!((c.id, c.action), (item, ChangeAction::Change));
    assert!(c.base_rev.is_some());
    assert_eq!(c.after.as_ref(), Some(&data));
    let fields: Vec<&str> = c.fields.iter().map(|f| f.field.as_str()).collect();
    assert_eq!(fields, ["/name", "/note"]);
    assert_eq!(c.fields[1].before, None);
    assert_eq!(view.reviews.len(), 1);
    assert_eq!(view.reviews[0].comments[0].body.as_deref(), Some("source?"));
    assert!(
        view.asked.is_empty(),
        "the keeper's review answered the request"
    );
}

#[test]
fn the_list_counts_come_from_the_conversation() {
    let w = World::new();
    let wf = &w.h.wf;
    let (s, _) = w.open_topic("joy");
    wf.comment(&w.steward, Subject::Changeset(s), say("one"))
        .unwrap();
    wf.review(
        &w.steward,
        s,
        review(Verdict::RequestChanges, Some("two"), vec![]),
    )
    .unwrap();
    wf.submit(&w.editor, s).unwrap();
    wf.review(&w.keeper, s, review(Verdict::Approve, None, vec![]))
        .unwrap();
    let filter = crate::ListFilter {
        state: crate::StateFilter::All,
        author: None,
        reviewer: Some(h("keeper")),
        words: Vec::new(),
    };
    let page = wf.list_suggestions(&filter, None, 10).unwrap();
    let listed = &page.items[0];
    assert_eq!(listed.suggestion.id, s);
    assert_eq!(listed.comments, 1);
    assert_eq!(listed.reviewers, [h("steward"), h("keeper")]);
    // The steward's latest verdict still asks for changes; the keeper approved.
    assert_eq!((listed.approvals, listed.changes_requested), (1, true));
}

#[test]
fn a_merge_settled_after_a_crash_is_on_the_timeline() {
    let w = World::new();
    let (s, _) = w.open_topic("joy");
    let commit = w.h.commit_behind_workflow(s);
    let reopened =
        crate::Workflow::open(&w.h.store, &w.h.log, &w.h.projector, &w.h.read_models).unwrap();
    let last = reopened.conversation(None, s).unwrap().timeline.pop();
    assert!(
        matches!(
            &last,
            Some(TimelineItem::Event(e))
                if e.kind == EventKind::Merged { commit: commit.seq } && e.actor.is_none()
        ),
        "{last:?}"
    );
    // The service settled it: nobody is told, and no review is made up.
    assert!(
        reopened
            .review_view(None, s, None)
            .unwrap()
            .reviews
            .is_empty()
    );
    let query = crate::InboxQuery {
        filter: crate::InboxFilter::All,
        after: None,
        before_time: None,
        limit: 10,
    };
    assert!(reopened.inbox(&w.editor, &query).unwrap().lines.is_empty());
}

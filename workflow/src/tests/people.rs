//! People and handle changes: given a keeper's set and an editor's suggestion, when the keeper
//! or the editor changes handle, then the rules still know them by the handles records stored,
//! and their page counts what they did under every handle.

use super::conversation::say;
use super::{World, topic};
use crate::people::PagePosition;
use crate::{
    Handle, NotAllowed, PeopleQuery, Principal, Resolutions, Subject, SuggestionId, ThreadKind,
};
use catalog_schemas::ItemType;

/// Gives `old`'s account the handle `new`, as `catalog account rename` does.
fn rename(w: &World, old: &str, new: &str) {
    w.h.wf.identity().rename(&h(old), &h(new)).unwrap();
}

/// A suggestion by `who` putting one topic, submitted.
fn submitted_topic(w: &World, who: &Principal, title: &str) -> SuggestionId {
    let id = w.h.wf.create_draft(who, title, None).unwrap().id;
    w.h.wf
        .put_item(
            who,
            id,
            super::new_item(ItemType::Topic, topic(w.set, title)),
        )
        .unwrap();
    w.h.wf.submit(who, id).unwrap();
    id
}

fn h(s: &str) -> Handle {
    Handle::parse(s).unwrap()
}

#[test]
fn a_renamed_keeper_still_approves_in_the_set_that_names_their_old_handle() {
    let w = World::new();
    let (s, _) = w.open_topic("joy");
    rename(&w, "keeper", "keeper-now");
    let keeper = w.h.session(&h("keeper-now"));
    let merged = w.h.wf.approve(&keeper, s, &Resolutions::none()).unwrap();
    assert_eq!(merged.status, crate::Status::Merged);
}

#[test]
fn a_renamed_author_still_may_not_approve_their_own_and_may_still_edit_it() {
    let w = World::new();
    let (s, _) = w.open_topic("joy");
    rename(&w, "editor", "editor-now");
    // The editor, renamed, as a keeper of the set too would be refused their own suggestion.
    let editor = w.h.session(&h("editor-now"));
    let own = w.h.wf.approve(&editor, s, &Resolutions::none());
    assert!(
        matches!(
            own,
            Err(crate::Error::NotAllowed(NotAllowed::ApproveOwn { .. }))
        ),
        "{own:?}"
    );
    // A comment written before the rename is still theirs to edit.
    let c =
        w.h.wf
            .comment(&w.editor, Subject::Changeset(s), say("before"))
            .unwrap();
    w.h.wf.edit_comment(&editor, c.id, "after").unwrap();
}

#[test]
fn asking_an_old_handle_to_review_asks_the_person_by_their_handle_now() {
    let w = World::new();
    let (s, _) = w.open_topic("joy");
    w.h.writer("friend", false);
    rename(&w, "friend", "friend-now");
    let asked =
        w.h.wf
            .request_reviews(&w.editor, s, &[h("friend")])
            .unwrap();
    assert!(
        asked.iter().any(|r| r.handle == h("friend-now")),
        "{asked:?}"
    );
    // Asking the author by an old handle of theirs is asking them to review their own.
    rename(&w, "editor", "editor-now");
    let editor = w.h.session(&h("editor-now"));
    assert!(
        w.h.wf
            .request_reviews(&editor, s, &[h("editor-now")])
            .is_err()
    );
}

#[test]
fn a_page_counts_and_lists_what_was_done_under_every_handle() {
    let w = World::new();
    let (first, _) = w.open_topic("one");
    w.h.wf
        .comment(&w.editor, Subject::Changeset(first), say("a note"))
        .unwrap();
    rename(&w, "editor", "editor-now");
    let editor = w.h.session(&h("editor-now"));
    let second = submitted_topic(&w, &editor, "two");
    w.h.wf
        .approve(&w.keeper, first, &Resolutions::none())
        .unwrap();

    let page =
        w.h.wf
            .person_page(None, &h("editor"), PagePosition::default(), 10)
            .unwrap();
    assert_eq!(page.moved_from, Some(h("editor")));
    assert_eq!(page.person.handle, h("editor-now"));
    assert_eq!((page.counts.suggestions, page.counts.merged), (2, 1));
    assert_eq!(page.counts.comments, 1);
    let ids: Vec<u64> = page.activity.iter().map(|a| a.thread.id).collect();
    assert_eq!(
        ids,
        vec![second.0, first.0],
        "newest first, under both handles"
    );
    assert!(
        page.activity
            .iter()
            .all(|a| a.thread.kind == ThreadKind::Suggestion)
    );
    assert!(page.next.is_none());

    // One a page: the cursor continues across the two handles' lists.
    let one =
        w.h.wf
            .person_page(None, &h("editor-now"), PagePosition::default(), 1)
            .unwrap();
    assert_eq!(one.activity[0].thread.id, second.0);
    let rest =
        w.h.wf
            .person_page(None, &h("editor-now"), one.next.unwrap(), 1)
            .unwrap();
    assert_eq!(rest.activity[0].thread.id, first.0);

    // The keeper reviewed by approving.
    let keeper =
        w.h.wf
            .person_page(None, &h("keeper"), PagePosition::default(), 10)
            .unwrap();
    assert_eq!(keeper.counts.reviews, 1);
    assert!(keeper.activity.is_empty());
}

#[test]
fn a_threads_people_come_first_by_their_handle_now() {
    let w = World::new();
    let (s, _) = w.open_topic("joy");
    w.h.wf
        .comment(&w.steward, Subject::Changeset(s), say("a note"))
        .unwrap();
    rename(&w, "editor", "editor-now");
    let people =
        w.h.wf
            .find_people(
                None,
                &PeopleQuery {
                    thread: Some(Subject::Changeset(s)),
                    limit: 10,
                    ..PeopleQuery::default()
                },
            )
            .unwrap();
    let handles: Vec<&str> = people.iter().map(|p| p.handle.as_str()).collect();
    assert_eq!(handles, ["editor-now", "steward", "keeper"]);
}

#[test]
fn the_author_and_reviewer_filters_name_a_person_by_any_handle_they_held() {
    let w = World::new();
    let (first, _) = w.open_topic("one");
    rename(&w, "editor", "editor-now");
    rename(&w, "keeper", "keeper-now");
    let editor = w.h.session(&h("editor-now"));
    let second = submitted_topic(&w, &editor, "two");
    for (author, reviewer) in [
        (Some("editor"), None),
        (Some("editor-now"), None),
        (None, Some("keeper")),
        (None, Some("keeper-now")),
        (Some("editor-now"), Some("keeper")),
    ] {
        let filter = crate::ListFilter {
            state: crate::StateFilter::Open,
            author: author.map(h),
            reviewer: reviewer.map(h),
            words: Vec::new(),
        };
        let page = w.h.wf.list_suggestions(&filter, None, 10).unwrap();
        let ids: Vec<u64> = page.items.iter().map(|l| l.suggestion.id.0).collect();
        assert_eq!(ids, vec![second.0, first.0], "{author:?} {reviewer:?}");
        assert_eq!(page.counts.open, 2, "{author:?} {reviewer:?}");
        // One a page continues across the handles' lists.
        let one = w.h.wf.list_suggestions(&filter, None, 1).unwrap();
        let rest = w.h.wf.list_suggestions(&filter, one.next, 1).unwrap();
        assert_eq!(rest.items[0].suggestion.id, first);
    }
}

#[test]
fn a_renamed_person_unassigns_themselves_under_the_handle_they_held() {
    let w = World::new();
    let helper = w.h.writer("helper", false);
    let issue =
        w.h.wf
            .open_issue(
                &w.editor,
                crate::NewIssue {
                    title: "needs hands".into(),
                    ..Default::default()
                },
            )
            .unwrap();
    let number = issue.issue.number;
    w.h.wf
        .set_issue_assignees(&helper, number, &[h("helper")])
        .unwrap();
    rename(&w, "helper", "helper-now");
    let renamed = w.h.session(&h("helper-now"));
    // The stored assignee is the old handle: taking it off is taking oneself off.
    let shown = w.h.wf.set_issue_assignees(&renamed, number, &[]).unwrap();
    assert!(shown.issue.assignees.is_empty());
    // Someone else's is still refused.
    w.h.wf
        .set_issue_assignees(&w.editor, number, &[h("helper-now")])
        .unwrap();
    let other = w.h.writer("other", false);
    assert!(w.h.wf.set_issue_assignees(&other, number, &[]).is_err());
}

#[test]
fn the_issue_list_finds_an_assignee_under_every_handle_they_held() {
    let w = World::new();
    let helper = w.h.writer("helper", false);
    let open = |title: &str| {
        w.h.wf
            .open_issue(
                &w.editor,
                crate::NewIssue {
                    title: title.into(),
                    ..Default::default()
                },
            )
            .unwrap()
            .issue
    };
    let first = open("needs hands");
    w.h.wf
        .set_issue_assignees(&helper, first.number, &[h("helper")])
        .unwrap();
    let unrelated = open("nobody's");
    rename(&w, "helper", "helper-now");
    rename(&w, "editor", "editor-now");
    let renamed = w.h.session(&h("helper-now"));
    let second = open("needs more hands");
    // Both handles of one person given at once are one assignee.
    let shown =
        w.h.wf
            .set_issue_assignees(&renamed, second.number, &[h("helper"), h("helper-now")])
            .unwrap();
    assert_eq!(shown.issue.assignees, [h("helper-now")]);

    let list = |assignee: Option<&str>, author: Option<&str>, q: &str, limit, before| {
        let filter = crate::IssueFilter {
            assignee: assignee.map(|a| crate::AssigneeFilter::Person(h(a))),
            author: author.map(h),
            query: crate::IssueQuery::parse(q),
            ..crate::IssueFilter::state(crate::IssueStateFilter::Open)
        };
        w.h.wf.list_issues(None, &filter, before, limit).unwrap()
    };
    let numbers = |page: &crate::IssuePage| -> Vec<u64> {
        page.items.iter().map(|i| i.issue.number.0).collect()
    };
    let both = vec![second.number.0, first.number.0];
    for handle in ["helper", "helper-now"] {
        // The walked scopes alone: counted by their counters, summed.
        let page = list(Some(handle), None, "", 10, None);
        assert_eq!(numbers(&page), both, "{handle}");
        assert_eq!((page.counts.open, page.counts.closed), (2, 0), "{handle}");
        // With words too: examined over both handles' scopes.
        let page = list(Some(handle), None, "hands", 10, None);
        assert_eq!(numbers(&page), both, "{handle} with words");
        assert_eq!((page.counts.open, page.counts.closed), (2, 0), "{handle}");
        // One number, assigned under the old handle.
        let page = list(
            Some(handle),
            None,
            &format!("#{}", first.number.0),
            10,
            None,
        );
        assert_eq!(numbers(&page), [first.number.0], "{handle} #N");
        // One a page: the cursor goes on from one handle's scope to the other's.
        let one = list(Some(handle), None, "", 1, None);
        assert_eq!(numbers(&one), [second.number.0]);
        let rest = list(Some(handle), None, "", 1, one.next);
        assert_eq!(numbers(&rest), [first.number.0], "{handle}");
        assert!(rest.next.is_none());
    }
    // The author filter is the account: any handle finds all three.
    for handle in ["editor", "editor-now"] {
        let page = list(None, Some(handle), "", 10, None);
        assert_eq!(
            numbers(&page),
            [second.number.0, unrelated.number.0, first.number.0],
            "{handle}"
        );
        assert_eq!(page.counts.open, 3, "{handle}");
        // Author and assignee at once.
        let page = list(Some("helper"), Some(handle), "", 10, None);
        assert_eq!(numbers(&page), both, "{handle} and helper");
    }
    // A handle nobody holds lists nothing.
    let page = list(Some("stranger"), None, "", 10, None);
    assert!(page.items.is_empty());
    assert_eq!(page.counts.open, 0);
}

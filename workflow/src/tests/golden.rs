//! Golden fixtures of every record the workflow stores (see `catalog_records::golden`; the
//! records of accounts, tokens and sessions are pinned in catalog-identity). The `wf_*` column
//! families are the one store that cannot be rebuilt from the log, so these bytes are what
//! existing databases hold: if a test here fails, a stored format changed — add a new record
//! version with an upgrade from this one instead of editing the fixture.
//!
//! Each fixture under `workflow/tests/fixtures/` is named `<column family>-v<version>-<case>`
//! and holds one value exactly as written (a version byte, then JSON). Each test writes a
//! representative value and compares its bytes with the fixture, then decodes the fixture and
//! re-encodes it, which must give the same bytes again.
//!
//! To write the fixtures afresh (only when adding a new record version, keeping the old files),
//! run with `RECORDS_BLESS=1`.
//!
//! Records, by column family:
//!
//! | column family        | record                                      |
//! |----------------------|---------------------------------------------|
//! | `wf_suggestions`     | suggestion (a fresh draft, and a merged one with every field) |
//! | `wf_suggestion_items`| suggested item (changed, new, deleted, merged into another)  |
//! | `wf_threads`         | thread number → suggestion or issue         |
//! | `wf_issues`          | issue (a bare report, and a closed issue with every field)   |
//! | `wf_issue_events`    | issue timeline event (each stored kind)     |
//! | `wf_meta`            | the reconcile checkpoint (`reconciled`)     |
//! | `wf_comments`        | comment (plain, and anchored/hidden/edited/resolved in a review) |
//! | `wf_reviews`         | review                                      |
//! | `wf_review_requests` | review request (asked by a person, and by the service) |
//! | `wf_timeline`        | suggestion timeline entry (comment, review, each event kind) |
//! | `wf_inbox`           | inbox line (from a person, and from the service) |
//! | `wf_holds`           | a takedown's and a family request's hold on a file |
//! | `wf_projects`        | project (open, and closed with every field): pinned in `projects/tests.rs` |
//! | `wf_project_claims`  | a hold on a project's item: pinned in `projects/tests.rs` |
//! | `wf_follows`         | a follow (kind, id, since)                  |
//! | `wf_set_changes`     | a commit in a set's latest changes          |
//! | `wf_places`          | a place where someone stopped listening     |
//!
//! `values-v1-names.json` holds every spelling of the value enums inside those records (status,
//! kind, verdict, reason, …), written through `records::values`, since each record fixture holds
//! only some of them.
//!
//! The other families hold raw bytes, not records, and are pinned by their key layouts in the
//! code that writes them: `wf_counters` (a `u64`, big-endian), `wf_inbox_ids` (account id ‖
//! order), `wf_inbox_unread` (order), and the empty-valued indexes (`wf_reverts`,
//! `wf_subject_comments`, the list indexes, `wf_followers`, `wf_places_newest`); `wf_meta`'s other keys are one-byte or sequence
//! markers.

use std::path::PathBuf;

use catalog_log_core::{Rev, Seq};
use catalog_schemas::{Id, ItemType};
use serde_json::json;

use crate::checks::{Check, CheckName, CheckStatus, Problem};
use crate::discussion::conversation::{
    Anchor, CommentId, CommentRecord, EventKind, ReviewId, ReviewRecord, ReviewRequest, Verdict,
};
use crate::discussion::inbox::{LineRecord, Reason};
use crate::discussion::issues::{
    EntityRef, Happened, Issue, IssueId, IssueState, Label, ReportKind, StateReason, TimelineEvent,
};
use crate::discussion::threads::ThreadRef;
use crate::merging::Checkpoint;
use crate::records::{
    IssueEventRecord, IssueRecord, ReviewRequestRecord, StoredEvent, StoredRecord,
    SuggestionRecord, TimelineEntry,
};
use crate::subject::Subject;
use crate::suggestions::{
    Kind, PostReview, Status, SuggestedItem, Suggestion, SuggestionId, ThreadNumber,
};
use crate::{AccountId, Handle, Timestamp};

fn fixture(name: &str) -> PathBuf {
    catalog_records::golden::fixtures_dir(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn golden<R: StoredRecord + PartialEq + std::fmt::Debug>(name: &str, record: &R) {
    catalog_records::golden::check(&fixture(""), name, record);
}

fn at(ms: i64) -> Timestamp {
    // 2026-11-22T14:07:38.123Z and moments after it.
    Timestamp::from_unix_millis(1_795_356_458_123 + ms)
}

fn handle(text: &str) -> Handle {
    Handle::parse(text).unwrap()
}

fn id(text: &str) -> Id {
    Id::parse(text).unwrap()
}

fn work() -> ItemType {
    ItemType::parse("work").unwrap()
}

fn merged_suggestion() -> Suggestion {
    let problem = Problem::new(
        id("cat-7k2m9q4x"),
        "/date",
        "5785-06A: 5785 is not a leap year",
    );
    Suggestion {
        description: Some("Fixes #12\n\nשנה \"ה'תשפ\"ה\"".into()),
        status: Status::Merged,
        project_id: Some(4),
        merged_commit: Some(Seq(99)),
        post_review: Some(PostReview::Pending),
        checks: vec![
            Check {
                check: CheckName::Schema,
                status: CheckStatus::Pass,
                message: "every item fits its schema".into(),
                id: None,
                field: None,
                problems: Vec::new(),
                truncated: false,
            },
            Check {
                check: CheckName::Dates,
                status: CheckStatus::Warn,
                message: problem.to_string(),
                id: Some(problem.id),
                field: Some(problem.field.clone()),
                problems: vec![problem],
                truncated: true,
            },
        ],
        submitted_at: Some(at(60_000)),
        closed_at: Some(at(120_000)),
        bot: true,
        reverts: Some(SuggestionId(40)),
        ..Suggestion::made(
            SuggestionId(42),
            ThreadNumber(57),
            "Revert the dates of Likkutei Sichos".into(),
            handle("moshe"),
            Kind::Revert,
            Seq(98),
            at(0),
        )
    }
}

#[test]
fn suggestions_v1() {
    let draft = Suggestion::made(
        SuggestionId(1),
        ThreadNumber(1),
        "Add Likkutei Sichos".into(),
        handle("moshe"),
        Kind::Edit,
        Seq(0),
        at(0),
    );
    golden(
        "wf_suggestions-v1-draft.record",
        &SuggestionRecord::from(&draft),
    );
    golden(
        "wf_suggestions-v1-merged.record",
        &SuggestionRecord::from(&merged_suggestion()),
    );
    // Never stored: setting it must not change the bytes.
    let shown = Suggestion {
        not_yet_visible: true,
        ..merged_suggestion()
    };
    golden(
        "wf_suggestions-v1-merged.record",
        &SuggestionRecord::from(&shown),
    );
}

#[test]
fn suggested_items_v1() {
    golden(
        "wf_suggestion_items-v1-changed.record",
        &SuggestedItem {
            id: id("cat-7k2m9q4x"),
            ty: work(),
            base: Some(Rev(3)),
            data: Some(
                json!({"title": {"he": "ליקוטי שיחות", "en": "Likkutei Sichos"},
                              "levels": ["volume", "sicha"], "weight": 1.5, "note": null}),
            ),
            merged_into: None,
        },
    );
    golden(
        "wf_suggestion_items-v1-new.record",
        &SuggestedItem {
            id: id("cat-4bq8z1nd"),
            ty: ItemType::parse("author").unwrap(),
            base: None,
            data: Some(json!({"name": {"he": "רבי"}})),
            merged_into: None,
        },
    );
    golden(
        "wf_suggestion_items-v1-deleted.record",
        &SuggestedItem {
            id: id("cat-4bq8z1nd"),
            ty: work(),
            base: Some(Rev(1)),
            data: None,
            merged_into: None,
        },
    );
    golden(
        "wf_suggestion_items-v1-merged-into.record",
        &SuggestedItem {
            id: id("cat-4bq8z1nd"),
            ty: work(),
            base: Some(Rev(2)),
            data: None,
            merged_into: Some(id("cat-7k2m9q4x")),
        },
    );
}

#[test]
fn threads_v1() {
    golden(
        "wf_threads-v1-suggestion.record",
        &ThreadRef::suggestion(SuggestionId(42)),
    );
    golden("wf_threads-v1-issue.record", &ThreadRef::issue(IssueId(5)));
}

#[test]
fn issues_v1() {
    let report = Issue {
        author: None,
        author_handle: None,
        kind: ReportKind::BadScan,
        ..Issue::opened(
            IssueId(5),
            ThreadNumber(12),
            AccountId(1),
            handle("moshe"),
            at(0),
        )
    };
    golden("wf_issues-v1-report.record", &IssueRecord::from(&report));
    let closed = Issue {
        title: Some("Page 12 of volume 3 is missing".into()),
        kind: ReportKind::MissingPage,
        state: IssueState::Closed,
        state_reason: Some(StateReason::Completed),
        body: Some("The scan skips from 11 to 13.".into()),
        private: true,
        entity: Some(EntityRef {
            id: id("cat-7k2m9q4x"),
            ty: work(),
            path: Some("/likkutei-sichos".into()),
        }),
        set: Some(id("cat-4bq8z1nd")),
        labels: vec![Label {
            name: "scans".into(),
            description: Some("Problems with scanned pages".into()),
            color: Some("#d73a4a".into()),
        }],
        assignees: vec![handle("rivka"), handle("moshe")],
        comments: 3,
        updated_at: at(120_000),
        closed_at: Some(at(120_000)),
        closed_by: Some(handle("rivka")),
        closed_by_suggestion: Some(ThreadNumber(57)),
        ..Issue::opened(
            IssueId(6),
            ThreadNumber(13),
            AccountId(7),
            handle("moshe"),
            at(0),
        )
    };
    golden("wf_issues-v1-closed.record", &IssueRecord::from(&closed));
}

#[test]
fn issue_events_v1() {
    let event = |what: Happened, actor: Option<&str>| {
        IssueEventRecord::try_from(&TimelineEvent {
            at: at(0),
            actor: actor.map(handle),
            what,
        })
        .unwrap()
    };
    golden(
        "wf_issue_events-v1-opened.record",
        &event(Happened::Opened, Some("moshe")),
    );
    golden(
        "wf_issue_events-v1-closed.record",
        &event(
            Happened::Closed {
                reason: StateReason::NotPlanned,
                note: Some("Out of scope".into()),
            },
            Some("rivka"),
        ),
    );
    golden(
        "wf_issue_events-v1-reopened.record",
        &event(Happened::Reopened { note: None }, None),
    );
    golden(
        "wf_issue_events-v1-closed-by-suggestion.record",
        &event(
            Happened::ClosedBySuggestion {
                suggestion: ThreadNumber(57),
                suggestion_id: SuggestionId(42),
                commit: Seq(99),
            },
            Some("rivka"),
        ),
    );
    golden(
        "wf_issue_events-v1-edited.record",
        &event(
            Happened::Edited {
                fields: vec!["title".into(), "body".into()],
                from: Some("Wrong date".into()),
            },
            Some("rivka"),
        ),
    );
    golden(
        "wf_issue_events-v1-labeled.record",
        &event(
            Happened::Labeled {
                added: vec!["scan quality".into()],
                removed: vec!["triage".into()],
            },
            Some("rivka"),
        ),
    );
    golden(
        "wf_issue_events-v1-assigned.record",
        &event(
            Happened::Assigned {
                added: vec![handle("moshe")],
                removed: Vec::new(),
            },
            Some("rivka"),
        ),
    );
    golden(
        "wf_issue_events-v1-visibility.record",
        &event(Happened::Visibility { private: true }, Some("rivka")),
    );
}

#[test]
fn labels_v1() {
    golden(
        "wf_labels-v1.record",
        &crate::discussion::issues::LabelRecord {
            name: "scan quality".into(),
            description: Some("Pages blurred, cut or missing".into()),
            color: Some("1f883d".into()),
            created_by: handle("rivka"),
            created_at: at(0),
        },
    );
}

#[test]
fn meta_v1() {
    golden(
        "wf_meta-v1-reconciled.record",
        &Checkpoint { seq: Seq(1234) },
    );
}

#[test]
fn comments_v1() {
    let plain = CommentRecord {
        id: CommentId(11),
        subject: Subject::Entity(id("cat-7k2m9q4x")),
        parent: None,
        author: handle("moshe"),
        author_name: "Moshe".into(),
        body: "Is this the 1st edition? @rivka #57".into(),
        at: at(0),
        edited_at: None,
        hidden: false,
        hidden_by: None,
        anchor: None,
        resolved: false,
        resolved_by: None,
        review: None,
    };
    golden("wf_comments-v1-plain.record", &plain);
    let in_review = CommentRecord {
        id: CommentId(12),
        subject: Subject::Changeset(SuggestionId(42)),
        parent: Some(CommentId(11)),
        edited_at: Some(at(1_000)),
        hidden: true,
        hidden_by: Some(handle("rivka")),
        anchor: Some(Anchor {
            entity: id("cat-7k2m9q4x"),
            field: "/title/he".into(),
        }),
        resolved: true,
        resolved_by: Some(handle("moshe")),
        review: Some(ReviewId(2)),
        ..plain.clone()
    };
    golden("wf_comments-v1-anchored.record", &in_review);
    for (name, subject) in [
        ("report", Subject::Report(ThreadNumber(12))),
        ("project", Subject::Project("sichos-in-english".into())),
    ] {
        let comment = CommentRecord {
            subject,
            ..plain.clone()
        };
        golden(&format!("wf_comments-v1-{name}.record"), &comment);
    }
}

#[test]
fn reviews_v1() {
    golden(
        "wf_reviews-v1.record",
        &ReviewRecord {
            id: ReviewId(2),
            suggestion: SuggestionId(42),
            author: handle("rivka"),
            author_name: "Rivka".into(),
            verdict: Verdict::RequestChanges,
            body: Some("Two dates need a look.".into()),
            comments: vec![CommentId(12), CommentId(13)],
            at: at(0),
        },
    );
    golden(
        "wf_reviews-v1-no-body.record",
        &ReviewRecord {
            id: ReviewId(3),
            suggestion: SuggestionId(42),
            author: handle("rivka"),
            author_name: "Rivka".into(),
            verdict: Verdict::Approve,
            body: None,
            comments: Vec::new(),
            at: at(1_000),
        },
    );
}

#[test]
fn holds_v1() {
    use crate::files::{HoldKind, HoldRecord};
    golden(
        "wf_holds-v1-takedown.record",
        &HoldRecord {
            kind: HoldKind::Takedown,
            number: ThreadNumber(12),
            at: at(0),
        },
    );
    golden(
        "wf_holds-v1-family-request.record",
        &HoldRecord {
            kind: HoldKind::FamilyRequest,
            number: ThreadNumber(13),
            at: at(1_000),
        },
    );
}

#[test]
fn review_requests_v1() {
    golden(
        "wf_review_requests-v1-asked.record",
        &ReviewRequestRecord::from(&ReviewRequest {
            handle: handle("rivka"),
            name: "Rivka".into(),
            by: Some(handle("moshe")),
            at: at(0),
            auto: false,
        }),
    );
    golden(
        "wf_review_requests-v1-auto.record",
        &ReviewRequestRecord::from(&ReviewRequest {
            handle: handle("rivka"),
            name: "Rivka".into(),
            by: None,
            at: at(0),
            auto: true,
        }),
    );
}

#[test]
fn timeline_v1() {
    golden(
        "wf_timeline-v1-comment.record",
        &TimelineEntry::Comment {
            comment: CommentId(11),
        },
    );
    golden(
        "wf_timeline-v1-review.record",
        &TimelineEntry::Review {
            review: ReviewId(2),
        },
    );
    let events = [
        ("sent-for-review", EventKind::SentForReview { again: true }),
        (
            "review-requested",
            EventKind::ReviewRequested {
                reviewers: vec![handle("rivka"), handle("moshe")],
                auto: true,
            },
        ),
        (
            "review-request-removed",
            EventKind::ReviewRequestRemoved {
                reviewer: handle("rivka"),
            },
        ),
        (
            "renamed",
            EventKind::Renamed {
                from: "Add dates".into(),
                to: "Fix dates".into(),
            },
        ),
        (
            "referenced",
            EventKind::Referenced {
                from: Subject::Report(ThreadNumber(12)),
                number: Some(ThreadNumber(12)),
                comment: CommentId(11),
            },
        ),
        (
            "referenced-from-talk",
            EventKind::Referenced {
                from: Subject::Entity(id("cat-7k2m9q4x")),
                number: None,
                comment: CommentId(14),
            },
        ),
        ("merged", EventKind::Merged { commit: Seq(99) }),
        ("sent-back", EventKind::SentBack),
        ("withdrawn", EventKind::Withdrawn),
        (
            "reverted",
            EventKind::Reverted {
                by: SuggestionId(43),
            },
        ),
    ];
    for (name, kind) in events {
        let by_person = TimelineEntry::Event {
            kind: StoredEvent::from(kind),
            actor: Some(handle("rivka")),
            at: at(0),
        };
        golden(&format!("wf_timeline-v1-{name}.record"), &by_person);
    }
    golden(
        "wf_timeline-v1-by-service.record",
        &TimelineEntry::Event {
            kind: StoredEvent::from(EventKind::Merged { commit: Seq(99) }),
            actor: None,
            at: at(0),
        },
    );
}

#[test]
fn inbox_v1() {
    let from_person = LineRecord {
        id: 31,
        account: AccountId(7),
        reason: Reason::Mention,
        subject: Subject::Changeset(SuggestionId(42)),
        actor: Some(AccountId(8)),
        actor_name: Some("Moshe".into()),
        actor_handle: Some(handle("moshe")),
        count: 3,
        detail: json!({"comment": 11, "excerpt": "@rivka could you look?"}),
        at: at(0),
        read: false,
        order: 77,
    };
    golden("wf_inbox-v1-person.record", &from_person);
    let from_service = LineRecord {
        reason: Reason::State,
        subject: Subject::Report(ThreadNumber(12)),
        actor: None,
        actor_name: None,
        actor_handle: None,
        count: 1,
        detail: json!({}),
        read: true,
        ..from_person.clone()
    };
    golden("wf_inbox-v1-service.record", &from_service);
}

#[test]
fn follows_v1() {
    use crate::follows::{FollowRecord, SetChangeRecord};
    golden(
        "wf_follows-v1-report.record",
        &FollowRecord {
            kind: "report".into(),
            id: "12".into(),
            since: at(0),
        },
    );
    golden(
        "wf_set_changes-v1-merge.record",
        &SetChangeRecord {
            commit: 41,
            at: "2026-11-22T14:07:38.123Z".into(),
            message: "add a topic".into(),
            author: "moshe".into(),
            items: 2,
        },
    );
}

#[test]
fn places_v1() {
    use crate::places::{Place, PlaceKind, PlaceRecord};
    golden(
        "wf_places-v1-listen.record",
        &PlaceRecord {
            place: Place {
                kind: PlaceKind::Listen,
                key: "cat-0000-0001".into(),
                title: "Farbrengen, Shabbos Bereishis".into(),
                href: "/listen/cat-0000-0001".into(),
                sub: Some("1:02:03".into()),
                place: json!({ "ms": 3_723_000 }),
                updated: at(0),
            },
            order: 9,
        },
    );
}

/// Every spelling of a value enum inside records, variant by variant (the record fixtures above
/// hold only some of them), pinned in `values-v1-names.json`; each reads back as its value.
#[test]
fn value_names_v1() {
    use crate::discussion::threads::ThreadKind;

    /// Writes each value through the record's with-module as a JSON list, and reads it back.
    macro_rules! names {
        ($module:literal, $ty:ty, $values:expr) => {{
            #[derive(serde::Serialize, serde::Deserialize)]
            struct Stored(#[serde(with = $module)] $ty);
            let values: Vec<$ty> = $values.into_iter().collect();
            let json = serde_json::to_value(values.iter().cloned().map(Stored).collect::<Vec<_>>())
                .unwrap();
            let read: Vec<Stored> = serde_json::from_value(json.clone()).unwrap();
            assert_eq!(read.into_iter().map(|s| s.0).collect::<Vec<_>>(), values);
            json
        }};
    }
    let all = json!({
        "status": names!("crate::records::values::status", Status, [Status::Draft, Status::Open,
            Status::Merged, Status::SentBack, Status::Withdrawn]),
        "kind": names!("crate::records::values::kind", Kind, [Kind::Edit, Kind::QuickFix, Kind::Words,
            Kind::ContentsMap, Kind::Organize, Kind::Revert, Kind::Restore, Kind::ScanText, Kind::Ocr,
            Kind::Upload]),
        "post_review": names!("crate::records::values::post_review::option", Option<PostReview>,
            [Some(PostReview::Pending), Some(PostReview::Done), None]),
        "check_name": names!("crate::records::values::check_name", CheckName, [CheckName::Schema,
            CheckName::References, CheckName::Dates, CheckName::Duplicates, CheckName::Paths]),
        "check_status": names!("crate::records::values::check_status", CheckStatus, [CheckStatus::Pass,
            CheckStatus::Warn, CheckStatus::Fail]),
        "report_kind": names!("crate::records::values::report_kind", ReportKind, ReportKind::ALL),
        "issue_state": names!("crate::records::values::issue_state", IssueState, [IssueState::Open,
            IssueState::Closed]),
        "state_reason": names!("crate::records::values::state_reason::option", Option<StateReason>,
            [Some(StateReason::Completed), Some(StateReason::NotPlanned), None]),
        "verdict": names!("crate::records::values::verdict", Verdict, [Verdict::Approve,
            Verdict::RequestChanges, Verdict::Comment]),
        "inbox_reason": names!("crate::records::values::inbox_reason", Reason, Reason::ALL),
        "thread_kind": names!("crate::records::values::thread_kind", ThreadKind, [ThreadKind::Suggestion,
            ThreadKind::Issue]),
    });
    let actual = serde_json::to_vec_pretty(&all).unwrap();
    let path = fixture("values-v1-names.json");
    if catalog_records::golden::blessing() {
        std::fs::write(&path, &actual).unwrap();
    }
    let expected = std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    assert!(
        expected == actual,
        "stored value names changed:\nexpected {}\nactual   {}",
        String::from_utf8_lossy(&expected),
        String::from_utf8_lossy(&actual)
    );
}

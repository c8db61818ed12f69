//! The messages read exactly as they did when each call site wrote its own: clients show them
//! and tests match them. One case per wording that is assembled from parts.

use std::borrow::Cow;

use catalog_schemas::body::SegmentId;
use catalog_schemas::{Id, ItemType};

use super::*;
use crate::suggestions::{PostReview, ThreadNumber};
use crate::words::WordsOp;
use catalog_identity::Handle;

fn id(n: u8) -> Id {
    Id::parse(&format!("cat-0000000{n}")).unwrap()
}

fn who() -> Handle {
    Handle::parse("rivka").unwrap()
}

fn limit(field: &'static str, min: usize, max: usize, got: usize, wording: Wording) -> Error {
    Limit::new(Cow::Borrowed(field), min..=max, got, wording).into()
}

#[test]
fn assembled_messages_read_as_before() {
    let cases: Vec<(Error, &str)> = vec![
        (
            limit("title", 1, 200, 0, Wording::Give(Unit::Characters)),
            "title: give 1-200 characters, not 0",
        ),
        (
            limit("operations", 1, 50, 51, Wording::Give(Unit::Operations)),
            "operations: give 1-50 operations, not 51",
        ),
        (
            limit("description", 1, 2000, 0, Wording::GiveSayingWhy),
            "description: give 1-2000 characters saying why, not 0",
        ),
        (
            limit("comments[2].body", 1, 10_000, 0, Wording::GiveThisHas),
            "comments[2].body: give 1-10000 characters (this has 0)",
        ),
        (
            limit("title", 1, 200, 0, Wording::Quoting(String::new())),
            "title \"\": give 1-200 characters",
        ),
        (
            limit("description", 0, 10_000, 10_001, Wording::AtMost),
            "description: at most 10000 characters",
        ),
        (
            limit("note", 0, 2000, 2001, Wording::AtMostNot),
            "note: at most 2000 characters, not 2001",
        ),
        (
            limit("comments", 0, 50, 51, Wording::AtMostInOneReview),
            "comments: at most 50 in one review",
        ),
        (
            limit("reviewers", 1, 10, 0, Wording::Name(Unit::People)),
            "reviewers: name 1-10 people",
        ),
        (
            limit("ids", 1, 100, 0, Wording::Name(Unit::Lines)),
            "ids: name 1-100 lines",
        ),
        (
            limit("depth", 1, 5, 6, Wording::WholeNumber),
            "depth 6 is not a whole number from 1 to 5",
        ),
        (
            limit("data", 0, 32, 33, Wording::Nesting),
            "data nests deeper than 32 levels of objects and arrays",
        ),
        (
            limit("items", 0, 5000, 5001, Wording::SuggestionItems),
            "a suggestion holds at most 5000 items (50000 with a bot: token); this one would hold \
             5001: split it into several",
        ),
        (
            Error::NotOneOf {
                value: "x".into(),
                of: Vocabulary::InboxFilters,
            },
            "filter \"x\" is not one of unread, all, mention, review_requested, assigned, author, \
             comment, review, state, followed",
        ),
        (
            Error::NotOneOf {
                value: "x".into(),
                of: Vocabulary::SubjectKinds,
            },
            "subject kind \"x\" is not one of changeset, report, entity, project",
        ),
        (
            Error::NotOneOf {
                value: "x".into(),
                of: Vocabulary::SegmentKinds,
            },
            "kind \"x\" is not a segment kind: use section, heading, paragraph, verse, item, note",
        ),
        (
            Error::WrongKind {
                field: Some("newUnit.work"),
                id: id(1),
                is: ItemType::Unit,
                wanted: ItemType::Work,
            },
            "newUnit.work: cat-00000001 is a unit, not a work",
        ),
        (
            Error::WrongKind {
                field: None,
                id: id(1),
                is: ItemType::Set,
                wanted: ItemType::Topic,
            },
            "item cat-00000001 is a set, not a topic",
        ),
        (
            Error::WrongStatus {
                id: SuggestionId(7),
                status: Status::SentBack,
                act: Act::Approve,
            },
            "suggestion 7 is sent_back: only an open suggestion can be approved",
        ),
        (
            NotAllowed::AskForReviews {
                who: who(),
                suggestion: SuggestionId(7),
            }
            .into(),
            "@rivka may not ask for reviews of suggestion 7: its author, its keepers and stewards \
             may",
        ),
        (
            NotAllowed::TriageIssue {
                who: who(),
                issue: ThreadNumber(12),
            }
            .into(),
            "@rivka may not close or reopen issue #12: its author, the keepers of its item's sets \
             and stewards may",
        ),
        (
            NotAllowed::NoSet {
                suggestion: SuggestionId(7),
                decision: Decision::LookOver,
            }
            .into(),
            "suggestion 7 touches items in no set: only a steward may look it over",
        ),
        (
            Refusal::NotOneTarget.into(),
            "give exactly one of unit (an existing unit), newUnit (a unit to make) and label \
             (words of no unit)",
        ),
        (
            Refusal::NotAwaitingLook {
                id: SuggestionId(7),
                status: Status::Open,
                post_review: None,
            }
            .into(),
            "suggestion 7 is open with post_review null: only a merged line fix waiting for its \
             look (post_review pending) can be marked done",
        ),
        (
            Refusal::NotAwaitingLook {
                id: SuggestionId(7),
                status: Status::Merged,
                post_review: Some(PostReview::Done),
            }
            .into(),
            "suggestion 7 is merged with post_review done: only a merged line fix waiting for its \
             look (post_review pending) can be marked done",
        ),
        (
            Refusal::FieldComment {
                index: 2,
                refusal: Box::new(Refusal::AnchorField {
                    field: "a\u{1}".into(),
                    max: 200,
                }),
            }
            .into(),
            "comments[2]: anchor field \"a\\u{1}\": give a field name or JSON Pointer of 1-200 \
             characters",
        ),
        (
            Refusal::UnknownClashes(vec![(id(1), "/name".into()), (id(2), String::new())]).into(),
            "resolutions name clashes this merge does not have: cat-00000001 at \"/name\", \
             cat-00000002 at \"\"",
        ),
        (
            Refusal::SubjectId {
                kind: "report",
                id: "x".into(),
            }
            .into(),
            "subject id \"x\" is not an issue number",
        ),
        (
            Missing::IssueItemMerged {
                id: id(1),
                into: id(2),
            }
            .into(),
            "item cat-00000001 was merged into cat-00000002: open the issue about cat-00000002",
        ),
        (
            Missing::Words(WordsOp::Add).into(),
            "the item holds no words yet: add needs a segment; use start for its first words",
        ),
        (
            BadWords::NoNewWords(WordsOp::Start).into(),
            "text: start needs the first words",
        ),
        (
            BadWords::UnknownNote {
                field: "text",
                index: 1,
                note: SegmentId::new("n9").unwrap(),
            }
            .into(),
            "text[1]: note \"n9\" is not among the version's notes",
        ),
    ];
    for (error, text) in cases {
        assert_eq!(error.to_string(), text);
    }
}

#[test]
fn runs_name_the_place_inside_the_field() {
    let at =
        catalog_schemas::body::parse_runs(&serde_json::json!([{ "script": "x" }])).unwrap_err();
    let place = BadWords::Runs {
        field: "text",
        source: at,
    }
    .to_string();
    assert!(place.starts_with("text[0]: "), "{place}");
    let whole = BadWords::Runs {
        field: "before",
        source: catalog_schemas::SchemaError::Name("x".into()),
    };
    assert_eq!(whole.to_string(), "before: name: x");
}

#[test]
fn classes() {
    let class = |e: Error| e.class();
    assert_eq!(
        class(Missing::Item(id(1)).into()),
        Some(UserClass::NotFound)
    );
    assert_eq!(
        class(Refusal::NothingToMerge.into()),
        Some(UserClass::State)
    );
    assert_eq!(
        class(Refusal::NothingToEdit.into()),
        Some(UserClass::BadRequest)
    );
    assert_eq!(class(BadWords::NoRuns.into()), Some(UserClass::BadRequest));
    let corrupt = catalog_records::Error::Corrupt {
        cf: "wf_x",
        reason: "y".into(),
    };
    assert_eq!(class(corrupt.into()), None);
    let hashing = catalog_identity::Error::Hashing("x".into());
    assert!(!Error::from(hashing).is_user_error());
    // Identity's refusals keep their class through workflow.
    let refused = catalog_identity::Error::from(catalog_identity::Refused::SessionEnded);
    assert_eq!(class(refused.into()), Some(UserClass::Unauthorized));
}

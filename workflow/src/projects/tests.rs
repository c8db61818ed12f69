use catalog_schemas::ItemType;
use serde_json::json;

use super::*;
use crate::UserClass;
use crate::tests::{World, class, merge, new_item};

fn farbrengen(date: &str) -> crate::PutItem {
    new_item(
        ItemType::Event,
        json!({ "kind": "farbrengen", "title": { "he": format!("התוועדות {date}") }, "date": date }),
    )
}

fn open(w: &World, slug: &str, within: Option<&str>) -> Project {
    w.h.wf
        .create_project(
            &w.editor,
            NewProject {
                slug: slug.into(),
                name: "Recordings of 5785".into(),
                missing: Some(GapKind::Recordings),
                within: within.map(Into::into),
                set: Some(w.set),
                ..NewProject::default()
            },
        )
        .unwrap()
}

/// The id a board project handed out.
fn id(claimed: &Claimed) -> Id {
    match claimed.entry.item {
        GapItem::Item(id) => id,
        GapItem::Page(page) => panic!("a page ({page}) where an item was expected"),
    }
}

fn slug(s: &str) -> ProjectSlug {
    ProjectSlug::parse(s).unwrap()
}

#[test]
fn a_hold_lasts_four_hours_then_the_item_is_free_again() {
    let w = World::new();
    let events = merge(
        &w.h.wf,
        &w.steward,
        &w.steward,
        vec![farbrengen("5785-07-11"), farbrengen("5785-07-12")],
    );
    open(&w, "rec", Some("5785"));
    let wf = &w.h.wf;
    let first = wf.next_project_item(&w.editor, &slug("rec")).unwrap();
    assert!(events.contains(&id(&first)));
    assert!(!first.again);
    // The same caller gets their item back; another gets the other one.
    let again = wf.next_project_item(&w.editor, &slug("rec")).unwrap();
    assert_eq!((id(&again), again.again), (id(&first), true));
    let second = wf.next_project_item(&w.keeper, &slug("rec")).unwrap();
    assert_ne!(id(&second), id(&first));
    assert_eq!(
        class(wf.next_project_item(&w.steward, &slug("rec"))),
        Some(UserClass::State)
    );
    let progress = wf.project(&slug("rec")).unwrap().unwrap().progress;
    assert_eq!(
        progress,
        Progress {
            total: 2,
            done: 0,
            held: 2,
            left: 0
        }
    );

    // One millisecond short of four hours the holds stand; at four hours they are free, and
    // the progress counts them so with nobody asking again.
    w.h.clock.advance_millis(HOLD_MILLIS - 1);
    assert_eq!(
        class(wf.next_project_item(&w.steward, &slug("rec"))),
        Some(UserClass::State)
    );
    w.h.clock.advance_millis(1);
    let progress = wf.project(&slug("rec")).unwrap().unwrap().progress;
    assert_eq!((progress.held, progress.left), (0, 2));
    let freed = wf.next_project_item(&w.steward, &slug("rec")).unwrap();
    assert!(events.contains(&id(&freed)));
    // The editor's hold ran out: releasing it is refused, and asking again hands a free item.
    assert_eq!(
        class(wf.release_project_item(&w.editor, &slug("rec"), &first.entry.item.to_string())),
        Some(UserClass::State)
    );
    let after = wf.next_project_item(&w.editor, &slug("rec")).unwrap();
    assert!(!after.again);
    assert_ne!(id(&after), id(&freed));
    let progress = wf.project(&slug("rec")).unwrap().unwrap().progress;
    assert_eq!((progress.held, progress.left), (2, 0));
    // A release takes the hold out of the count at once.
    wf.release_project_item(&w.editor, &slug("rec"), &after.entry.item.to_string())
        .unwrap();
    let progress = wf.project(&slug("rec")).unwrap().unwrap().progress;
    assert_eq!((progress.held, progress.left), (1, 1));
}

#[test]
fn release_close_and_the_gap_running_out() {
    let w = World::new();
    let events = merge(
        &w.h.wf,
        &w.steward,
        &w.steward,
        vec![farbrengen("5786-01-02")],
    );
    open(&w, "one", Some("5786-01"));
    let wf = &w.h.wf;
    let got = wf.next_project_item(&w.keeper, &slug("one")).unwrap();
    assert_eq!(id(&got), events[0]);
    assert_eq!(
        class(wf.release_project_item(&w.editor, &slug("one"), &got.entry.item.to_string())),
        Some(UserClass::State)
    );
    wf.release_project_item(&w.keeper, &slug("one"), &got.entry.item.to_string())
        .unwrap();
    assert_eq!(
        id(&wf.next_project_item(&w.editor, &slug("one")).unwrap()),
        events[0]
    );

    // A recording of it empties the gap: the next `next` marks the project merged.
    merge(
        &w.h.wf,
        &w.steward,
        &w.steward,
        vec![new_item(
            ItemType::Recording,
            json!({ "event": events[0].to_string(), "url": "https://example.org/a.mp3" }),
        )],
    );
    assert_eq!(
        class(wf.next_project_item(&w.editor, &slug("one"))),
        Some(UserClass::State)
    );
    let project = wf.project(&slug("one")).unwrap().unwrap();
    assert_eq!(project.status, ProjectStatus::Merged);
    assert_eq!(project.progress.done, 1);

    // Closing: the creator, a keeper of its set, a steward; no one else.
    open(&w, "two", None);
    let stranger = w.h.writer("stranger", false);
    assert_eq!(
        class(wf.close_project(&stranger, &slug("two"))),
        Some(UserClass::Forbidden)
    );
    let closed = wf.close_project(&w.keeper, &slug("two")).unwrap();
    assert_eq!(closed.status, ProjectStatus::Closed);
    assert_eq!(
        class(wf.close_project(&w.steward, &slug("two"))),
        Some(UserClass::State)
    );
    assert_eq!(
        class(wf.next_project_item(&w.editor, &slug("two"))),
        Some(UserClass::State)
    );
    let listed = wf.projects(ProjectStatus::Closed, None, 10).unwrap();
    assert_eq!(listed.projects.len(), 1);
    assert_eq!(listed.projects[0].slug, slug("two"));
}

#[test]
fn bad_projects_are_refused_before_anything_is_written() {
    let w = World::new();
    let wf = &w.h.wf;
    let ask = |n: NewProject| class(wf.create_project(&w.editor, n));
    let base = || NewProject {
        slug: "ok".into(),
        name: "ok".into(),
        ..NewProject::default()
    };
    let long = "a".repeat(MAX_SLUG_CHARS + 1);
    for bad in [
        NewProject {
            slug: "Bad".into(),
            ..base()
        },
        NewProject {
            slug: "".into(),
            ..base()
        },
        NewProject {
            slug: long,
            ..base()
        },
        NewProject {
            name: " ".into(),
            ..base()
        },
        NewProject {
            name: "n".repeat(MAX_NAME_CHARS + 1),
            ..base()
        },
        NewProject {
            goal: Some("g".repeat(MAX_GOAL_CHARS + 1)),
            ..base()
        },
        NewProject {
            within: Some("5785".into()),
            ..base()
        },
        NewProject {
            missing: Some(GapKind::Recordings),
            within: Some("5785-07-11".into()),
            ..base()
        },
        NewProject {
            missing: Some(GapKind::Texts),
            within: Some("nope".into()),
            ..base()
        },
        NewProject {
            level: Some(1),
            ..base()
        },
        NewProject {
            // A proofreading project names its scan.
            missing: Some(GapKind::Proofreading),
            ..base()
        },
        NewProject {
            missing: Some(GapKind::Proofreading),
            level: Some(3),
            ..base()
        },
        NewProject {
            set: Some(Id::random()),
            ..base()
        },
    ] {
        assert_eq!(ask(bad.clone()), Some(UserClass::BadRequest), "{bad:?}");
    }
    assert!(
        wf.projects(ProjectStatus::Open, None, 10)
            .unwrap()
            .projects
            .is_empty()
    );
    // At the edges: the longest slug, name and goal are taken; a slug taken twice is not.
    let edge = NewProject {
        slug: "a".repeat(MAX_SLUG_CHARS),
        name: "n".repeat(MAX_NAME_CHARS),
        goal: Some("g".repeat(MAX_GOAL_CHARS)),
        ..base()
    };
    wf.create_project(&w.editor, edge.clone()).unwrap();
    assert_eq!(ask(edge), Some(UserClass::State));
    // A project without a gap hands nothing.
    wf.create_project(&w.editor, base()).unwrap();
    assert_eq!(
        class(wf.next_project_item(&w.editor, &slug("ok"))),
        Some(UserClass::State)
    );
}

proptest::proptest! {
    #[test]
    fn slugs_are_lowercase_letters_digits_and_hyphens(s in "[ -~]{0,70}") {
        let ok = !s.is_empty()
            && s.len() <= MAX_SLUG_CHARS
            && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        proptest::prop_assert_eq!(ProjectSlug::parse(&s).is_ok(), ok);
    }
}

/// Golden fixtures of the project records (see `crate::tests::golden` for the rules): these
/// bytes are what databases hold; a change here needs a new record version.
mod golden {
    use std::path::PathBuf;

    use super::super::claims::ClaimRecord;
    use super::*;
    use crate::{AccountId, Handle, Timestamp};

    fn check<R: StoredRecord + PartialEq + std::fmt::Debug>(name: &str, record: &R) {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/");
        catalog_records::golden::check(&dir, name, record);
    }

    fn at(ms: i64) -> Timestamp {
        Timestamp::from_unix_millis(1_795_356_458_123 + ms)
    }

    fn project(status: ProjectStatus) -> ProjectRecord {
        ProjectRecord {
            slug: ProjectSlug::parse("recordings-5785").unwrap(),
            name: "Recordings of 5785".into(),
            goal: None,
            set: None,
            missing: Some(GapKind::Recordings),
            within: Some("5785".into()),
            scan: None,
            level: None,
            status,
            creator: AccountId(7),
            creator_handle: Handle::parse("rivka").unwrap(),
            created_at: at(0),
            closed_at: None,
            cursor: None,
        }
    }

    #[test]
    fn project_records_keep_their_bytes() {
        check("wf_projects-v1-open.record", &project(ProjectStatus::Open));
        let closed = ProjectRecord {
            goal: Some("every farbrengen of the year heard".into()),
            set: Some(Id::parse("cat-0000-0001").unwrap()),
            missing: Some(GapKind::Proofreading),
            within: None,
            scan: Some(Id::parse("cat-0000-0002").unwrap()),
            level: Some(2),
            closed_at: Some(at(60_000)),
            cursor: Some(vec![0x15, 0xf9, 7, 11, 0, 0, 0, 0, 1]),
            ..project(ProjectStatus::Closed)
        };
        check("wf_projects-v1-closed.record", &closed);
        check(
            "wf_project_claims-v1.record",
            &ClaimRecord {
                item: GapItem::Item(Id::parse("cat-0000-0003").unwrap()),
                account: AccountId(7),
                until: at(HOLD_MILLIS),
            },
        );
        check(
            "wf_project_claims-v1-page.record",
            &ClaimRecord {
                item: GapItem::Page(12),
                account: AccountId(7),
                until: at(HOLD_MILLIS),
            },
        );
    }
}

#[test]
fn an_account_opens_at_most_ten_projects_a_day() {
    let w = World::new();
    let wf = &w.h.wf;
    let new = |slug: String| NewProject {
        slug,
        name: "A goal".into(),
        ..NewProject::default()
    };
    for n in 0..crate::MAX_PROJECTS_A_DAY {
        wf.create_project(&w.editor, new(format!("goal-{n}")))
            .unwrap();
    }
    assert_eq!(
        class(wf.create_project(&w.editor, new("one-too-many".into()))),
        Some(UserClass::RateLimited)
    );
    assert!(wf.project(&slug("one-too-many")).unwrap().is_none());
    // Stewards are not counted; the next UTC day the editor may again.
    wf.create_project(&w.steward, new("stewards".into()))
        .unwrap();
    w.h.clock.advance_millis(24 * 60 * 60 * 1000);
    wf.create_project(&w.editor, new("next-day".into()))
        .unwrap();
}

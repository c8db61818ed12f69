//! catalog-workflow: people, suggestions and issues.
//!
//! This crate owns the editing workflow, the state that is not catalog data: suggestions (proposed changes on their way to main),
//! issues (problems people report, which merged suggestions close), the conversation around
//! suggestions and items (comments, reviews, timelines), and inboxes. It keeps that state in the `wf_*` column families of the one RocksDB database the log
//! lives in; none of it is ever written to the commit log or into editions. The one way it
//! touches the catalog is by turning an approved suggestion into exactly one `NewCommit` for
//! log-core, then waiting until the projector has applied it.
//!
//! It must not know HTTP (the api crate maps [`Error`] to answers), must not write the log's or
//! the read models' column families, and reads the catalog only through the projector's
//! `ReadModels` and the log's read calls. Every call blocks; async callers use `spawn_blocking`.
//! Who someone is (accounts, tokens, sessions) is catalog-identity's: workflow holds an
//! [`Identity`] and is told who asks as a [`Principal`]; its records' format is catalog-records'.
//!
//! It is a crate of its own, rather than part of api, so that the rules of the editing workflow
//! can be tested without a server and reused by the command line and the demo loader.
//!
//! Layout:
//! - `service`: [`Workflow`], the handle holding the store, log, projector, identity and locks.
//! - `suggestions`: suggestion records; draft, put item, submit, quick fix, withdraw.
//! - `discussion/`: where people talk, apart from changing the catalog:
//!   - `threads`: the number space shared by suggestions and issues, and mention search;
//!   - `issues`: open (and reports), list, edit, label, assign, hide, close and reopen, a
//!     set's reports, and closing by a merged suggestion that says `Fixes #12`;
//!   - `conversation`: comments, reviews, review requests, renames, the timeline, the review view;
//!   - `inbox`: lines telling people what happened where they take part; reading and marking them.
//! - `subject`: what a comment or an inbox line is about ([`Subject`]).
//! - `checks`: the automatic checks (schema, references, dates, duplicates, paths).
//! - `people`: finding people to mention, a person's page (counts from counters, their
//!   suggestions and issues under every handle they held), and the counters it reads.
//! - `permissions`: who may approve (stewards, keepers of the touched sets) and look over live
//!   line fixes.
//! - `words`: words changes (edit, add, remove, start a segment of an item's body).
//! - `contents_map`: pages of a publication mapped to a unit, a new unit, or words.
//! - `transcripts`: a recording's transcript and hanacha with their sync; fixing a paragraph,
//!   anchoring one at a moment (what follows moves in proportion), confirming the sync.
//! - `texts`: a unit's translations and a hanacha's words as a text with a segment a paragraph
//!   (machine paragraphs marked until checked), fixing a paragraph, the printings of a unit, and
//!   a text's words exactly as its source gave them.
//! - `live`: trusted line fixes in open sets merged at once, and their post-review.
//! - `scan_text`: a scan's words page by page: the page served, progress, line fixes,
//!   proofreading, uploaded OCR layers and seeding the community text.
//! - `main_item`: reading an item of main that a request names.
//! - `projects`: projects on a gap of the Missing board; handing items out and holding them.
//! - `community`: what `/v1/community` and `/v1/health` read of the workflow (open suggestions
//!   at either end of their index, public open issues, open counts), each a seek or a counter.
//! - `listing`: the suggestion list (filters, newest-first pages, open and closed counts).
//! - `merging`: approval into one commit, send back, crash reconciliation.
//! - `against_main`: a suggestion's items merged with main as it stands (what approval writes).
//! - `resolutions`: which side settles each clash ([`Resolutions`]).
//! - `revert`: undoing a merged suggestion with a new one ([`Reverted`]).
//! - `restore`: a suggestion setting an item back to an earlier version.
//! - `paths`: readable paths of a suggestion's items and their collisions.
//! - `after_merge`: `AfterMerge`, the catalog as a suggestion would leave it, its kinds of item
//!   included.
//! - `schema_items`: what a suggestion's `schema` items define, and whether the catalog's items
//!   still pass.
//! - `organize`: organize plans (move, rename, merge, split, …) as one suggestion, their
//!   preview, and the catalog tree.
//! - `demo`: the sample catalog, loaded through the normal suggestion path.
//! - `limits`: caps on input that multiplies work (how deep item data may nest).
//! - `follows/`: follows (what a person follows, what changed lately) and telling followers
//!   (`followed` inbox lines) of merges, comments, reviews and changes of state.
//! - `places`: where a person stopped reading or listening (the latest 60 of each kind).
//! - `quotas`: per-account quotas (open drafts, issues and comments a day), kept as counters.
//! - `kv`: workflow's column families, read and written only as stored records.
//! - `records`: the records split from the answers built from them; golden fixtures of every
//!   record pin their bytes.
//! - `openapi` (feature `utoipa`): the OpenAPI schemas of the values serialised by hand; the
//!   records and views derive theirs.
//! - `error/`: [`Error`], its typed payloads ([`Missing`], [`NotAllowed`], [`Limit`],
//!   [`Refusal`], …), [`UserClass`] and [`Conflict`].

mod after_merge;
mod against_main;
mod bulk;
mod checks;
mod community;
mod contents_map;
pub mod demo;
mod discussion;
mod duplicates;
mod error;
mod files;
mod follows;
mod kv;
mod limits;
mod listing;
mod lists;
mod live;
mod main_item;
mod merging;
#[cfg(feature = "utoipa")]
mod openapi;
mod organize;
mod paths;
mod people;
mod permissions;
mod places;
mod projects;
mod quotas;
mod records;
mod resolutions;
mod restore;
mod revert;
mod scan_text;
mod schema_items;
mod service;
mod subject;
mod suggestions;
mod texts;
mod transcripts;
mod words;

// Who asks, and when: the identity and record types workflow's own signatures carry.
pub use catalog_identity::{
    Account, AccountId, Handle, Identity, MAX_FORMER_HANDLES, MAX_HANDLE_ENTRIES,
    MAX_NAME_CANDIDATES, NewAccount, Principal, Scopes, Via,
};
pub use catalog_records::{Clock, ManualClock, SystemClock, Timestamp};

pub use bulk::Generate;
pub use checks::{Check, CheckName, CheckStatus, MAX_PROBLEMS, Problem};
pub use community::OpenCounts;
pub use contents_map::{ContentsMapRequest, NewUnit, PageRange, PageScheme};
pub use discussion::conversation::{
    Anchor, ChangeAction, Comment, CommentId, Conversation, Event, EventKind, FieldChange,
    ItemChange, MAX_MENTIONS, MAX_REFERENCES, NewComment, NewFieldComment, NewReview,
    REVIEW_VIEW_ITEMS, Review, ReviewId, ReviewRequest, ReviewView, Reviewed, SuggestionEdit,
    TimelineItem, Verdict,
};
pub use discussion::inbox::{
    Actor, Audience, InboxFilter, InboxPage, InboxQuery, InboxTarget, LineView, MarkInbox, Marked,
    Reason, SubjectView,
};
pub use discussion::issues::{
    AssigneeFilter, ClosingSuggestion, EntityRef, Happened, Issue, IssueEdit, IssueFilter, IssueId,
    IssuePage, IssueQuery, IssueRights, IssueState, IssueStateFilter, IssueTemplate, IssueThread,
    Label, LabelCount, MAX_ASSIGNEES, MAX_BODY_CHARS, MAX_LABEL_DESCRIPTION_CHARS, MAX_LABELS,
    MAX_LABELS_ON_ISSUE, MAX_NOTE_CHARS, MAX_TITLE_CHARS, NewIssue, NewLabel, NewReport,
    ReportKind, ReportOutcome, ReportStatus, ShownIssue, StateReason, TimelineEvent, WantedState,
    templates as issue_templates,
};
pub use discussion::threads::{Thread, ThreadKind, ThreadRef, ThreadState};
pub use error::{
    Act, BadSync, BadText, BadWords, Conflict, Decision, Error, FileRefusal, IssueRefusal, Limit,
    Missing, NotAllowed, Refusal, Result, ScanTextRefusal, Unit, UserClass, Vocabulary, Wording,
};
pub use files::{
    Alike, AlikeFile, COVER_PUBLICATIONS, COVER_SCANS, CoverChoices, CoverSource, DriveFix,
    FamilyRequest, Hold, HoldDecision, HoldKind, MAX_ALIKE, MAX_ANONYMOUS_REQUESTS_AN_HOUR,
    MAX_BUCKET, MAX_PAGES_ASKED, MAX_STATEMENT_CHARS, MAX_UPLOAD_BYTES, MAX_UPLOADS_A_DAY,
    MIN_LIKENESS, MIN_STATEMENT_CHARS, NEW_ACCOUNT_WAIT_MS, Requested, Requester, Served,
    TakedownRequest, UploadCheck, UploadPlan, UploadProposal, UploadRequest, Uploaded,
    UploadedFile, parse_sha256,
};
pub use follows::{
    CHANGES_SHOWN, FollowChange, FollowPage, FollowRequest, FollowView, Followed, Following,
    MAX_FOLLOWERS_TOLD, MAX_FOLLOWS, MAX_SETS_PER_MERGE,
};
pub use limits::{MAX_BOT_SUGGESTION_ITEMS, MAX_DATA_DEPTH, MAX_SUGGESTION_ITEMS};
pub use listing::{ListFilter, Listed, StateCounts, StateFilter, SuggestionPage};
pub use lists::{EXAMINE_LIMIT, MAX_REFERENCING_SUGGESTIONS};
pub use organize::{
    ChangeKind, MAX_DEPTH, MAX_ITEMS, MAX_OPERATIONS, MAX_PLAN_ITEMS, NodeKind, Operation,
    Organized, Placement, Plan, Preview, PreviewItem, Ref, Selection, Tree, TreeCounts, TreeNode,
    Version,
};
pub use people::{
    ActivityItem, MAX_IDS, MAX_PAGE_EXAMINED, MAX_THREAD_PEOPLE, PagePosition, PeopleQuery, Person,
    PersonCounts, PersonPage,
};
pub use places::{
    MAX_PLACE_BYTES, MAX_PLACE_DEPTH, MAX_PLACE_HREF, MAX_PLACE_KEY, MAX_PLACE_SUB,
    MAX_PLACE_TITLE, MAX_PLACES, NewPlace, Place, PlaceKind, PlaceQuery,
};
pub use projects::{
    Claimed, DEFAULT_PROOFREADING_LEVEL, GapEntry, GapItem, GapKind, HOLD_MILLIS, LEFT_SHOWN,
    MAX_GOAL_CHARS, MAX_NAME_CHARS, MAX_NEXT_WALK, MAX_PROJECTS_PAGE, MAX_SLUG_CHARS, NewProject,
    Progress, Project, ProjectPage, ProjectRefusal, ProjectSlug, ProjectStatus,
};
pub use quotas::{
    BOT_DRAFT_ITEMS_FACTOR, MAX_COMMENTS_A_DAY, MAX_DRAFT_ITEMS, MAX_ISSUES_A_DAY, MAX_OPEN_DRAFTS,
    MAX_PROJECTS_A_DAY,
};
pub use resolutions::{Resolution, Resolutions, Side};
pub use revert::Reverted;
pub use scan_text::{
    LayerRole, LevelCounts, MAX_LINE_CHARS, MAX_PAGE, OcrRequest, OcrRequestFormat, ScanLayerShown,
    ScanProgress, ScanTextLine, ScanTextPage,
};
pub use service::{MERGE_WAIT, SUGGESTION_LOCK_WAIT, Workflow};
pub use subject::Subject;
pub use suggestions::{
    Created, ItemView, Kind, PostReview, PutItem, QuickFix, Status, SuggestedItem, Suggestion,
    SuggestionId, SuggestionView, ThreadNumber,
};
pub use texts::{
    HanachaRequest, MAX_CREDIT_CHARS, MAX_EVENT_TITLE_CHARS, MAX_PRINTINGS, MAX_SCANS_A_PRINTING,
    MAX_TEXTS_OF_A_UNIT, MAX_TOOL_CHARS, PrintedPages, Printing, PrintingScan, PrintingText,
    Printings, SourceText, TranslationFix, TranslationRequest,
};
pub use transcripts::{
    MAX_ALIGNMENT_SPANS, MAX_ALIGNMENT_WORDS, MAX_TRANSCRIPT_PARAGRAPHS, Paragraph, Refused,
    SyncAnchor, Transcript, TranscriptFix,
};
pub use words::{WordsChange, WordsOp};

/// The column families workflow keeps its state in, identity's included; pass them to
/// `Store::open`.
pub fn column_families() -> Vec<&'static str> {
    let mut all = catalog_identity::column_families();
    all.extend_from_slice(kv::ALL);
    all
}

#[cfg(test)]
mod tests;

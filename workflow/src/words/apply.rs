//! Applying one words change to a body: pure, so every rule is tested without a store.
//!
//! Segments are found by id anywhere in a version (children included). A change that names
//! the words as the person saw them (`before`) is refused when the segment now holds other
//! words, or is gone: the person would otherwise overwrite words they never saw.

use std::collections::HashSet;

use catalog_schemas::body::{Body, Profile, Run, Segment, SegmentId, SegmentKind, Version};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::runs::{read_runs, same_words, seen_runs};
use crate::error::{BadWords, Missing};

/// What a words change does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WordsOp {
    /// New words for an existing segment (and, with `kind`, a new kind).
    Edit,
    /// A new segment right after the one named, with an id of its own.
    Add,
    /// Takes the segment named (and anything nested in it) out.
    Remove,
    /// A page's first words: a new first segment, making the version (and the body) when the
    /// item has none yet.
    Start,
}

impl WordsOp {
    pub fn as_str(self) -> &'static str {
        match self {
            WordsOp::Edit => "edit",
            WordsOp::Add => "add",
            WordsOp::Remove => "remove",
            WordsOp::Start => "start",
        }
    }
}

/// A words change with its ids and kind read; the runs are read against the version's notes
/// when it is applied.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub op: WordsOp,
    pub version: SegmentId,
    pub segment: Option<SegmentId>,
    pub text: Option<Value>,
    pub before: Option<Value>,
    pub kind: Option<SegmentKind>,
    pub language: Option<String>,
}

/// Why a change cannot be applied. Apart from the crate's `Error` because a change to words
/// that moved on is a clash, and only the caller knows the item to name in it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum NotApplied {
    /// The request is wrong (400).
    Bad(BadWords),
    /// What it names is not there, and the person did not say what they saw (404).
    Missing(Missing),
    /// The segment no longer holds the words the person saw (409): `field` is its JSON Pointer
    /// in the item's data, `main` its words now (`None` when it is gone).
    Changed {
        field: String,
        before: Vec<Run>,
        main: Option<Vec<Run>>,
    },
}

/// The body after the change, and the pointer of the segment it touched.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Applied {
    pub body: Body,
    pub field: String,
    /// The touched segment's new words (`None` for a removal).
    pub text: Option<Vec<Run>>,
}

type Outcome<T> = Result<T, NotApplied>;

/// Applies `plan` to `body` (`None` when the item holds no words yet). `fresh` makes segment
/// ids; it is asked again until it gives one no version uses.
pub(crate) fn apply(
    body: Option<Body>,
    plan: &Plan,
    fresh: &mut dyn FnMut() -> SegmentId,
) -> Outcome<Applied> {
    let mut body = match body {
        Some(body) => body,
        None if plan.op == WordsOp::Start => Body {
            profile: Profile::plain(),
            versions: Vec::new(),
            body_source: None,
        },
        None => {
            return Err(NotApplied::Missing(Missing::Words(plan.op)));
        }
    };
    let taken = ids_in_use(&body);
    let vi = match body.versions.iter().position(|v| v.id == plan.version) {
        Some(i) => {
            if let Some(language) = &plan.language
                && *language != body.versions[i].language
            {
                return Err(NotApplied::Bad(BadWords::Language {
                    version: plan.version.clone(),
                    is: body.versions[i].language.clone(),
                    sent: language.clone(),
                }));
            }
            i
        }
        None if plan.op == WordsOp::Start => {
            let language = plan.language.clone().ok_or_else(|| {
                NotApplied::Bad(BadWords::NewVersionLanguage(plan.version.clone()))
            })?;
            body.versions.push(Version {
                id: plan.version.clone(),
                language,
                title: None,
                credit: None,
                licence: None,
                url: None,
                segments: Vec::new(),
                notes: Vec::new(),
            });
            body.versions.len() - 1
        }
        None => {
            return Err(NotApplied::Missing(Missing::Version(plan.version.clone())));
        }
    };
    let version = &mut body.versions[vi];
    let notes: Vec<SegmentId> = version.notes.iter().map(|n| n.id.clone()).collect();
    let text = plan
        .text
        .as_ref()
        .map(|v| read_runs("text", v, Some(&notes)))
        .transpose()
        .map_err(NotApplied::Bad)?;
    let before = plan
        .before
        .as_ref()
        .map(|v| seen_runs(v, plan.segment.as_ref()))
        .transpose()
        .map_err(NotApplied::Bad)?;
    let versions_field = format!("/body/versions/{}/segments", version.id);

    if plan.op == WordsOp::Start {
        let first = version.segments.first();
        let field = first.map_or_else(
            || versions_field.clone(),
            |s| format!("{versions_field}/{}/text", s.id),
        );
        if let Some(before) = before {
            let now = first.map(|s| s.text.clone()).unwrap_or_default();
            if !same_words(&before, &now) {
                return Err(NotApplied::Changed {
                    field,
                    before,
                    main: first.map(|s| s.text.clone()),
                });
            }
        }
        let id = match &plan.segment {
            Some(id) if taken.contains(id) => {
                return Err(NotApplied::Bad(BadWords::SegmentIdTaken(id.clone())));
            }
            Some(id) => id.clone(),
            None => fresh_id(&taken, fresh),
        };
        let text = text.ok_or(NotApplied::Bad(BadWords::NoNewWords(WordsOp::Start)))?;
        version.segments.insert(
            0,
            new_segment(
                id.clone(),
                plan.kind.unwrap_or(SegmentKind::Paragraph),
                text.clone(),
            ),
        );
        return Ok(Applied {
            field: format!("{versions_field}/{id}/text"),
            body,
            text: Some(text),
        });
    }

    let target = plan
        .segment
        .clone()
        .ok_or(NotApplied::Bad(BadWords::NamesNoSegment(plan.op)))?;
    let Some(at) = locate(&version.segments, &target) else {
        return Err(match before {
            Some(before) => NotApplied::Changed {
                field: format!("{versions_field}/{target}/text"),
                before,
                main: None,
            },
            None => NotApplied::Missing(Missing::Segment {
                version: version.id.clone(),
                segment: target,
            }),
        });
    };
    let field = pointer(&versions_field, &version.segments, &at);
    let (list, index) = list_at(&mut version.segments, &at);
    if let Some(before) = before
        && !same_words(&before, &list[index].text)
    {
        return Err(NotApplied::Changed {
            field: format!("{field}/text"),
            before,
            main: Some(list[index].text.clone()),
        });
    }
    match plan.op {
        WordsOp::Edit => {
            let text = text.ok_or(NotApplied::Bad(BadWords::NoNewWords(WordsOp::Edit)))?;
            let segment = &mut list[index];
            let kind = plan.kind.unwrap_or(segment.kind);
            if same_words(&text, &segment.text) && kind == segment.kind {
                return Err(NotApplied::Bad(BadWords::ChangesNothing(target)));
            }
            segment.text = text.clone();
            segment.kind = kind;
            Ok(Applied {
                field: format!("{field}/text"),
                body,
                text: Some(text),
            })
        }
        WordsOp::Add => {
            let text = text.ok_or(NotApplied::Bad(BadWords::NoNewWords(WordsOp::Add)))?;
            let id = fresh_id(&taken, fresh);
            list.insert(
                index + 1,
                new_segment(
                    id.clone(),
                    plan.kind.unwrap_or(SegmentKind::Paragraph),
                    text.clone(),
                ),
            );
            let parent = field.rsplit_once('/').map_or("", |(head, _)| head);
            Ok(Applied {
                field: format!("{parent}/{id}/text"),
                body,
                text: Some(text),
            })
        }
        WordsOp::Remove => {
            list.remove(index);
            Ok(Applied {
                field,
                body,
                text: None,
            })
        }
        WordsOp::Start => unreachable!("start is handled above"),
    }
}

fn new_segment(id: SegmentId, kind: SegmentKind, text: Vec<Run>) -> Segment {
    Segment {
        id,
        kind,
        n: None,
        end: false,
        origin: None,
        text,
        children: Vec::new(),
    }
}

/// Every segment and note id of every version: a new segment's id must be new to all of them,
/// since one id names one place in every version.
fn ids_in_use(body: &Body) -> HashSet<SegmentId> {
    fn walk(segments: &[Segment], out: &mut HashSet<SegmentId>) {
        for s in segments {
            out.insert(s.id.clone());
            walk(&s.children, out);
        }
    }
    let mut out = HashSet::new();
    for v in &body.versions {
        walk(&v.segments, &mut out);
        out.extend(v.notes.iter().map(|n| n.id.clone()));
    }
    out
}

fn fresh_id(taken: &HashSet<SegmentId>, fresh: &mut dyn FnMut() -> SegmentId) -> SegmentId {
    loop {
        let id = fresh();
        if !taken.contains(&id) {
            return id;
        }
    }
}

/// The indexes leading to segment `id`: the top-level index, then one per level of children.
fn locate(segments: &[Segment], id: &SegmentId) -> Option<Vec<usize>> {
    for (i, s) in segments.iter().enumerate() {
        if s.id == *id {
            return Some(vec![i]);
        }
        if let Some(mut rest) = locate(&s.children, id) {
            rest.insert(0, i);
            return Some(rest);
        }
    }
    None
}

/// The list holding the segment at `at`, and its index in that list.
fn list_at<'a>(segments: &'a mut Vec<Segment>, at: &[usize]) -> (&'a mut Vec<Segment>, usize) {
    let (last, parents) = at.split_last().expect("a located segment has an index");
    let mut list = segments;
    for &i in parents {
        list = &mut list[i].children;
    }
    (list, *last)
}

/// The JSON Pointer of the segment at `at`, segments addressed by their ids
/// (`/body/versions/he/segments/s1/children/s1.1`), the way merges name them.
fn pointer(head: &str, segments: &[Segment], at: &[usize]) -> String {
    let mut out = head.to_owned();
    let mut list = segments;
    for (depth, &i) in at.iter().enumerate() {
        if depth > 0 {
            out.push_str("/children");
        }
        out.push('/');
        out.push_str(list[i].id.as_str());
        list = &list[i].children;
    }
    out
}

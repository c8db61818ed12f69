//! A small sample catalog for `catalog serve --demo`, written for this project.
//!
//! It is loaded only through the normal path (draft, put items, submit, approve), so it shows
//! up as real commits with real authors and approvers: several commits rather than one, a
//! keeper approving an editor's suggestions, and a later correction that gives an event a
//! second revision and a new path (its old path then redirects).

use catalog_log_core::Seq;
use catalog_schemas::{Id, ItemType, OrderKey};
use serde::Serialize;
use serde_json::{Value, json};

use crate::error::{Error, Refusal, Result};
use crate::resolutions::Resolutions;
use crate::service::Workflow;
use crate::suggestions::{PutItem, SuggestionId};
use catalog_identity::Handle;
use catalog_identity::NewAccount;
use catalog_identity::{Principal, Scopes, Via};

pub const STEWARD: &str = "demo-steward";
pub const KEEPER: &str = "demo-keeper";
pub const EDITOR: &str = "demo-editor";

/// What the loader made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DemoReport {
    pub accounts: Vec<Handle>,
    pub suggestions: usize,
    /// Items created (later edits of them are not counted again).
    pub items: usize,
    pub head: Seq,
    /// The event whose date was corrected: two revisions, and its first path redirects.
    pub corrected_event: Id,
    pub old_event_path: String,
}

/// Loads the sample catalog into an empty store.
pub fn load(wf: &Workflow) -> Result<DemoReport> {
    let head = wf.inner.log.head();
    if head != Seq(0) {
        return Err(Refusal::DemoNotEmpty(head).into());
    }
    let steward = person(wf, STEWARD, "Demo Steward", true)?;
    let keeper = person(wf, KEEPER, "Demo Keeper", false)?;
    let editor = person(wf, EDITOR, "Demo Editor", false)?;
    let mut report = DemoReport {
        accounts: vec![
            steward.handle.clone(),
            keeper.handle.clone(),
            editor.handle.clone(),
        ],
        suggestions: 0,
        items: 0,
        head,
        corrected_event: Id::random(),
        old_event_path: String::new(),
    };

    // 1. The set and the people and places everything else points at.
    let mut d = Draft::new(
        wf,
        &steward,
        "Start the demo catalog",
        Some("A set for the sample, two authors, a place and a topic."),
    )?;
    let set = d.add(
        ItemType::Set,
        json!({
            "name": { "he": "אוסף לדוגמה", "en": "Sample collection" },
            "slug": "sample",
            "keepers": [KEEPER],
            "policy": "reviewed"
        }),
    )?;
    let rebbe = d.add(
        ItemType::Author,
        json!({
            "name": { "he": "הרבי (לדוגמה)", "en": "The Rebbe (sample)" },
            "kind": "rebbe", "rebbe": 7, "slug": "sample-rebbe", "sets": [set]
        }),
    )?;
    let editor_author = d.add(
        ItemType::Author,
        json!({
            "name": { "he": "ועד המערכת לדוגמה", "en": "Sample editorial board" },
            "kind": "editor", "slug": "sample-editors", "sets": [set]
        }),
    )?;
    let place = d.add(
        ItemType::Place,
        json!({
            "name": { "he": "בית מדרש לדוגמה", "en": "Sample study hall" },
            "slug": "sample-hall", "sets": [set]
        }),
    )?;
    let topic = d.add(
        ItemType::Topic,
        json!({
            "name": { "he": "שמחה", "en": "Joy" }, "slug": "joy", "sets": [set]
        }),
    )?;
    d.merge(&steward, &mut report)?;

    // 2. Four farbrengens, one on a day of Adar II of a leap year.
    let mut d = Draft::new(wf, &steward, "Add four farbrengens", None)?;
    let farbrengen = |he: &str, en: &str, date: &str, occasion: &str| {
        json!({
            "kind": "farbrengen", "title": { "he": he, "en": en }, "date": date,
            "place": place, "occasion": occasion, "sets": [set]
        })
    };
    let tishrei = d.add(
        ItemType::Event,
        farbrengen(
            "התוועדות שמחת תורה",
            "Simchas Torah farbrengen",
            "5783-01-23",
            "Simchas Torah",
        ),
    )?;
    let shevat = d.add(
        ItemType::Event,
        farbrengen(
            "התוועדות יו\"ד שבט",
            "Yud Shevat farbrengen",
            "5783-05-11",
            "Yud Shevat",
        ),
    )?;
    let purim = d.add(
        ItemType::Event,
        farbrengen("התוועדות פורים", "Purim farbrengen", "5784-06B-14", "Purim"),
    )?;
    let nissan = d.add(
        ItemType::Event,
        farbrengen(
            "התוועדות י\"א ניסן",
            "Yud Alef Nissan farbrengen",
            "5784-07-11",
            "Yud Alef Nissan",
        ),
    )?;
    d.merge(&steward, &mut report)?;

    // 3. A work in two volumes, suggested by the editor and approved by the set's keeper.
    let mut d = Draft::new(
        wf,
        &editor,
        "Add a sample collection of talks",
        Some("Two volumes, five talks, each tied to the farbrengen it was said at."),
    )?;
    let work = d.add(
        ItemType::Work,
        json!({
            "title": { "he": "שיחות לדוגמה", "en": "Sample Talks" },
            "slug": "sample-talks", "authors": [rebbe, editor_author], "genre": "sichos",
            "levels": ["volume", "sicha"], "sets": [set], "topics": [topic]
        }),
    )?;
    let first = OrderKey::between(None, None).map_err(schema_error)?;
    let last = OrderKey::between(Some(&first), None).map_err(schema_error)?;
    let second = OrderKey::between(Some(&first), Some(&last)).map_err(schema_error)?;
    let fourth = OrderKey::between(Some(&last), None).map_err(schema_error)?;
    let fifth = OrderKey::between(Some(&fourth), None).map_err(schema_error)?;
    let talks = [
        ([1, 1], &first, "שיחה א", "Talk one", "5783-01-23", tishrei),
        ([1, 2], &second, "שיחה ב", "Talk two", "5783-05-11", shevat),
        ([1, 3], &last, "שיחה ג", "Talk three", "5783-05-11", shevat),
        ([2, 1], &fourth, "שיחה ד", "Talk four", "5784-06B-14", purim),
        ([2, 2], &fifth, "שיחה ה", "Talk five", "5784-07-11", nissan),
    ];
    let mut units = Vec::new();
    for (position, order, he, en, date, event) in talks {
        units.push(d.add(
            ItemType::Unit,
            json!({
                "work": work, "position": position, "order": order.as_str(),
                "label": { "he": he, "en": en }, "kind": "sicha", "date": date,
                "events": [event], "sets": [set]
            }),
        )?);
    }
    d.merge(&keeper, &mut report)?;

    // 4. A printing of volume one, its scan and the community text of one page.
    let mut d = Draft::new(
        wf,
        &steward,
        "Add the printing of volume one",
        Some("With a scan and the first page's words, line by line."),
    )?;
    let publication = d.add(ItemType::Publication, json!({
        "kind": "volume", "title": { "he": "שיחות לדוגמה, כרך א", "en": "Sample Talks, volume 1" },
        "work": work, "publisher": "Sample Press", "date": "5784", "slug": "sample-talks-1",
        "sets": [set]
    }))?;
    let scan = d.add(
        ItemType::Scan,
        json!({
            "publication": publication,
            "file": "5a0c1e7d3b9f2a4c6e8d0f1a3b5c7d9e1f2a4b6c8d0e2f4a6b8c0d2e4f6a8b0c",
            "completeness": "complete", "preferred": true, "sets": [set]
        }),
    )?;
    let layer = d.add(
        ItemType::TextLayer,
        json!({
            "scan": scan, "kind": "community", "sets": [set]
        }),
    )?;
    d.add(ItemType::TextPage, json!({
        "layer": layer, "page": 1, "proofread": 1, "sets": [set],
        "lines": [
            { "id": "l1", "text": "שיחה א", "box": [120, 80, 360, 40], "checked": true, "level": 1 },
            { "id": "l2", "text": "בשמחת תורה נאמר שהשמחה פורצת גדר.", "box": [60, 140, 480, 32], "checked": true, "level": 1 },
            { "id": "l3", "text": "ומכאן למדים שכל אחד יכול להוסיף.", "box": [60, 180, 480, 32], "checked": false, "level": 0 }
        ]
    }))?;
    d.merge(&steward, &mut report)?;

    // 5. A recording of one farbrengen, a transcript of it and a relation.
    let mut d = Draft::new(
        wf,
        &editor,
        "Add a recording of the Yud Alef Nissan farbrengen",
        Some("With the opening words transcribed."),
    )?;
    d.add(
        ItemType::Recording,
        json!({
            "event": nissan, "url": "https://example.org/sample/nissan-5784.mp3",
            "durationMs": 3_600_000, "part": 1, "sets": [set]
        }),
    )?;
    d.add(ItemType::Text, json!({
        "kind": "transcript", "event": nissan, "unit": units[4], "language": "he",
        "sets": [set],
        "body": {
            "profile": "plain",
            "versions": [{
                "id": "he", "language": "he", "title": "פתיחה",
                "segments": [
                    { "id": "p1", "kind": "heading", "text": [{ "text": "פתיחה" }] },
                    { "id": "p2", "kind": "paragraph", "text": [
                        { "text": "ביום הזה " }, { "text": "מוסיפים", "marks": ["b"] },
                        { "text": " בכל דבר טוב." }, { "note": "n1" }
                    ] }
                ],
                "notes": [{ "id": "n1", "kind": "note", "n": "1", "text": [{ "text": "ראה שיחה ה." }] }]
            }]
        }
    }))?;
    d.add(
        ItemType::Relation,
        json!({
            "kind": "based-on", "from": units[4], "to": nissan, "sets": [set]
        }),
    )?;
    d.merge(&keeper, &mut report)?;

    // 6. A correction: the Yud Shevat farbrengen was a day earlier. Its path moves with its date.
    let old_path = "/events/5783-05-11".to_string();
    let mut d = Draft::new(
        wf,
        &editor,
        "Correct the date of the Yud Shevat farbrengen",
        Some("It was held on the tenth, the day itself."),
    )?;
    d.change(
        shevat,
        farbrengen(
            "התוועדות יו\"ד שבט",
            "Yud Shevat farbrengen",
            "5783-05-10",
            "Yud Shevat",
        ),
    )?;
    d.merge(&keeper, &mut report)?;
    report.corrected_event = shevat;
    report.old_event_path = old_path;
    report.head = wf.inner.log.head();
    tracing::info!(
        head = report.head.0,
        items = report.items,
        "demo catalog loaded"
    );
    Ok(report)
}

fn schema_error(e: catalog_schemas::SchemaError) -> Error {
    Refusal::DemoOrderKey(e).into()
}

/// Makes a demo account and the session-like principal the loader acts as.
fn person(wf: &Workflow, handle: &str, name: &str, steward: bool) -> Result<Principal> {
    let account = wf.identity().add_account(NewAccount {
        handle: Handle::parse(handle)?,
        name: name.to_string(),
        steward,
        trusted: steward,
        password: None,
    })?;
    Ok(Principal::of(account, Scopes::READ_WRITE, Via::Session))
}

/// One demo suggestion being written.
struct Draft<'a> {
    wf: &'a Workflow,
    author: &'a Principal,
    id: SuggestionId,
    created: usize,
}

impl<'a> Draft<'a> {
    fn new(
        wf: &'a Workflow,
        author: &'a Principal,
        title: &str,
        description: Option<&str>,
    ) -> Result<Draft<'a>> {
        let id = wf.create_draft(author, title, description)?.id;
        Ok(Draft {
            wf,
            author,
            id,
            created: 0,
        })
    }

    fn add(&mut self, ty: ItemType, data: Value) -> Result<Id> {
        let item = self.wf.put_item(
            self.author,
            self.id,
            PutItem {
                id: None,
                ty: Some(ty),
                data: Some(data),
            },
        )?;
        self.created += 1;
        Ok(item.id)
    }

    fn change(&mut self, id: Id, data: Value) -> Result<()> {
        self.wf.put_item(
            self.author,
            self.id,
            PutItem {
                id: Some(id),
                ty: None,
                data: Some(data),
            },
        )?;
        Ok(())
    }

    fn merge(self, approver: &Principal, report: &mut DemoReport) -> Result<()> {
        self.wf.submit(self.author, self.id)?;
        self.wf.approve(approver, self.id, &Resolutions::none())?;
        report.suggestions += 1;
        report.items += self.created;
        Ok(())
    }
}

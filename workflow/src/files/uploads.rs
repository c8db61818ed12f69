//! Uploads: a file (a scan's PDF, a recording's audio, a hanacha or a document) and the items
//! that hold it, as one suggestion. The request is checked whole before a byte is stored
//! ([`Workflow::plan_upload`]), the bytes are stored by the API (streamed, hashed as written),
//! and only then is the suggestion made ([`Workflow::add_upload`]); a steward's merges at once.
//!
//! Who may upload: a new account waits [`NEW_ACCOUNT_WAIT_MS`] (stewards and trusted people do
//! not), and everyone may upload [`MAX_UPLOADS_A_DAY`] files a UTC day.

use catalog_identity::Principal;
use catalog_schemas::file_rights::FileRights;
use catalog_schemas::{DateKey, Id, ItemType};
use serde_json::{Value, json};

use crate::error::{FileRefusal, Result};
use crate::main_item::MainItem;
use crate::quotas::Daily;
use crate::resolutions::Resolutions;
use crate::service::Workflow;
use crate::suggestions::{Items, Kind, Status, SuggestedItem, Suggestion};

/// The largest file one upload may hold.
pub const MAX_UPLOAD_BYTES: u64 = 1 << 30;
/// Files one person may upload in a UTC day.
pub const MAX_UPLOADS_A_DAY: u64 = 50;
/// How old an account must be to upload (stewards and trusted people excepted).
pub const NEW_ACCOUNT_WAIT_MS: i64 = 86_400_000;
/// A title given with an upload, in characters.
const MAX_TITLE_CHARS: usize = 300;

/// `POST /v1/uploads`'s query.
#[derive(Debug, Clone, Default)]
pub struct UploadRequest {
    pub what: String,
    pub for_: Option<Id>,
    pub event_title: Option<String>,
    pub event_date: Option<String>,
    pub kind: Option<String>,
    pub set: Option<Id>,
    pub author: Option<Id>,
    pub genre: Option<String>,
    pub unit: Option<Id>,
    pub rights: String,
    pub as_: Option<String>,
    pub title: Option<String>,
    pub year: Option<String>,
}

/// A checked upload, waiting for its bytes.
#[derive(Debug, Clone)]
pub struct UploadPlan {
    what: What,
    request: UploadRequest,
    rights: FileRights,
    /// The item `for` names, read when the plan was made.
    for_item: Option<MainItem>,
    event: Option<(String, DateKey)>,
    year: Option<DateKey>,
    title: Option<String>,
}

impl UploadPlan {
    /// What the body must be: `audio/` for a recording, a PDF for the rest.
    pub fn wants_audio(&self) -> bool {
        self.what == What::Recording
    }
}

/// The bytes as stored.
#[derive(Debug, Clone)]
pub struct UploadedFile {
    pub sha256: String,
    pub bytes: u64,
    pub mime: String,
    /// False when the same bytes were held already.
    pub fresh: bool,
}

/// What an upload made.
#[derive(Debug, Clone)]
pub struct Uploaded {
    pub suggestion: Suggestion,
    pub file: UploadedFile,
    /// The new items, the one holding the file first.
    pub items: Vec<(Id, ItemType)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum What {
    Recording,
    Hanacha,
    Scan,
    Document,
}

/// How a scan is placed (`as`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum As {
    ScanOf,
    Printing,
    Teshura,
    Sefer,
    Letter,
    Document,
}

const HANACHA_KINDS: [&str; 7] = [
    "bilti-mugah",
    "mugah",
    "maamar",
    "hagahos",
    "hosofos",
    "english",
    "other",
];

fn bad(field: &'static str, message: impl Into<String>) -> crate::error::Error {
    FileRefusal::BadParameter {
        field,
        message: message.into(),
    }
    .into()
}

fn text_param(field: &'static str, value: &Option<String>) -> Result<Option<String>> {
    match value {
        Some(value) => crate::texts::short_text(field, value, MAX_TITLE_CHARS, true),
        None => Ok(None),
    }
}

impl Workflow {
    /// Whether `principal` may upload now (account age and today's count); checked before the
    /// body is read, and the count again when the upload is added.
    pub fn may_upload(&self, principal: &Principal) -> Result<()> {
        principal.require_write()?;
        if !principal.steward && !principal.trusted {
            let account = self.identity().account(principal.account)?;
            let created = account.map_or(i64::MAX, |a| a.created_at.unix_millis());
            if self.now().unix_millis().saturating_sub(created) < NEW_ACCOUNT_WAIT_MS {
                return Err(FileRefusal::AccountTooNew {
                    who: principal.handle.to_string(),
                }
                .into());
            }
        }
        self.count_daily_n(principal, Daily::Uploads, 1).map(drop)
    }

    /// Checks an upload's parameters and the items they name, before any byte is stored.
    pub fn plan_upload(&self, principal: &Principal, request: UploadRequest) -> Result<UploadPlan> {
        self.may_upload(principal)?;
        let what = match request.what.as_str() {
            "recording" => What::Recording,
            "hanacha" => What::Hanacha,
            "scan" => What::Scan,
            "document" => What::Document,
            "" => {
                return Err(FileRefusal::Required {
                    field: "what",
                    why: "(recording, hanacha, scan or document)",
                }
                .into());
            }
            other => {
                return Err(bad(
                    "what",
                    format!(
                        "{} is not one of recording, hanacha, scan, document",
                        catalog_schemas::quote(other)
                    ),
                ));
            }
        };
        if request.rights.is_empty() {
            return Err(FileRefusal::Required {
                field: "rights",
                why: "(mine, free, public-domain or unsure)",
            }
            .into());
        }
        let rights = FileRights::from_given(&request.rights).ok_or_else(|| {
            bad(
                "rights",
                format!(
                    "{} is not one of mine, free, public-domain, unsure",
                    catalog_schemas::quote(&request.rights)
                ),
            )
        })?;
        if let Some(kind) = &request.kind
            && !HANACHA_KINDS.contains(&kind.as_str())
        {
            return Err(bad(
                "kind",
                "is one of bilti-mugah, mugah, maamar, hagahos, hosofos, english, other",
            ));
        }
        let title = text_param("title", &request.title)?;
        let genre = text_param("genre", &request.genre)?;
        let year = match &request.year {
            Some(year) => Some(
                DateKey::parse(year.trim())
                    .map_err(|e| bad("year", format!("{}: {e}", catalog_schemas::quote(year))))?,
            ),
            None => None,
        };
        let event = match (&request.event_title, &request.event_date) {
            (None, None) => None,
            (Some(title), Some(date)) => {
                let title = text_param("eventTitle", &Some(title.clone()))?.unwrap_or_default();
                let key = DateKey::parse(date.trim()).map_err(|e| {
                    bad(
                        "eventDate",
                        format!("{}: {e}", catalog_schemas::quote(date)),
                    )
                })?;
                Some((title, key))
            }
            (Some(_), None) => return Err(bad("eventDate", "is given with eventTitle")),
            (None, Some(_)) => return Err(bad("eventTitle", "is given with eventDate")),
        };
        if event.is_some() && request.for_.is_some() {
            return Err(bad(
                "for",
                "give for (an event the catalog has) or eventTitle with eventDate, not both",
            ));
        }
        let for_item = match request.for_ {
            Some(id) => Some(self.main_item(id)?),
            None => None,
        };
        for (field, id, ty) in [
            ("set", request.set, ItemType::Set),
            ("author", request.author, ItemType::Author),
            ("unit", request.unit, ItemType::Unit),
        ] {
            if let Some(id) = id {
                self.main_item_of(field, id, ty)?;
            }
        }
        let plan = UploadPlan {
            what,
            request: UploadRequest { genre, ..request },
            rights,
            for_item,
            event,
            year,
            title,
        };
        // Build the items once now, so every refusal comes before the bytes.
        plan_items(
            self,
            &plan,
            &UploadedFile {
                sha256: "0".repeat(64),
                bytes: 1,
                mime: if plan.wants_audio() {
                    "audio/mpeg"
                } else {
                    "application/pdf"
                }
                .into(),
                fresh: true,
            },
        )?;
        Ok(plan)
    }

    /// Makes the upload's suggestion once its bytes are stored: merged at once for a steward,
    /// else open for review.
    pub fn add_upload(
        &self,
        principal: &Principal,
        plan: &UploadPlan,
        file: UploadedFile,
    ) -> Result<Uploaded> {
        // The items first: one the catalog lost since the plan refuses the upload before its
        // count is written.
        let (items, made, title) = plan_items(self, plan, &file)?;
        {
            let _guard = self.registry_lock();
            let mut batch = self.kv().batch();
            if let Some(counted) = self.count_daily_n(principal, Daily::Uploads, 1)? {
                counted.write(&mut batch)?;
            }
            self.kv().write(batch)?;
        }
        let description = format!(
            "{} bytes of {}, sha256 {}; rights given: {}.",
            file.bytes, file.mime, file.sha256, plan.request.rights
        );
        let opened = self.open_with_items(
            principal,
            &title,
            Some(&description),
            Kind::Upload,
            None,
            &items,
        )?;
        let suggestion = if principal.steward {
            match self.approve(principal, opened.id, &Resolutions::none()) {
                Ok(merged) => merged,
                Err(e) if e.is_user_error() => self.submitted(principal, opened, &items)?,
                Err(e) => return Err(e),
            }
        } else {
            self.submitted(principal, opened, &items)?
        };
        tracing::info!(
            suggestion = suggestion.id.0,
            sha256 = %file.sha256,
            bytes = file.bytes,
            fresh = file.fresh,
            "upload suggested"
        );
        Ok(Uploaded {
            suggestion,
            file,
            items: made,
        })
    }

    fn submitted(
        &self,
        principal: &Principal,
        opened: Suggestion,
        items: &Items,
    ) -> Result<Suggestion> {
        let opened = self.require_suggestion(opened.id)?;
        self.record_submitted(principal, &opened, Status::Draft, items, false)?;
        Ok(opened)
    }
}

/// The items an upload adds, the same ids listed with their kinds (the file's holder first),
/// and the suggestion's title.
type Planned = (Items, Vec<(Id, ItemType)>, String);

fn plan_items(wf: &Workflow, plan: &UploadPlan, file: &UploadedFile) -> Result<Planned> {
    let mut items = Items::new();
    let mut made = Vec::new();
    let mut add = |items: &mut Items, ty: ItemType, data: Value| -> Result<Id> {
        let id = wf.fresh_id(items)?;
        items.insert(id, SuggestedItem::created(id, ty, data));
        made.push((id, ty));
        Ok(id)
    };
    let request = &plan.request;
    let mut facts = json!({
        "file": file.sha256,
        "bytes": file.bytes,
        "mime": file.mime,
        "rights": plan.rights.as_str(),
        "rightsGiven": request.rights,
    });
    let for_kind = |expected: &'static str, wanted: &[ItemType]| -> Result<&MainItem> {
        match &plan.for_item {
            Some(item) if wanted.contains(&item.ty) => Ok(item),
            Some(item) => Err(FileRefusal::ForKind {
                id: item.id,
                is: item.ty,
                expected,
            }
            .into()),
            None => Err(FileRefusal::Required {
                field: "for",
                why: expected,
            }
            .into()),
        }
    };
    let sets_of = |item: &MainItem| item.sets();
    // The event a recording or a hanacha is of: `for`, or a new one.
    let event_of = |items: &mut Items,
                    add: &mut dyn FnMut(&mut Items, ItemType, Value) -> Result<Id>|
     -> Result<(Id, String, Option<Value>)> {
        if let Some((title, date)) = &plan.event {
            let id = add(
                items,
                ItemType::Event,
                json!({ "kind": "farbrengen", "title": { "he": title }, "date": date.to_string() }),
            )?;
            return Ok((id, format!("{title} ({date})"), None));
        }
        let event = for_kind(
            "(an event) or eventTitle with eventDate: what it is of",
            &[ItemType::Event],
        )?;
        Ok((event.id, event.shown(), sets_of(event)))
    };

    // The scan a PDF becomes, under `publication`.
    let scan = |facts: &Value, publication: Id, sets: &Option<Value>| -> Value {
        let mut data = facts.clone();
        data["publication"] = json!(publication.to_string());
        if let Some(sets) = sets {
            data["sets"] = sets.clone();
        }
        data
    };
    let in_set = |data: &mut Value, sets: &Option<Value>| {
        if let Some(sets) = sets {
            data["sets"] = sets.clone();
        }
    };
    let title_of = |fallback: &str| -> Value {
        json!({ "he": plan.title.clone().unwrap_or_else(|| fallback.to_owned()) })
    };

    let title = match plan.what {
        What::Recording => {
            let (event, shown, sets) = event_of(&mut items, &mut add)?;
            facts["event"] = json!(event.to_string());
            in_set(&mut facts, &sets);
            // The recording is made first so it is the first item named.
            let id = wf.fresh_id(&items)?;
            items.insert(id, SuggestedItem::created(id, ItemType::Recording, facts));
            made.insert(0, (id, ItemType::Recording));
            format!("Upload a recording of {}", crate::transcripts::clip(&shown))
        }
        What::Hanacha => {
            let (event, shown, sets) = event_of(&mut items, &mut add)?;
            let mut publication = json!({
                "kind": "hanacha",
                "title": title_of(&format!("הנחה: {shown}")),
                "event": event.to_string(),
            });
            if let Some(kind) = &request.kind {
                publication["hanachaKind"] = json!(kind);
            }
            in_set(&mut publication, &sets);
            let p = add(&mut items, ItemType::Publication, publication)?;
            add(&mut items, ItemType::Scan, scan(&facts, p, &sets))?;
            format!("Upload a hanacha of {}", crate::transcripts::clip(&shown))
        }
        What::Document => document(plan, &facts, &mut items, &mut add, &scan)?,
        What::Scan => {
            let placed = match request.as_.as_deref() {
                None | Some("scan-of") => As::ScanOf,
                Some("printing") => As::Printing,
                Some("teshura") => As::Teshura,
                Some("sefer") => As::Sefer,
                Some("letter") => As::Letter,
                Some("document") => As::Document,
                Some(other) => {
                    return Err(bad(
                        "as",
                        format!(
                            "{} is not one of scan-of, printing, teshura, sefer, letter, document",
                            catalog_schemas::quote(other)
                        ),
                    ));
                }
            };
            match placed {
                As::ScanOf => {
                    let publication = for_kind(
                        "(the publication it is a scan of)",
                        &[ItemType::Publication],
                    )?;
                    let sets = sets_of(publication);
                    add(
                        &mut items,
                        ItemType::Scan,
                        scan(&facts, publication.id, &sets),
                    )?;
                    format!("Upload a scan of {}", publication.shown())
                }
                As::Printing => {
                    let work = for_kind("(the sefer it is a printing of)", &[ItemType::Work])?;
                    let sets = sets_of(work);
                    let fallback = work
                        .data
                        .get("title")
                        .and_then(|t| t.get("he"))
                        .and_then(Value::as_str)
                        .unwrap_or("printing")
                        .to_owned();
                    let mut publication = json!({
                        "kind": "volume",
                        "title": title_of(&fallback),
                        "work": work.id.to_string(),
                    });
                    if let Some(year) = &plan.year {
                        publication["date"] = json!(year.to_string());
                    }
                    in_set(&mut publication, &sets);
                    let p = add(&mut items, ItemType::Publication, publication)?;
                    add(&mut items, ItemType::Scan, scan(&facts, p, &sets))?;
                    format!("Upload a new printing of {}", work.shown())
                }
                As::Teshura => {
                    let mut publication = json!({ "kind": "teshura", "title": title_of("תשורה") });
                    let mut sets = None;
                    match &plan.for_item {
                        Some(item) if item.ty == ItemType::Event => {
                            publication["simcha"] = json!(item.id.to_string());
                        }
                        Some(item) if item.ty == ItemType::Set => {
                            sets = Some(json!([item.id.to_string()]));
                        }
                        Some(item) => {
                            return Err(FileRefusal::ForKind {
                                id: item.id,
                                is: item.ty,
                                expected: "a teshura is given for a simcha (an event) or kept in a set",
                            }
                            .into());
                        }
                        None => {}
                    }
                    if let Some(year) = &plan.year {
                        publication["date"] = json!(year.to_string());
                    }
                    in_set(&mut publication, &sets);
                    let p = add(&mut items, ItemType::Publication, publication)?;
                    add(&mut items, ItemType::Scan, scan(&facts, p, &sets))?;
                    "Upload a teshura".to_owned()
                }
                As::Sefer => {
                    let Some(title) = &plan.title else {
                        return Err(FileRefusal::Required {
                            field: "title",
                            why: "for a new sefer",
                        }
                        .into());
                    };
                    let mut work = json!({ "title": { "he": title }, "slug": slug_of(title) });
                    if let Some(author) = request.author {
                        work["authors"] = json!([author.to_string()]);
                    }
                    if let Some(genre) = &request.genre {
                        work["genre"] = json!(genre);
                    }
                    let sets = request.set.map(|s| json!([s.to_string()]));
                    in_set(&mut work, &sets);
                    let w = add(&mut items, ItemType::Work, work)?;
                    let mut publication = json!({ "kind": "volume", "title": { "he": title }, "work": w.to_string() });
                    if let Some(year) = &plan.year {
                        publication["date"] = json!(year.to_string());
                    }
                    in_set(&mut publication, &sets);
                    let p = add(&mut items, ItemType::Publication, publication)?;
                    add(&mut items, ItemType::Scan, scan(&facts, p, &sets))?;
                    format!("Upload a new sefer, {}", catalog_schemas::clip(title))
                }
                As::Letter => {
                    let Some(unit) = request.unit else {
                        return Err(FileRefusal::Required {
                            field: "unit",
                            why: "for a letter (the letter the catalog has that it reproduces)",
                        }
                        .into());
                    };
                    let letter = wf.main_item_of("unit", unit, ItemType::Unit)?;
                    let sets = sets_of(&letter);
                    let mut publication = json!({ "kind": "booklet", "title": title_of(&format!("מכתב: {}", letter.shown())) });
                    in_set(&mut publication, &sets);
                    let p = add(&mut items, ItemType::Publication, publication)?;
                    let s = add(&mut items, ItemType::Scan, scan(&facts, p, &sets))?;
                    let mut relation = json!({ "kind": "reproduces", "from": s.to_string(), "to": unit.to_string() });
                    in_set(&mut relation, &sets);
                    add(&mut items, ItemType::Relation, relation)?;
                    format!("Upload a letter, {}", letter.shown())
                }
                As::Document => document(plan, &facts, &mut items, &mut add, &scan)?,
            }
        }
    };
    // The item holding the file is named first.
    if let Some(pos) = made
        .iter()
        .position(|(_, ty)| matches!(*ty, ItemType::Scan | ItemType::Recording))
    {
        let holder = made.remove(pos);
        made.insert(0, holder);
    }
    Ok((items, made, title))
}

fn document(
    plan: &UploadPlan,
    facts: &Value,
    items: &mut Items,
    add: &mut dyn FnMut(&mut Items, ItemType, Value) -> Result<Id>,
    scan: &dyn Fn(&Value, Id, &Option<Value>) -> Value,
) -> Result<String> {
    let Some(title) = &plan.title else {
        return Err(FileRefusal::Required {
            field: "title",
            why: "for a document",
        }
        .into());
    };
    let mut publication = json!({ "kind": "document", "title": { "he": title } });
    if let Some(year) = &plan.year {
        publication["date"] = json!(year.to_string());
    }
    let sets = plan.request.set.map(|s| json!([s.to_string()]));
    if let Some(sets) = &sets {
        publication["sets"] = sets.clone();
    }
    let p = add(items, ItemType::Publication, publication)?;
    add(items, ItemType::Scan, scan(facts, p, &sets))?;
    Ok(format!(
        "Upload a document, {}",
        catalog_schemas::clip(title)
    ))
}

/// A work's slug made from its title: its letters and digits (Hebrew kept, Latin lowercased),
/// a hyphen between words; `sefer` when nothing is left.
fn slug_of(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() || ('א'..='ת').contains(&c) {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
        if out.chars().count() >= 60 {
            break;
        }
    }
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() {
        "sefer".to_owned()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::slug_of;

    #[test]
    fn a_slug_keeps_the_titles_letters() {
        assert_eq!(slug_of("Likkutei Sichos, vol. 1"), "likkutei-sichos-vol-1");
        assert_eq!(slug_of("ספר המאמרים – תשמ״ט"), "ספר-המאמרים-תשמ-ט");
        assert_eq!(slug_of("!!!"), "sefer");
    }
}

//! Takedown requests and teshura family requests: anyone may file one, signed in or not (then
//! with a captcha, checked by the API, and at most [`MAX_ANONYMOUS_REQUESTS_AN_HOUR`] from one
//! address). The files named stop being served in the same batch that opens the private
//! `rights` issue stewards review it in; a steward's decision lifts the hold or keeps it.

use std::net::IpAddr;

use catalog_projector::Lookup;
use catalog_schemas::{Id, ItemType, file_rights};
use serde_json::Value;

use super::holds::{HoldKind, HoldRecord};
use crate::after_merge::stored_data;
use crate::discussion::issues::WantedState;
use crate::discussion::issues::{EntityRef, Issue, IssueId, ReportKind, ShownIssue};
use crate::error::{FileRefusal, Limit, Missing, NotAllowed, Result, Unit, Wording};
use crate::service::Workflow;
use crate::suggestions::{THREAD_COUNTER, ThreadNumber};
use catalog_identity::Principal;

/// A takedown's statement, in characters.
pub const MIN_STATEMENT_CHARS: usize = 10;
pub const MAX_STATEMENT_CHARS: usize = 4_000;
/// Requests (takedowns and family requests together) one address may file an hour without
/// signing in.
pub const MAX_ANONYMOUS_REQUESTS_AN_HOUR: u64 = 10;
/// A name, an email, a relation, a note or a contact, in characters.
const MAX_FIELD_CHARS: usize = 300;
/// Files one request may stop: a publication's scans, a teshura's.
const MAX_FILES_A_REQUEST: usize = 50;

const HOUR_MS: i64 = 3_600_000;

/// `POST /v1/takedowns`.
#[derive(Debug, Clone, Default)]
pub struct TakedownRequest {
    /// A page address, an item id, or the file's address (`/objects/<sha256>`).
    pub target: String,
    pub name: String,
    pub email: String,
    /// rights-holder / family / representative / other.
    pub relation: String,
    pub statement: String,
}

/// `POST /v1/teshuros/{id}/family-request`.
#[derive(Debug, Clone, Default)]
pub struct FamilyRequest {
    pub relation: Option<String>,
    pub note: Option<String>,
    pub contact: Option<String>,
}

/// Who files a request: a signed-in person, or a reader from an address whose captcha the API
/// checked.
#[derive(Debug, Clone, Copy)]
pub enum Requester<'a> {
    SignedIn(&'a Principal),
    Anonymous { address: IpAddr },
}

/// What filing a request did.
#[derive(Debug, Clone)]
pub struct Requested {
    /// The private issue stewards review it in.
    pub issue: ShownIssue,
    /// The files (sha256) no longer served.
    pub files: Vec<String>,
}

/// A steward's decision on a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldDecision {
    /// The request stands: the files stay unserved (their rights may then be changed by a
    /// suggestion like any other change), and the issue is closed as completed.
    Uphold,
    /// The request is turned down: the files are served again as their rights allow.
    Lift,
}

impl HoldDecision {
    pub fn parse(text: &str) -> Result<HoldDecision> {
        match text {
            "uphold" => Ok(HoldDecision::Uphold),
            "lift" => Ok(HoldDecision::Lift),
            other => Err(FileRefusal::BadDecision(other.to_owned()).into()),
        }
    }
}

const RELATIONS: [&str; 4] = ["rights-holder", "family", "representative", "other"];

impl Workflow {
    /// Files a takedown request: the target's files stop being served at once.
    pub fn file_takedown(
        &self,
        requester: Requester<'_>,
        request: TakedownRequest,
    ) -> Result<Requested> {
        let target = request.target.trim();
        field("target", target, 1, 2_000)?;
        field("name", &request.name, 1, MAX_FIELD_CHARS)?;
        field("email", &request.email, 3, MAX_FIELD_CHARS)?;
        if !request.email.contains('@') {
            return Err(FileRefusal::BadParameter {
                field: "email",
                message: "is not an email address".into(),
            }
            .into());
        }
        if !RELATIONS.contains(&request.relation.as_str()) {
            return Err(FileRefusal::BadParameter {
                field: "relation",
                message: "is one of rights-holder, family, representative, other".into(),
            }
            .into());
        }
        field(
            "statement",
            &request.statement,
            MIN_STATEMENT_CHARS,
            MAX_STATEMENT_CHARS,
        )?;
        let (entity, files) = self.target_files(target)?;
        let body = format!(
            "A takedown request for {target}.\n\nFrom: {} <{}>, {}\n\n{}",
            request.name.trim(),
            request.email.trim(),
            request.relation,
            request.statement.trim()
        );
        let title = format!("Takedown request: {}", catalog_schemas::clip(target));
        self.file_hold(requester, HoldKind::Takedown, title, body, entity, files)
    }

    /// Files a family request for teshura `id`: its scans stop being served at once.
    pub fn file_family_request(
        &self,
        requester: Requester<'_>,
        id: Id,
        request: FamilyRequest,
    ) -> Result<Requested> {
        for (name, value) in [
            ("relation", &request.relation),
            ("contact", &request.contact),
        ] {
            if let Some(value) = value {
                field(name, value, 0, MAX_FIELD_CHARS)?;
            }
        }
        if let Some(note) = &request.note {
            field("note", note, 0, MAX_STATEMENT_CHARS)?;
        }
        let teshura = self.main_item(id)?;
        let kind = teshura.data.get("kind").and_then(Value::as_str);
        if teshura.ty != ItemType::Publication || kind != Some("teshura") {
            let is = match kind {
                Some(kind) if teshura.ty == ItemType::Publication => {
                    format!("publication ({kind})")
                }
                _ => teshura.ty.to_string(),
            };
            return Err(FileRefusal::NotATeshura { id, is }.into());
        }
        let files = self.files_of(id, ItemType::Publication, &teshura.data)?;
        let mut body = format!("A family request for the teshura {}.", teshura.shown());
        for (label, value) in [
            ("Relation", &request.relation),
            ("Contact", &request.contact),
            ("Note", &request.note),
        ] {
            if let Some(value) = value.as_deref().map(str::trim).filter(|v| !v.is_empty()) {
                body.push_str(&format!("\n\n{label}: {value}"));
            }
        }
        let entity = EntityRef {
            id,
            ty: teshura.ty,
            path: teshura.path.clone(),
        };
        let title = format!(
            "Family request: {}",
            catalog_schemas::clip(&teshura.shown())
        );
        self.file_hold(
            requester,
            HoldKind::FamilyRequest,
            title,
            body,
            Some(entity),
            files,
        )
    }

    /// A steward's decision on request `number`: lift its holds or keep them, and close its
    /// issue either way.
    pub fn decide_hold(
        &self,
        principal: &Principal,
        number: ThreadNumber,
        decision: HoldDecision,
        note: Option<&str>,
    ) -> Result<ShownIssue> {
        principal.require_write()?;
        if !principal.steward {
            return Err(NotAllowed::NotSteward {
                who: principal.handle.clone(),
                what: "decide takedowns and family requests",
            }
            .into());
        }
        if self.held_by(number)?.is_empty() {
            return Err(FileRefusal::NoRequest(number.0).into());
        }
        let wanted = match decision {
            HoldDecision::Uphold => WantedState::Completed,
            HoldDecision::Lift => WantedState::NotPlanned,
        };
        // The issue's state is changed first: a decision its state refuses (a request already
        // decided and closed; reopen it to decide again) lifts nothing.
        let shown = self.set_issue_state(principal, number, wanted, note)?;
        if decision == HoldDecision::Lift {
            let mut batch = self.kv().batch();
            let lifted = self.lift_holds(&mut batch, number)?;
            self.kv().write(batch)?;
            tracing::info!(number = number.0, lifted, "hold lifted");
        }
        Ok(shown)
    }

    /// The files a target names, and the item it names (if one).
    fn target_files(&self, target: &str) -> Result<(Option<EntityRef>, Vec<[u8; 32]>)> {
        let bad = |why| FileRefusal::BadTarget {
            target: target.to_owned(),
            why,
        };
        // A full address is read for its path.
        let path = match target.split_once("://") {
            Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]),
            None => target,
        };
        let path = path.split(['?', '#']).next().unwrap_or(path);
        let last = path
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(path);
        if let Some((_, sha)) = super::parse_sha256(last) {
            if self.inner.read_models.file(&sha)?.is_none() {
                return Err(bad("names no file the catalog holds").into());
            }
            return Ok((None, vec![sha]));
        }
        let id = match Id::parse(last) {
            Ok(id) => id,
            Err(_) => {
                let path = if path.starts_with('/') {
                    path.to_owned()
                } else {
                    format!("/{path}")
                };
                match self.inner.read_models.resolve(&path)? {
                    Some(resolved) => resolved.id,
                    None => {
                        return Err(
                            bad("is not a page, an item id or a file of the catalog").into()
                        );
                    }
                }
            }
        };
        let Lookup::Found(stored) = self.inner.read_models.item_whole(id)? else {
            return Err(Missing::Item(id).into());
        };
        let data = stored_data(&stored)?;
        let files = self.files_of(id, stored.ty, &data)?;
        if files.is_empty() {
            return Err(bad("names an item that holds no file").into());
        }
        let entity = EntityRef {
            id,
            ty: stored.ty,
            path: stored.path.clone(),
        };
        Ok((Some(entity), files))
    }

    /// The files an item holds: its own, or a publication's scans'.
    fn files_of(&self, id: Id, ty: ItemType, data: &Value) -> Result<Vec<[u8; 32]>> {
        let mut out = Vec::new();
        if let Some(facts) = file_rights::facts(data)
            && let Some(sha) = catalog_projector::sha256_bytes(&facts.file)
        {
            out.push(sha);
        }
        if ty == ItemType::Publication {
            let (page, _) = self.inner.read_models.linked(
                id,
                "publication",
                Some(ItemType::Scan),
                None,
                MAX_FILES_A_REQUEST,
            )?;
            let ids: Vec<Id> = page.items.iter().map(|i| i.id).collect();
            for scan in self.inner.read_models.items(&ids)? {
                let data = stored_data(&scan)?;
                if let Some(facts) = file_rights::facts(&data)
                    && let Some(sha) = catalog_projector::sha256_bytes(&facts.file)
                    && !out.contains(&sha)
                {
                    out.push(sha);
                }
            }
        }
        Ok(out)
    }

    /// Opens the private issue and puts the holds, in one batch.
    fn file_hold(
        &self,
        requester: Requester<'_>,
        kind: HoldKind,
        title: String,
        body: String,
        entity: Option<EntityRef>,
        files: Vec<[u8; 32]>,
    ) -> Result<Requested> {
        let _guard = self.registry_lock();
        let mut batch = self.kv().batch();
        // Each request stops files before anyone looks, so each is counted.
        self.count_request(&mut batch, requester)?;
        let id = IssueId(self.bump_counter(&mut batch, crate::discussion::issues::ISSUE_COUNTER)?);
        let number = ThreadNumber(self.bump_counter(&mut batch, THREAD_COUNTER)?);
        let now = self.now();
        let author = match requester {
            Requester::SignedIn(p) => Some((p.account, p.handle.clone())),
            Requester::Anonymous { .. } => None,
        };
        let issue = Issue {
            title: Some(title),
            kind: ReportKind::Rights,
            body: Some(body),
            private: true,
            entity,
            ..Issue::opened_by(id, number, author, now)
        };
        self.write_opened(&mut batch, &issue)?;
        let record = HoldRecord {
            kind,
            number,
            at: now,
        };
        self.put_holds(&mut batch, &files, &record)?;
        self.kv().write(batch)?;
        tracing::info!(
            issue = id.0,
            number = number.0,
            files = files.len(),
            ?kind,
            "files held"
        );
        Ok(Requested {
            issue: self.shown(issue)?,
            files: files.iter().map(|f| super::hex(f)).collect(),
        })
    }

    /// Counts a request someone files: from an address without an account, against its hourly
    /// budget; from a signed-in person, with the issues they open in a day.
    pub(crate) fn count_request(
        &self,
        batch: &mut crate::kv::Batch<'_>,
        requester: Requester<'_>,
    ) -> Result<()> {
        match requester {
            Requester::Anonymous { address } => {
                self.count_anonymous(address)?.write(batch)?;
            }
            Requester::SignedIn(principal) => {
                if let Some(counted) = self.count_daily(principal, crate::quotas::Daily::Issues)? {
                    counted.write(batch)?;
                }
            }
        }
        Ok(())
    }

    /// Counts one more anonymous request from `address` this hour, or refuses it past
    /// [`MAX_ANONYMOUS_REQUESTS_AN_HOUR`]. The address is kept only as part of a hash.
    fn count_anonymous(&self, address: IpAddr) -> Result<crate::quotas::Counted> {
        let digest = catalog_identity::secrets::sha256(&address.to_string());
        let name = format!("quota:anonymous-requests:{}", super::hex(&digest[..12]));
        self.count_window(name, HOUR_MS, MAX_ANONYMOUS_REQUESTS_AN_HOUR, 1, || {
            format!(
                "{MAX_ANONYMOUS_REQUESTS_AN_HOUR} requests an hour may come from one address \
                 without signing in; sign in, or try again later"
            )
        })
    }
}

/// A text field of a request, `min..=max` characters once trimmed.
fn field(name: &'static str, value: &str, min: usize, max: usize) -> Result<()> {
    let chars = value.trim().chars().count();
    if chars < min || chars > max {
        return Err(Limit::new(name, min..=max, chars, Wording::Give(Unit::Characters)).into());
    }
    Ok(())
}

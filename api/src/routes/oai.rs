//! `/oai`: the catalog as an OAI-PMH 2.0 repository, for libraries' harvesters. Switched on with
//! `catalog serve --oai` (or `catalog mirror --oai`); a 404 in the API's error shape otherwise.
//!
//! The handlers read the arguments (a query string, or a form body for POST), ask
//! `catalog_oai` for the records on a blocking thread and write the answer as XML with
//! `quick-xml`. Protocol errors are answers too (HTTP 200 with an `error` element, as the
//! protocol says); only a failure of the server itself is an API error. Resumption tokens are
//! the API's cursors around `catalog_oai::Resume`: keyed with the data directory's secret, so
//! they cannot be forged, and naming log positions, so they outlive restarts.

use std::borrow::Cow;
use std::io;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use catalog_oai::{
    Datestamp, Error as OaiError, ErrorCode, ListStart, Page, ProtocolError, Record, Repository,
    Request, Resume,
};
use catalog_schemas::Id;
use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesText, Event};

use crate::cursor::{ListKey, ListKind};
use crate::error::ApiError;
use crate::state::AppState;

/// Where the repository answers.
pub const OAI_PATH: &str = "/oai";
/// Records are CC0, like everything else in the catalog.
const RIGHTS: &str = "https://creativecommons.org/publicdomain/zero/1.0/";
const OAI_NS: &str = "http://www.openarchives.org/OAI/2.0/";
const OAI_SCHEMA: &str =
    "http://www.openarchives.org/OAI/2.0/ http://www.openarchives.org/OAI/2.0/OAI-PMH.xsd";
const XSI_NS: &str = "http://www.w3.org/2001/XMLSchema-instance";
const DC_NS: &str = "http://purl.org/dc/elements/1.1/";
const OAI_DC_NS: &str = "http://www.openarchives.org/OAI/2.0/oai_dc/";
const OAI_DC_XSD: &str = "http://www.openarchives.org/OAI/2.0/oai_dc.xsd";
/// What Identify declares: datestamps to the second (a day is accepted too, as it must be).
const GRANULARITY: &str = "YYYY-MM-DDThh:mm:ssZ";

pub(crate) fn router() -> Router<AppState> {
    Router::new().route(OAI_PATH, get(by_get).post(by_post))
}

/// The repository as the routes serve it.
#[derive(Clone)]
pub struct OaiServe {
    pub repository: Repository,
    /// Identify's `adminEmail`.
    pub admin_email: String,
    /// The server's public address (`https://catalog.example`), when the operator gives one;
    /// otherwise `http://` and the request's `Host`.
    pub public_url: Option<String>,
}

async fn by_get(
    State(state): State<AppState>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    answer(&state, &headers, query.unwrap_or_default().into_bytes()).await
}

/// POST carries the same arguments as a form body (protocol section 3.1.1.2).
async fn by_post(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if !form {
        return Err(ApiError::BadRequest(
            "OAI-PMH requests by POST are application/x-www-form-urlencoded".into(),
        ));
    }
    answer(&state, &headers, body.to_vec()).await
}

async fn answer(
    state: &AppState,
    headers: &HeaderMap,
    encoded: Vec<u8>,
) -> Result<Response, ApiError> {
    let oai = state.oai.clone().ok_or_else(|| {
        ApiError::NotFound(
            "this server does not serve OAI-PMH (it is switched on with `catalog serve --oai`)"
                .into(),
        )
    })?;
    let site = match &oai.public_url {
        Some(url) => url.trim_end_matches('/').to_owned(),
        None => {
            let host = headers
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .unwrap_or("localhost");
            format!("http://{host}")
        }
    };
    let body = crate::blocking(move || respond(&oai, &site, &encoded)).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/xml; charset=utf-8"),
            // Every answer names the moment it was made, and lists grow with the log.
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response())
}

/// The whole answer to one request.
fn respond(oai: &OaiServe, site: &str, encoded: &[u8]) -> Result<Vec<u8>, ApiError> {
    let parsed = catalog_oai::parse_arguments(encoded);
    let outcome = match parsed.request {
        Ok(request) => body_of(oai, site, request),
        Err(e) => Err(OaiError::Protocol(e)),
    };
    let (body, echo) = match outcome {
        Ok(body) => (Ok(body), true),
        Err(OaiError::Protocol(e)) => {
            let echo = !e.code.hides_arguments();
            (Err(e), echo)
        }
        Err(OaiError::Log(e)) => return Err(e.into()),
    };
    let arguments = if echo { &parsed.arguments[..] } else { &[] };
    envelope(site, arguments, |w| match &body {
        Ok(body) => body.write(w, site),
        Err(e) => w
            .create_element("error")
            .with_attribute(("code", e.code.as_str()))
            .write_text_content(text(&e.message))
            .map(drop),
    })
    .map_err(|e| ApiError::Internal(format!("writing OAI-PMH XML: {e}")))
}

/// What a verb answers, before it is written.
enum Body {
    Identify {
        earliest: Datestamp,
        admin_email: String,
    },
    Formats,
    Sets,
    Record(Record),
    List {
        records: bool,
        page: Page,
    },
}

fn body_of(oai: &OaiServe, site: &str, request: Request) -> Result<Body, OaiError> {
    let repo = &oai.repository;
    Ok(match request {
        Request::Identify => Body::Identify {
            earliest: repo.earliest()?.unwrap_or_else(Datestamp::now),
            admin_email: oai.admin_email.clone(),
        },
        Request::ListMetadataFormats { identifier } => {
            if let Some(identifier) = identifier {
                let record = find(repo, site, &identifier)?;
                if record.deleted {
                    return Err(ProtocolError::new(
                        ErrorCode::NoMetadataFormats,
                        "the item was deleted: no metadata is disseminated for it",
                    )
                    .into());
                }
            }
            Body::Formats
        }
        Request::ListSets { token: Some(_) } => {
            return Err(ProtocolError::new(
                ErrorCode::BadResumptionToken,
                "the list of sets is answered whole: it has no resumption tokens",
            )
            .into());
        }
        Request::ListSets { token: None } => Body::Sets,
        Request::GetRecord { identifier } => Body::Record(find(repo, site, &identifier)?),
        Request::List { verb, start } => {
            let page = match start {
                ListStart::Fresh(selection) => repo.first_page(verb, &selection)?,
                ListStart::Resume(token) => {
                    let resume = read_token(&token)?;
                    if resume.verb != verb {
                        return Err(bad_token(&token, "belongs to the other list verb"));
                    }
                    repo.next_page(&resume)?
                }
            };
            Body::List {
                records: verb == catalog_oai::ListVerb::Records,
                page,
            }
        }
    })
}

/// The record an identifier names: `{site}/v1/entities/{id}` (any site's, so a mirror's
/// identifiers work here too).
fn find(repo: &Repository, site: &str, identifier: &str) -> Result<Record, OaiError> {
    let missing = || {
        OaiError::Protocol(ProtocolError::new(
            ErrorCode::IdDoesNotExist,
            format!(
                "{} is not an item of this repository (identifiers look like {site}/v1/entities/<id>)",
                catalog_schemas::quote(identifier)
            ),
        ))
    };
    let id = identifier
        .rsplit_once("/v1/entities/")
        .and_then(|(_, id)| Id::parse(id).ok())
        .ok_or_else(missing)?;
    repo.record(id)?.ok_or_else(missing)
}

fn token_key() -> ListKey {
    ListKey::new(ListKind::Oai, &[])
}

fn read_token(token: &str) -> Result<Resume, OaiError> {
    let bytes = token_key()
        .decode(token)
        .map_err(|_| bad_token(token, "is not one this server made, or was altered"))?;
    Resume::from_bytes(&bytes).ok_or_else(|| bad_token(token, "is not a resumption token"))
}

fn bad_token(token: &str, why: &str) -> OaiError {
    OaiError::Protocol(ProtocolError::new(
        ErrorCode::BadResumptionToken,
        format!("resumption token {} {why}", catalog_schemas::quote(token)),
    ))
}

type Xml = Writer<Vec<u8>>;

/// The OAI-PMH envelope: the declaration, `responseDate`, the `request` echo, then `body`.
fn envelope(
    site: &str,
    arguments: &[(String, String)],
    body: impl FnOnce(&mut Xml) -> io::Result<()>,
) -> io::Result<Vec<u8>> {
    let mut w = Writer::new(Vec::with_capacity(16 << 10));
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    w.create_element("OAI-PMH")
        .with_attributes([
            ("xmlns", OAI_NS),
            ("xmlns:xsi", XSI_NS),
            ("xsi:schemaLocation", OAI_SCHEMA),
        ])
        .write_inner_content(|w| {
            leaf(w, "responseDate", &Datestamp::now().to_string())?;
            w.create_element("request")
                .with_attributes(arguments.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .write_text_content(text(&format!("{site}{OAI_PATH}")))?;
            body(w)
        })?;
    Ok(w.into_inner())
}

impl Body {
    fn write(&self, w: &mut Xml, site: &str) -> io::Result<()> {
        match self {
            Body::Identify {
                earliest,
                admin_email,
            } => {
                w.create_element("Identify").write_inner_content(|w| {
                    leaf(
                        w,
                        "repositoryName",
                        "catalog: an open catalog of Torah works",
                    )?;
                    leaf(w, "baseURL", &format!("{site}{OAI_PATH}"))?;
                    leaf(w, "protocolVersion", "2.0")?;
                    leaf(w, "adminEmail", admin_email)?;
                    leaf(w, "earliestDatestamp", &earliest.to_string())?;
                    leaf(w, "deletedRecord", "persistent")?;
                    leaf(w, "granularity", GRANULARITY)
                })?;
            }
            Body::Formats => {
                w.create_element("ListMetadataFormats")
                    .write_inner_content(|w| {
                        w.create_element("metadataFormat")
                            .write_inner_content(|w| {
                                leaf(w, "metadataPrefix", catalog_oai::OAI_DC)?;
                                leaf(w, "schema", OAI_DC_XSD)?;
                                leaf(w, "metadataNamespace", OAI_DC_NS)
                            })?;
                        Ok(())
                    })?;
            }
            Body::Sets => {
                w.create_element("ListSets").write_inner_content(|w| {
                    for ty in Repository::sets() {
                        w.create_element("set").write_inner_content(|w| {
                            leaf(w, "setSpec", ty.as_str())?;
                            leaf(w, "setName", &format!("items of type {}", ty.as_str()))
                        })?;
                    }
                    Ok(())
                })?;
            }
            Body::Record(record) => {
                w.create_element("GetRecord")
                    .write_inner_content(|w| write_record(w, site, record))?;
            }
            Body::List { records, page } => {
                let name = if *records {
                    "ListRecords"
                } else {
                    "ListIdentifiers"
                };
                w.create_element(name).write_inner_content(|w| {
                    for record in &page.records {
                        if *records {
                            write_record(w, site, record)?;
                        } else {
                            write_header(w, site, record)?;
                        }
                    }
                    write_token(w, page)
                })?;
            }
        }
        Ok(())
    }
}

/// The token of a page: the next page's, or an empty one closing a list that had several.
fn write_token(w: &mut Xml, page: &Page) -> io::Result<()> {
    let cursor = page.cursor.to_string();
    let element = w
        .create_element("resumptionToken")
        .with_attribute(("cursor", cursor.as_str()));
    match &page.next {
        Some(next) => {
            element.write_text_content(text(&token_key().encode(&next.to_bytes())))?;
        }
        None if page.cursor > 0 => {
            element.write_empty()?;
        }
        None => {}
    }
    Ok(())
}

fn write_header(w: &mut Xml, site: &str, record: &Record) -> io::Result<()> {
    let element = w.create_element("header");
    let element = if record.deleted {
        element.with_attribute(("status", "deleted"))
    } else {
        element
    };
    element.write_inner_content(|w| {
        leaf(w, "identifier", &identifier(site, record.id))?;
        leaf(w, "datestamp", &record.datestamp.to_string())?;
        leaf(w, "setSpec", record.ty.as_str())
    })?;
    Ok(())
}

fn write_record(w: &mut Xml, site: &str, record: &Record) -> io::Result<()> {
    w.create_element("record").write_inner_content(|w| {
        write_header(w, site, record)?;
        let Some(dc) = &record.dc else { return Ok(()) };
        w.create_element("metadata").write_inner_content(|w| {
            w.create_element("oai_dc:dc")
                .with_attributes([
                    ("xmlns:oai_dc", OAI_DC_NS),
                    ("xmlns:dc", DC_NS),
                    ("xmlns:xsi", XSI_NS),
                    ("xsi:schemaLocation", &*format!("{OAI_DC_NS} {OAI_DC_XSD}")),
                ])
                .write_inner_content(|w| {
                    for (lang, title) in &dc.titles {
                        dc_leaf(w, "dc:title", *lang, title)?;
                    }
                    for (lang, creator) in &dc.creators {
                        dc_leaf(w, "dc:creator", *lang, creator)?;
                    }
                    dc_leaf(w, "dc:type", None, &dc.ty)?;
                    for date in &dc.dates {
                        dc_leaf(w, "dc:date", None, date)?;
                    }
                    dc_leaf(w, "dc:identifier", None, &identifier(site, record.id))?;
                    dc_leaf(w, "dc:language", None, &dc.language)?;
                    dc_leaf(w, "dc:rights", None, RIGHTS)
                })?;
            Ok(())
        })?;
        Ok(())
    })?;
    Ok(())
}

/// An item's OAI identifier and Dublin Core identifier: its address on this server.
fn identifier(site: &str, id: Id) -> String {
    format!("{site}/v1/entities/{id}")
}

fn leaf(w: &mut Xml, name: &str, value: &str) -> io::Result<()> {
    w.create_element(name).write_text_content(text(value))?;
    Ok(())
}

fn dc_leaf(w: &mut Xml, name: &str, lang: Option<&str>, value: &str) -> io::Result<()> {
    let element = w.create_element(name);
    let element = match lang {
        Some(lang) => element.with_attribute(("xml:lang", lang)),
        None => element,
    };
    element.write_text_content(text(value))?;
    Ok(())
}

/// Escaped text, with the characters XML 1.0 cannot carry at all (most C0 controls, which JSON
/// strings may hold) replaced by U+FFFD so the document stays well formed.
fn text(value: &str) -> BytesText<'static> {
    BytesText::from_escaped(quick_xml::escape::escape(&*xml_chars(value)).into_owned())
}

fn xml_chars(value: &str) -> Cow<'_, str> {
    let allowed = |c: char| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
    if value.chars().all(allowed) {
        Cow::Borrowed(value)
    } else {
        Cow::Owned(
            value
                .chars()
                .map(|c| if allowed(c) { c } else { '\u{FFFD}' })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_kept_well_formed() {
        let mut w = Writer::new(Vec::new());
        leaf(&mut w, "t", "a<b & \"c\" \u{1}").unwrap();
        assert_eq!(
            String::from_utf8(w.into_inner()).unwrap(),
            "<t>a&lt;b &amp; &quot;c&quot; \u{FFFD}</t>"
        );
    }

    #[test]
    fn tokens_are_checked() {
        let resume = Resume {
            verb: catalog_oai::ListVerb::Records,
            set: None,
            until: None,
            at: catalog_oai::Position { seq: 7, change: 2 },
            cursor: 200,
        };
        let token = token_key().encode(&resume.to_bytes());
        assert_eq!(read_token(&token).ok(), Some(resume));
        let mut altered = token.clone();
        altered.replace_range(3..4, if &token[3..4] == "A" { "B" } else { "A" });
        for bad in [altered.as_str(), "", "nonsense", &token[..token.len() - 1]] {
            assert!(matches!(
                read_token(bad),
                Err(OaiError::Protocol(ProtocolError {
                    code: ErrorCode::BadResumptionToken,
                    ..
                }))
            ));
        }
    }
}

//! The suggestions: a unit's translation, a hanacha's words, a paragraph fixed. Everything is
//! read and checked before anything is written; a refusal writes nothing.

use catalog_identity::Principal;
use catalog_schemas::{DateKey, Id, ItemType, OrderKey};
use serde_json::{Value, json};

use super::{
    MAX_CREDIT_CHARS, MAX_EVENT_TITLE_CHARS, MAX_TOOL_CHARS, checked_paragraphs, is_language,
    sha256_hex, short_text,
};
use crate::error::{BadText, Error, Result};
use crate::service::Workflow;
use crate::suggestions::{Items, Kind, SuggestedItem, Suggestion};
use crate::transcripts::{clip, origin_checked};

/// The licences a translation may be given under (none: the translator's own, CC-BY-SA).
pub(crate) const LICENCES: [&str; 4] = ["public-domain", "cc0", "cc-by", "cc-by-nc"];
/// What a hanacha's giver may say of its rights.
pub(crate) const RIGHTS: [&str; 4] = ["mine", "public-domain", "free", "unsure"];
/// The rights `bodySource` records for a translation given without a licence.
pub(crate) const TRANSLATOR_OWN: &str = "cc-by-sa";
/// Where words given in a request's body came from, as `bodySource.source` says it.
pub(crate) const FROM_REQUEST: &str = "request";

/// `POST /v1/units/{id}/translations`.
#[derive(Debug, Clone)]
pub struct TranslationRequest {
    pub language: String,
    pub credit: String,
    pub content: String,
    pub licence: Option<String>,
    /// The text (of the unit) it translates.
    pub translation_of: Option<Id>,
    /// The tool that wrote it: every paragraph is machine translation until checked.
    pub machine: Option<String>,
}

/// `POST /v1/translations/fix`.
#[derive(Debug, Clone)]
pub struct TranslationFix {
    pub segment: Id,
    pub content: String,
}

/// `POST /v1/hanachos/text`.
#[derive(Debug, Clone)]
pub struct HanachaRequest {
    pub content: String,
    pub rights: String,
    /// The event (a farbrengen) or unit (a sicha) it is a hanacha of.
    pub for_: Option<Id>,
    pub event_title: Option<String>,
    pub event_date: Option<String>,
    pub language: Option<String>,
    pub credit: Option<String>,
}

/// A text and its paragraphs as new items, ready for a suggestion.
struct NewText<'a> {
    data: Value,
    paragraphs: Vec<String>,
    machine: Option<&'a str>,
    sets: Option<Value>,
}

impl Workflow {
    /// A suggestion adding a translation of a unit: the `text` (`kind: translation`) and a
    /// `segment` a paragraph, each marked machine translation when `machine` names a tool.
    pub fn add_translation(
        &self,
        principal: &Principal,
        unit: Id,
        request: TranslationRequest,
    ) -> Result<Suggestion> {
        principal.require_write()?;
        let language = checked_language(&request.language)?;
        let credit = short_text("credit", &request.credit, MAX_CREDIT_CHARS, true)?;
        let machine = match &request.machine {
            Some(tool) => short_text("machine", tool, MAX_TOOL_CHARS, true)?,
            None => None,
        };
        if let Some(licence) = &request.licence
            && !LICENCES.contains(&licence.as_str())
        {
            return Err(not_one_of(
                "licence",
                licence,
                "is not one of public-domain, cc0, cc-by, cc-by-nc",
            ));
        }
        let paragraphs = checked_paragraphs(&request.content)?;
        let unit = self.main_item_of("unit", unit, ItemType::Unit)?;
        if let Some(original) = request.translation_of {
            self.main_item_of("translationOf", original, ItemType::Text)?;
        }
        let rights = request.licence.as_deref().unwrap_or(TRANSLATOR_OWN);
        let mut data = json!({
            "kind": "translation",
            "unit": unit.id.to_string(),
            "language": language,
            "credit": credit,
            "body": source_body(&request.content, rights),
            "sourceText": request.content,
        });
        if let Some(licence) = &request.licence {
            data["licence"] = json!(licence);
        }
        if let Some(original) = request.translation_of {
            data["translationOf"] = json!(original.to_string());
        }
        let sets = unit.sets();
        if let Some(sets) = &sets {
            data["sets"] = sets.clone();
        }
        let title = format!("Add a translation ({language}) of {}", clip(&unit.shown()));
        let items = self.new_text_items(NewText {
            data,
            paragraphs,
            machine: machine.as_deref(),
            sets,
        })?;
        let opened = self.open_with_items(principal, &title, None, Kind::Edit, None, &items)?;
        tracing::info!(
            suggestion = opened.id.0,
            unit = %unit.id,
            items = items.len(),
            "translation suggested"
        );
        Ok(opened)
    }

    /// A suggestion giving one paragraph of a translation (or hanacha) new words, or the same
    /// words checked: either way a person has read it, so it is no longer machine translation
    /// (`origin.checked: true`). A trusted person's fix in open sets merges at once.
    pub fn fix_translation(
        &self,
        principal: &Principal,
        fix: TranslationFix,
    ) -> Result<Suggestion> {
        principal.require_write()?;
        let content = fix.content.trim();
        if content.is_empty() {
            return Err(BadText::NoContent.into());
        }
        let segment = self.main_item_of("segment", fix.segment, ItemType::Segment)?;
        let text = segment
            .data
            .get("text")
            .and_then(Value::as_str)
            .and_then(|t| Id::parse(t).ok())
            .ok_or(BadText::NoText(segment.id))?;
        let text = self.main_item_of("text", text, ItemType::Text)?;
        let kind = text.data.get("kind").and_then(Value::as_str).unwrap_or("");
        if !matches!(kind, "translation" | "hanacha") {
            return Err(BadText::NotTranslated {
                segment: segment.id,
                text: text.id,
                kind: kind.to_owned(),
            }
            .into());
        }
        let same = segment.data.get("content").and_then(Value::as_str) == Some(content);
        if same && origin_checked(&segment.data) {
            return Err(BadText::ChangesNothing(segment.id).into());
        }
        let mut data = segment.data.clone();
        data["content"] = json!(content);
        if let Some(origin) = data.get_mut("origin").and_then(Value::as_object_mut) {
            origin.insert("checked".into(), json!(true));
        }
        let mut items = Items::new();
        items.insert(
            segment.id,
            SuggestedItem::changed(segment.id, ItemType::Segment, segment.rev, data),
        );
        let what = if same { "Check" } else { "Fix" };
        let title = format!("{what} a paragraph of the {kind} {}", clip(&text.shown()));
        let opened = self.open_with_items(principal, &title, None, Kind::Words, None, &items)?;
        tracing::info!(suggestion = opened.id.0, segment = %segment.id, "translation fix suggested");
        self.settle_line_fix(principal, opened, principal.trusted)
    }

    /// A suggestion adding a hanacha's words: the `text` (`kind: hanacha`) of an event or unit
    /// the catalog has, or of a new event made in the same suggestion, with its `rights`.
    pub fn add_hanacha(
        &self,
        principal: &Principal,
        request: HanachaRequest,
    ) -> Result<Suggestion> {
        principal.require_write()?;
        if !RIGHTS.contains(&request.rights.as_str()) {
            return Err(not_one_of(
                "rights",
                &request.rights,
                "is not one of mine, public-domain, free, unsure",
            ));
        }
        let language = checked_language(request.language.as_deref().unwrap_or("he"))?;
        let credit = match &request.credit {
            Some(credit) => short_text("credit", credit, MAX_CREDIT_CHARS, true)?,
            None => None,
        };
        let new_event = match (request.for_, &request.event_title, &request.event_date) {
            (Some(_), None, None) => None,
            (Some(_), ..) => return Err(BadText::ForOrEvent("both").into()),
            (None, None, None) => return Err(BadText::ForOrEvent("neither").into()),
            (None, Some(_), None) => return Err(BadText::ForOrEvent("eventTitle alone").into()),
            (None, None, Some(_)) => return Err(BadText::ForOrEvent("eventDate alone").into()),
            (None, Some(title), Some(date)) => {
                let title = short_text("eventTitle", title, MAX_EVENT_TITLE_CHARS, true)?
                    .unwrap_or_default();
                let key = DateKey::parse(date).map_err(|e| BadText::BadDate {
                    value: date.clone(),
                    reason: e.to_string(),
                })?;
                Some((title, key))
            }
        };
        let paragraphs = checked_paragraphs(&request.content)?;

        let mut items = Items::new();
        let mut data = json!({
            "kind": "hanacha",
            "language": language,
            "rights": request.rights,
            "body": source_body(&request.content, &request.rights),
            "sourceText": request.content,
        });
        if let Some(credit) = credit {
            data["credit"] = json!(credit);
        }
        let (sets, shown) = if let Some((title, date)) = new_event {
            let id = self.fresh_id(&items)?;
            items.insert(
                id,
                SuggestedItem::created(
                    id,
                    ItemType::Event,
                    json!({
                        "kind": "farbrengen",
                        "title": { "he": title },
                        "date": date.to_string(),
                    }),
                ),
            );
            data["event"] = json!(id.to_string());
            (None, format!("{title} ({date})"))
        } else {
            // `for` is there: the pair was refused above otherwise.
            let id = request.for_.ok_or(BadText::ForOrEvent("neither"))?;
            let of = self.main_item(id)?;
            match of.ty {
                ItemType::Event => data["event"] = json!(id.to_string()),
                ItemType::Unit => data["unit"] = json!(id.to_string()),
                is => return Err(BadText::ForKind { id, is }.into()),
            }
            (of.sets(), of.shown())
        };
        if let Some(sets) = &sets {
            data["sets"] = sets.clone();
        }
        let text_items = self.new_text_items_into(
            items,
            NewText {
                data,
                paragraphs,
                machine: None,
                sets,
            },
        )?;
        let title = format!("Add the words of a hanacha of {}", clip(&shown));
        let opened =
            self.open_with_items(principal, &title, None, Kind::Edit, None, &text_items)?;
        tracing::info!(
            suggestion = opened.id.0,
            items = text_items.len(),
            rights = %request.rights,
            "hanacha suggested"
        );
        Ok(opened)
    }

    fn new_text_items(&self, text: NewText<'_>) -> Result<Items> {
        self.new_text_items_into(Items::new(), text)
    }

    /// Adds the text and its paragraphs (order keys spread from the start) to `items`.
    fn new_text_items_into(&self, mut items: Items, text: NewText<'_>) -> Result<Items> {
        let text_id = self.fresh_id(&items)?;
        items.insert(
            text_id,
            SuggestedItem::created(text_id, ItemType::Text, text.data),
        );
        let orders =
            OrderKey::n_between(None, None, text.paragraphs.len()).map_err(|e| Error::Corrupt {
                cf: "order keys",
                reason: e.to_string(),
            })?;
        for (content, order) in text.paragraphs.into_iter().zip(orders) {
            let id = self.fresh_id(&items)?;
            let mut data = json!({
                "text": text_id.to_string(),
                "order": order.as_str(),
                "kind": "paragraph",
                "content": content,
            });
            if let Some(tool) = text.machine {
                data["origin"] = json!({ "by": tool, "checked": false });
            }
            if let Some(sets) = &text.sets {
                data["sets"] = sets.clone();
            }
            items.insert(id, SuggestedItem::created(id, ItemType::Segment, data));
        }
        Ok(items)
    }
}

/// The body of a text whose words are its segment items: no versions, only where the words
/// came from, the hash of the copy kept (`sourceText`) and the rights deciding whether they
/// are shown.
pub(crate) fn source_body(content: &str, rights: &str) -> Value {
    json!({
        "profile": "plain",
        "versions": [],
        "bodySource": {
            "source": FROM_REQUEST,
            "copy": sha256_hex(content),
            "rights": rights,
        }
    })
}

fn checked_language(tag: &str) -> Result<String> {
    let tag = tag.trim();
    if !is_language(tag) {
        return Err(not_one_of(
            "language",
            tag,
            "is not a language tag such as he, en or yi",
        ));
    }
    Ok(tag.to_owned())
}

fn not_one_of(field: &'static str, value: &str, expected: &'static str) -> Error {
    BadText::NotOneOf {
        field,
        value: value.to_owned(),
        expected,
    }
    .into()
}

#[cfg(test)]
mod tests {
    use catalog_schemas::body::Body;

    use super::*;

    #[test]
    fn a_source_body_has_no_words_and_parses() {
        let value = source_body("שלום\n\nworld", "unsure");
        let body = Body::from_value(&value).unwrap();
        assert!(body.versions.is_empty());
        let source = body.body_source.unwrap();
        assert_eq!(source["copy"], sha256_hex("שלום\n\nworld"));
        assert_eq!(source["rights"], "unsure");
        assert_eq!(source["source"], FROM_REQUEST);
    }

    #[test]
    fn vocabularies_match_the_text_schema() {
        let types = catalog_schemas::types::TypeRegistry::built_in();
        let text = |field: &str, value: &str| {
            let mut data = json!({"kind": "hanacha", "language": "he",
                "body": source_body("a", "mine"), "sourceText": "a"});
            data[field] = json!(value);
            types.validate(ItemType::Text, &data)
        };
        for licence in LICENCES {
            assert!(text("licence", licence).is_ok(), "{licence}");
        }
        for rights in RIGHTS {
            assert!(text("rights", rights).is_ok(), "{rights}");
        }
        assert!(text("rights", "maybe").is_err());
    }
}

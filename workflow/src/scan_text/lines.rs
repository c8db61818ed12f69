//! Fixing one line of a page, and confirming a page (raising its proofreading level), each as one
//! suggestion.
//!
//! A fixed line is marked `checked`: a person wrote its words. Confirming marks every line of the
//! page checked at the page's new level. Level 1 → 2 must be someone other than the person who
//! raised it to 1 (`confirmedBy` keeps who did, in order).

use std::collections::BTreeMap;

use catalog_schemas::Id;
use serde_json::Value;

use super::{Settle, check_line_words, put_page};
use crate::error::{Result, ScanTextRefusal};
use crate::service::Workflow;
use crate::suggestions::{Items, Kind, Suggestion};
use catalog_identity::Principal;

impl Workflow {
    /// `POST /v1/scans/{id}/text/fix`: new words for one line. A trusted person's fix in open
    /// sets merges at once (post-review pending); anyone else's waits for the keepers.
    pub fn fix_scan_line(
        &self,
        principal: &Principal,
        scan: Id,
        page: u32,
        line: &str,
        text: &str,
    ) -> Result<Suggestion> {
        principal.require_write()?;
        check_line_words("text", text)?;
        let scan_text = self.scan_text(scan)?;
        let mut items = Items::new();
        let mut community = self.community_page(&scan_text, page, &mut items)?;
        let found = community
            .data
            .lines
            .iter_mut()
            .find(|l| l.id == line)
            .ok_or_else(|| ScanTextRefusal::NoLine {
                page,
                line: line.to_string(),
            })?;
        if found.text == text && found.is_checked() {
            return Err(ScanTextRefusal::Unchanged {
                line: line.to_string(),
            }
            .into());
        }
        found.text = text.to_string();
        found.checked = Some(true);
        put_page(&mut items, community);
        let title = format!(
            "Fix line {line} on page {page} of {}",
            scan_text.scan.shown()
        );
        let suggestion = self.suggest_scan_text(
            principal,
            &title,
            None,
            Kind::ScanText,
            &items,
            Settle::LineFix,
        )?;
        tracing::info!(suggestion = suggestion.id.0, %scan, page, line, "scan line fixed");
        Ok(suggestion)
    }

    /// `POST /v1/scans/{id}/text/confirm`: the caller read the whole page (with `fixes`, line id →
    /// right words, riding along); the page goes up one proofreading level. Reviewed by the
    /// keepers like any change.
    pub fn confirm_scan_page(
        &self,
        principal: &Principal,
        scan: Id,
        page: u32,
        fixes: &BTreeMap<String, String>,
    ) -> Result<Suggestion> {
        principal.require_write()?;
        for (line, text) in fixes {
            check_line_words(&format!("fixes.{line}"), text)?;
        }
        let scan_text = self.scan_text(scan)?;
        let mut items = Items::new();
        let mut community = self.community_page(&scan_text, page, &mut items)?;
        let data = &mut community.data;
        let level = data.level();
        let mut confirmed_by = data.confirmed_by();
        let me = principal.handle.as_str();
        if level >= 2 {
            return Err(ScanTextRefusal::ProofreadTwice { page }.into());
        }
        if level == 1 && confirmed_by.first().is_some_and(|first| first == me) {
            return Err(ScanTextRefusal::SameProofreader {
                who: principal.handle.clone(),
                page,
            }
            .into());
        }
        if let Some(line) = fixes
            .keys()
            .find(|id| !data.lines.iter().any(|l| &l.id == *id))
        {
            return Err(ScanTextRefusal::NoFixedLine {
                page,
                line: line.clone(),
            }
            .into());
        }
        let raised = level + 1;
        for line in &mut data.lines {
            if let Some(text) = fixes.get(&line.id) {
                line.text.clone_from(text);
            }
            line.checked = Some(true);
            line.level = Some(raised);
        }
        // A page raised to 1 before anyone was recorded (imported that way) has no first name.
        confirmed_by.retain(|h| h != me);
        confirmed_by.push(me.to_string());
        confirmed_by.truncate(2);
        data.rest.insert("proofread".into(), raised.into());
        data.rest.insert(
            "confirmedBy".into(),
            Value::Array(confirmed_by.into_iter().map(Value::from).collect()),
        );
        put_page(&mut items, community);
        let title = format!(
            "Proofread page {page} of {} ({})",
            scan_text.scan.shown(),
            if raised == 1 {
                "first reading"
            } else {
                "second reading"
            }
        );
        let description =
            (!fixes.is_empty()).then(|| format!("With {} line(s) fixed.", fixes.len()));
        let suggestion = self.suggest_scan_text(
            principal,
            &title,
            description.as_deref(),
            Kind::ScanText,
            &items,
            Settle::Review,
        )?;
        tracing::info!(suggestion = suggestion.id.0, %scan, page, level = raised, "scan page confirmed");
        Ok(suggestion)
    }
}

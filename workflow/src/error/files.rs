//! Requests about files that cannot be done as asked: an upload the person may not make yet or
//! whose parameters do not fit together (400, 403), a file that is not there or not served
//! (404), a takedown whose target names no held file, a family request for what is not a
//! teshura.

use catalog_schemas::{Id, ItemType};

use super::UserClass;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileRefusal {
    #[error("{field}: {message}")]
    BadParameter {
        field: &'static str,
        message: String,
    },
    #[error("{field} is required {why}")]
    Required {
        field: &'static str,
        why: &'static str,
    },
    #[error(
        "Content-Type {}: a {what} is {expected}",
        catalog_schemas::quote(.got)
    )]
    WrongContentType {
        what: &'static str,
        got: String,
        expected: &'static str,
    },
    #[error("the body is not a {expected}: its first bytes say otherwise")]
    NotThatFile { expected: &'static str },
    #[error("for: {id} is a {is}; {expected}")]
    ForKind {
        id: Id,
        is: ItemType,
        expected: &'static str,
    },
    #[error(
        "@{who}'s account is younger than a day: new accounts may upload once a day has passed \
         (stewards and trusted people at once)"
    )]
    AccountTooNew { who: String },
    #[error("no file {0} is held")]
    NoFile(String),
    #[error("{}", .reason)]
    NotServed { sha256: String, reason: String },
    #[error("scan {0} has no page images: its file is not a held PDF")]
    NoPages(Id),
    #[error("target {}: {why}", catalog_schemas::quote(.target))]
    BadTarget { target: String, why: &'static str },
    #[error("{id} is a {is}, not a teshura: a family request is for a teshura")]
    NotATeshura { id: Id, is: String },
    #[error("captcha: send the captcha token when not signed in")]
    NoCaptcha,
    #[error("captcha: the captcha was not solved")]
    CaptchaFailed,
    #[error("no takedown or family request is open as #{0}")]
    NoRequest(u64),
    #[error("decision {}: is one of lift, uphold", catalog_schemas::quote(.0))]
    BadDecision(String),
}

impl FileRefusal {
    pub fn class(&self) -> UserClass {
        use FileRefusal as R;
        match self {
            R::AccountTooNew { .. } | R::CaptchaFailed | R::NoCaptcha => UserClass::Forbidden,
            R::NoFile(_) | R::NotServed { .. } | R::NoPages(_) | R::NoRequest(_) => {
                UserClass::NotFound
            }
            R::BadParameter { .. }
            | R::Required { .. }
            | R::WrongContentType { .. }
            | R::NotThatFile { .. }
            | R::ForKind { .. }
            | R::BadTarget { .. }
            | R::NotATeshura { .. }
            | R::BadDecision(_) => UserClass::BadRequest,
        }
    }

    /// What the answer's `detail` carries: the request field at fault, or why a file is not
    /// served.
    pub fn detail(&self) -> Option<serde_json::Value> {
        use FileRefusal as R;
        use serde_json::json;
        Some(match self {
            R::BadParameter { field, .. } | R::Required { field, .. } => json!({ "field": field }),
            R::WrongContentType { .. } => json!({ "field": "Content-Type" }),
            R::NotThatFile { .. } => json!({ "field": "body" }),
            R::ForKind { .. } => json!({ "field": "for" }),
            R::BadTarget { .. } => json!({ "field": "target" }),
            R::NoCaptcha | R::CaptchaFailed => json!({ "field": "captcha" }),
            R::BadDecision(_) => json!({ "field": "decision" }),
            R::NotServed { sha256, reason } => json!({ "sha256": sha256, "reason": reason }),
            _ => return None,
        })
    }
}

//! Requests about a scan's text that cannot be done as asked: a page or line that is not there
//! (404), words that cannot be a line or OCR that cannot be read (400), a page that is already
//! proofread as far as it goes (409), and a second proofreading by the first proofreader (403).

use catalog_identity::Handle;
use catalog_schemas::Id;

use super::UserClass;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScanTextRefusal {
    #[error("scan {scan} has no text on page {page}")]
    NoTextOnPage { scan: Id, page: u32 },
    #[error("scan {scan} has no text yet: upload OCR of it first")]
    NoText { scan: Id },
    #[error("line: page {page} has no line {}", catalog_schemas::quote(line))]
    NoLine { page: u32, line: String },
    #[error("fixes: page {page} has no line {}", catalog_schemas::quote(line))]
    NoFixedLine { page: u32, line: String },
    #[error("{field}: a line is one line of words; it may not hold a line break")]
    LineBreak { field: String },
    #[error("text: line {line} already reads so and is checked: nothing to change")]
    Unchanged { line: String },
    #[error("page {page} is already proofread twice")]
    ProofreadTwice { page: u32 },
    #[error(
        "@{who} proofread page {page} the first time: the second proofreading must be someone \
         else's"
    )]
    SameProofreader { who: Handle, page: u32 },
    #[error("layer: {layer} is not a text layer of scan {scan}")]
    NotALayerOfScan { layer: Id, scan: Id },
    #[error("layer: {layer} is the community text itself; seed it from an OCR layer")]
    SeedFromCommunity { layer: Id },
    #[error("layer: {layer} has no pages to seed from")]
    EmptyLayer { layer: Id },
    #[error("seeding from {layer} changes nothing: the community text already has its words")]
    SeedChangesNothing { layer: Id },
    #[error("@{who} keeps none of the sets of scan {scan}: its keepers and stewards seed its text")]
    NotKeeperOfScan { who: Handle, scan: Id },
    #[error("format: {} is not hocr, alto or text", catalog_schemas::quote(.0))]
    Format(String),
    #[error("engine.name: say which engine read the pages")]
    NoEngineName,
    #[error("content: {0}")]
    Ocr(String),
    #[error("content: page {page} is past the scan's last page, {pages}")]
    PastLastPage { page: u32, pages: u32 },
}

impl ScanTextRefusal {
    pub fn class(&self) -> UserClass {
        use ScanTextRefusal as R;
        match self {
            R::NoTextOnPage { .. } | R::NoText { .. } | R::NoLine { .. } => UserClass::NotFound,
            R::ProofreadTwice { .. } | R::SeedChangesNothing { .. } => UserClass::State,
            R::SameProofreader { .. } | R::NotKeeperOfScan { .. } => UserClass::Forbidden,
            R::NoFixedLine { .. }
            | R::LineBreak { .. }
            | R::Unchanged { .. }
            | R::NotALayerOfScan { .. }
            | R::SeedFromCommunity { .. }
            | R::EmptyLayer { .. }
            | R::Format(_)
            | R::NoEngineName
            | R::Ocr(_)
            | R::PastLastPage { .. } => UserClass::BadRequest,
        }
    }

    /// The request field at fault, for the answer's `detail`.
    pub fn field(&self) -> Option<&str> {
        use ScanTextRefusal as R;
        Some(match self {
            R::NoLine { .. } | R::Unchanged { .. } => "line",
            R::NoFixedLine { .. } => "fixes",
            R::LineBreak { field } => field,
            R::NotALayerOfScan { .. } | R::SeedFromCommunity { .. } | R::EmptyLayer { .. } => {
                "layer"
            }
            R::Format(_) => "format",
            R::NoEngineName => "engine",
            R::Ocr(_) | R::PastLastPage { .. } => "content",
            R::NoTextOnPage { .. } => "page",
            _ => return None,
        })
    }
}

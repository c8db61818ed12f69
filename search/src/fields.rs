//! The index's schema: which fields each document has and how each is analysed.

use tantivy::schema::{
    FAST, Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};

use crate::analyzer;

/// The fields of the two families of document: an item with a name (`kind` = `item`), and a
/// moment, a place inside an item where words are (`kind` = `line` or `segment`). A moment carries
/// its item's `id`, `type` and `path`, so deleting an item's id removes its moments too.
#[derive(Clone, Copy, Debug)]
pub struct Fields {
    /// The item's id, canonical text; the key deletes and updates go by.
    pub id: Field,
    /// The item's type (wire name), for the `type` filter.
    pub ty: Field,
    /// The item's readable path, when it has one (stored only).
    pub path: Field,
    /// The name it is shown by (stored only).
    pub he: Field,
    pub en: Field,
    /// An event's or a unit's date key, so a date finds the items of that day.
    pub date: Field,
    /// Every name reduced by `normal_title`, untokenised: exact-title and title-prefix ranks.
    pub exact: Field,
    /// Every beginning of each `exact` key up to `document::STARTS_UP_TO` characters, and a
    /// byte for the shown name's length (`document::starts_term`), untokenised: the title-prefix rank reads
    /// a beginning's terms shortest first and stops once its page is full, so it reads the
    /// postings of a few lengths, not of every title the beginning begins.
    pub starts: Field,
    /// The order of the exact-title and title-prefix ranks as one number (fast, item documents
    /// only; `document::title_order`): shortest shown name first, then the id. The index's
    /// segments are sorted by it, so those ranks read a page of each segment's matches, not all.
    /// It also breaks the words rank's ties, and its low bits are the id's number, by which the
    /// ranks tell results apart without reading a document.
    pub title_order: Field,
    /// Every name through the recall analyzer; stored, so that with the other stored fields a
    /// document's stored values are all it was made from (`exact` and the `_exact` fields are
    /// analysed from these), which is what `compare` checks.
    pub words: Field,
    /// Every name through the as-written analyzer.
    pub words_exact: Field,
    /// `item`, or a moment's kind (`line`, `segment`).
    pub kind: Field,
    /// A moment's line id on a text page, segment id and version id in a body (stored only).
    pub line: Field,
    pub segment: Field,
    pub version: Field,
    /// The page number of a text page's line (stored only).
    pub page: Field,
    /// Whether a machine made the moment's words and no one has checked them (stored only).
    pub machine: Field,
    /// A moment's words through the recall analyzer, stored for the answer and its highlight.
    pub text: Field,
    /// A moment's words through the as-written analyzer: phrases are matched here.
    pub text_exact: Field,
}

/// The name of the `title_order` field, which the index's settings sort its segments by.
pub(crate) const TITLE_ORDER: &str = "title_order";

/// A field analysed by `tokenizer`. Only `text_exact` keeps each word's positions: phrases are
/// matched there and nowhere else. Positions were the largest file of a segment after the stored
/// documents (556 MB of the largest segment's 1.5 GB at 10,000,000 items), and a merge holds every
/// input's pages at once (BENCHMARKS.md, "the search fold's peak: a merge's inputs").
fn analysed(tokenizer: &str, record: IndexRecordOption) -> TextOptions {
    TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(tokenizer)
            .set_index_option(record),
    )
}

/// Word counts for BM25, without positions.
const FREQS: IndexRecordOption = IndexRecordOption::WithFreqs;

impl Fields {
    pub fn schema() -> (Schema, Fields) {
        let mut b = Schema::builder();
        let fields = Fields {
            id: b.add_text_field("id", STRING | STORED),
            ty: b.add_text_field("type", STRING | STORED),
            path: b.add_text_field("path", STORED),
            he: b.add_text_field("he", STORED),
            en: b.add_text_field("en", STORED),
            date: b.add_text_field("date", STRING | STORED),
            exact: b.add_text_field("exact", STRING),
            starts: b.add_text_field("starts_by_len", STRING),
            title_order: b.add_u64_field(TITLE_ORDER, FAST),
            words: b.add_text_field("words", analysed(analyzer::WORDS, FREQS) | STORED),
            words_exact: b.add_text_field("words_exact", analysed(analyzer::EXACT, FREQS)),
            kind: b.add_text_field("kind", STRING | STORED),
            line: b.add_text_field("line", STORED),
            segment: b.add_text_field("segment", STORED),
            version: b.add_text_field("version", STORED),
            page: b.add_u64_field("page", STORED),
            machine: b.add_bool_field("machine", STORED),
            text: b.add_text_field("text", analysed(analyzer::WORDS, FREQS) | STORED),
            text_exact: b.add_text_field(
                "text_exact",
                analysed(analyzer::EXACT, IndexRecordOption::WithFreqsAndPositions),
            ),
        };
        (b.build(), fields)
    }

    /// Reads the fields back from an opened index's schema.
    pub fn of(schema: &Schema) -> tantivy::Result<Fields> {
        Ok(Fields {
            id: schema.get_field("id")?,
            ty: schema.get_field("type")?,
            path: schema.get_field("path")?,
            he: schema.get_field("he")?,
            en: schema.get_field("en")?,
            date: schema.get_field("date")?,
            exact: schema.get_field("exact")?,
            starts: schema.get_field("starts_by_len")?,
            title_order: schema.get_field(TITLE_ORDER)?,
            words: schema.get_field("words")?,
            words_exact: schema.get_field("words_exact")?,
            kind: schema.get_field("kind")?,
            line: schema.get_field("line")?,
            segment: schema.get_field("segment")?,
            version: schema.get_field("version")?,
            page: schema.get_field("page")?,
            machine: schema.get_field("machine")?,
            text: schema.get_field("text")?,
            text_exact: schema.get_field("text_exact")?,
        })
    }
}

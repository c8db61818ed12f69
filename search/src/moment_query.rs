//! Where words occur: moments (text-page lines, body segments) holding every word of a query, or
//! a phrase when the query is in double quotes, best BM25 first, each with its matched words
//! marked.

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::schema::document::Value as _;
use tantivy::snippet::SnippetGenerator;
use tantivy::{TantivyDocument, Term};

use catalog_schemas::{Id, ItemType};

use crate::analyzer::{self, terms_by_position};
use crate::error::{Error, Result};
use crate::index::SearchIndex;
use crate::moment::MomentKind;

/// The most characters of a moment's text a highlight shows.
const HIGHLIGHT_CHARS: usize = 200;

/// A piece of a moment's text with the matched words marked.
#[derive(Debug, Clone, PartialEq)]
pub struct Highlight {
    pub fragment: String,
    /// `[start, end)` of each matched word in `fragment`, in characters.
    pub marks: Vec<(usize, usize)>,
}

/// One moment found.
#[derive(Debug, Clone, PartialEq)]
pub struct MomentHit {
    pub id: Id,
    pub ty: ItemType,
    pub path: Option<String>,
    pub kind: MomentKind,
    pub line: Option<String>,
    pub page: Option<u64>,
    pub segment: Option<String>,
    pub version: Option<String>,
    pub text: String,
    pub machine: bool,
    pub highlight: Highlight,
    pub score: f32,
}

/// The words of a query in double quotes, when it is one.
fn phrase(q: &str) -> Option<&str> {
    let q = q.trim();
    q.strip_prefix('"')?.strip_suffix('"')
}

impl SearchIndex {
    /// The moments holding every word of `q` (any of their forms), or — when `q` is in double
    /// quotes — its words as written, in order and adjacent. A query with no words is `BadQuery`.
    pub fn moments(&self, q: &str, limit: usize) -> Result<Vec<MomentHit>> {
        let f = self.fields;
        let (query, marked_in): (Box<dyn Query>, _) = match phrase(q) {
            Some(words) => {
                let terms: Vec<Term> = terms_by_position(&mut analyzer::exact_analyzer(), words)
                    .into_iter()
                    .filter_map(|forms| forms.into_iter().next())
                    .map(|t| Term::from_field_text(f.text_exact, &t))
                    .collect();
                let query: Box<dyn Query> = match terms.len() {
                    0 => return Err(no_words(q)),
                    1 => Box::new(TermQuery::new(
                        terms[0].clone(),
                        IndexRecordOption::WithFreqs,
                    )),
                    _ => Box::new(PhraseQuery::new(terms)),
                };
                (query, f.text_exact)
            }
            None => {
                if terms_by_position(&mut analyzer::words_analyzer(), q).is_empty() {
                    return Err(no_words(q));
                }
                (self.words_query(q, f.text, f.text_exact), f.text)
            }
        };
        // Item documents have no `text`, but the kind filter states the intent and keeps them out
        // whatever the query.
        let moments_only = BooleanQuery::new(vec![
            (Occur::Must, query),
            (
                Occur::MustNot,
                Box::new(TermQuery::new(
                    Term::from_field_text(f.kind, crate::document::ITEM_KIND),
                    IndexRecordOption::Basic,
                )),
            ),
        ]);
        let searcher = self.reader.searcher();
        let mut snippets = SnippetGenerator::create(&searcher, &moments_only, marked_in)?;
        snippets.set_max_num_chars(HIGHLIGHT_CHARS);
        let top = TopDocs::with_limit(limit).order_by_score();
        let mut out = Vec::new();
        for (score, address) in searcher.search(&moments_only, &top)? {
            let doc: TantivyDocument = searcher.doc(address)?;
            let get = |field| {
                doc.get_first(field)
                    .and_then(|v| v.as_str())
                    .map(str::to_owned)
            };
            let id = get(f.id)
                .and_then(|s| Id::parse(&s).ok())
                .ok_or_else(|| Error::Corrupt("a moment without a readable id".into()))?;
            let ty = get(f.ty)
                .and_then(|s| s.parse::<ItemType>().ok())
                .ok_or_else(|| Error::Corrupt(format!("moment of {id} without a readable type")))?;
            let kind = get(f.kind)
                .and_then(|s| MomentKind::parse(&s))
                .ok_or_else(|| Error::Corrupt(format!("moment of {id} without a readable kind")))?;
            let text = get(f.text).unwrap_or_default();
            let snippet = snippets.snippet(&text);
            out.push(MomentHit {
                id,
                ty,
                path: get(f.path),
                kind,
                line: get(f.line),
                page: doc.get_first(f.page).and_then(|v| v.as_u64()),
                segment: get(f.segment),
                version: get(f.version),
                machine: doc
                    .get_first(f.machine)
                    .and_then(|v| v.as_bool())
                    .unwrap_or(false),
                highlight: highlight(snippet.fragment(), snippet.highlighted()),
                text,
                score,
            });
        }
        Ok(out)
    }
}

fn no_words(q: &str) -> Error {
    Error::BadQuery(format!("q {q:?} has no words to search for"))
}

/// The fragment with its byte ranges turned into character ranges.
fn highlight(fragment: &str, ranges: &[std::ops::Range<usize>]) -> Highlight {
    let chars = |byte: usize| fragment[..byte].chars().count();
    Highlight {
        fragment: fragment.to_owned(),
        marks: ranges
            .iter()
            .map(|r| (chars(r.start), chars(r.end)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_in_double_quotes_is_a_phrase() {
        assert_eq!(phrase("\"ויאמר משה\""), Some("ויאמר משה"));
        assert_eq!(phrase("  \"a b\" "), Some("a b"));
        assert_eq!(phrase("a b"), None);
        assert_eq!(phrase("\"a b"), None);
        assert_eq!(phrase("\""), None);
    }

    #[test]
    fn highlight_marks_are_counted_in_characters() {
        let fragment = "שלום world";
        // "world" starts at byte 9 (four two-byte letters and a space).
        let h = highlight(fragment, std::slice::from_ref(&(9..14)));
        assert_eq!(h.marks, [(5, 10)]);
    }

    proptest::proptest! {
        /// Each mark covers, in characters, exactly the text its byte range covered.
        #[test]
        fn marks_cover_the_same_text_as_the_byte_ranges(
            words in proptest::collection::vec("\\PC{1,6}", 1..8),
            picked in proptest::collection::vec(proptest::bool::ANY, 8)
        ) {
            let fragment = words.join(" ");
            let mut ranges = Vec::new();
            let mut at = 0;
            for (i, w) in words.iter().enumerate() {
                if picked[i] {
                    ranges.push(at..at + w.len());
                }
                at += w.len() + 1;
            }
            let h = highlight(&fragment, &ranges);
            let chars: Vec<char> = fragment.chars().collect();
            for ((a, b), r) in h.marks.iter().zip(&ranges) {
                let marked: String = chars[*a..*b].iter().collect();
                proptest::prop_assert_eq!(marked.as_str(), &fragment[r.clone()]);
            }
            proptest::prop_assert_eq!(h.marks.len(), ranges.len());
        }
    }
}

//! Ranked search over names and titles: items whose title is the query come first, then items
//! whose title starts with it, then items holding all its words (best BM25 first).
//!
//! Each rank is its own query, so a rank never loses its items to the size of the one above it.

use std::collections::HashSet;
use std::ops::Bound;

use catalog_schemas::{DateKey, Id, ItemType};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, RangeQuery, TermQuery};
use tantivy::schema::document::Value as _;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocAddress, Searcher, TantivyDocument, Term};

use crate::analyzer::{self, normal_title, terms_by_position};
use crate::error::{Error, Result};
use crate::index::SearchIndex;

/// How well an item matched; the order of the variants is the order of the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    /// Filed under the date the query names.
    Date,
    /// One of its names is the query.
    Exact,
    /// One of its names starts with the query.
    Prefix,
    /// Its names hold every word of the query.
    Words,
}

impl Rank {
    pub fn as_str(self) -> &'static str {
        match self {
            Rank::Date => "date",
            Rank::Exact => "exact",
            Rank::Prefix => "prefix",
            Rank::Words => "words",
        }
    }
}

/// What to search for.
#[derive(Debug, Clone)]
pub struct SearchQuery<'a> {
    pub q: &'a str,
    /// Only items of this type.
    pub ty: Option<ItemType>,
    pub limit: usize,
}

/// One item found.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: Id,
    pub ty: ItemType,
    pub path: Option<String>,
    /// The name it is shown by.
    pub he: Option<String>,
    pub en: Option<String>,
    /// Its date key, for events and dated units.
    pub date: Option<String>,
    pub rank: Rank,
    /// BM25 score for `Words`; the exact and prefix ranks carry none.
    pub score: Option<f32>,
}

/// Prefix candidates read before the shortest titles are picked.
const PREFIX_CANDIDATES: usize = 1000;
/// How much a word as written outweighs a word found through its stem or without its prefix.
const AS_WRITTEN_BOOST: f32 = 2.0;

impl SearchIndex {
    /// Searches names and titles; see the module docs. A query with no words is `BadQuery`.
    pub fn search(&self, query: &SearchQuery<'_>) -> Result<Vec<Hit>> {
        let normal = normal_title(query.q);
        if normal.is_empty() {
            return Err(Error::BadQuery(format!(
                "q {:?} has no words to search for",
                query.q
            )));
        }
        let searcher = self.reader.searcher();
        let f = self.fields;
        let filter = query.ty.map(|ty| Term::from_field_text(f.ty, ty.as_str()));
        let mut out = Vec::new();
        let mut seen = HashSet::new();

        // Exact titles: shortest shown name first, then id, so the order is stable.
        let exact = TermQuery::new(
            Term::from_field_text(f.exact, &normal),
            IndexRecordOption::Basic,
        );
        let mut exact_hits = self.read_all(&searcher, &filtered(exact, &filter), Rank::Exact)?;
        exact_hits.sort_by(|a, b| shown_len(a).cmp(&shown_len(b)).then(a.id.cmp(&b.id)));
        push(&mut out, &mut seen, exact_hits, query.limit);

        // Titles that start with the query: the closest (shortest) first.
        if out.len() < query.limit {
            let mut upper = normal.clone();
            upper.push(char::MAX);
            let prefix = RangeQuery::new(
                Bound::Included(Term::from_field_text(f.exact, &normal)),
                Bound::Excluded(Term::from_field_text(f.exact, &upper)),
            );
            let mut hits = self.read_all(&searcher, &filtered(prefix, &filter), Rank::Prefix)?;
            hits.sort_by(|a, b| shown_len(a).cmp(&shown_len(b)).then(a.id.cmp(&b.id)));
            push(&mut out, &mut seen, hits, query.limit);
        }

        // Every word of the query, in any form the analyzer gives it.
        if out.len() < query.limit {
            let words = self.words_query(query.q, self.fields.words, self.fields.words_exact);
            let top = TopDocs::with_limit(query.limit + seen.len()).order_by_score();
            let found = searcher.search(&filtered_box(words, &filter), &top)?;
            let mut hits = Vec::with_capacity(found.len());
            for (score, address) in found {
                let mut hit = self.hit(&searcher, address, Rank::Words)?;
                hit.score = Some(score);
                hits.push(hit);
            }
            push(&mut out, &mut seen, hits, query.limit);
        }
        Ok(out)
    }

    /// The items filed under a date key or within it (a month's or a year's days), events
    /// first, then by date. The route's date answer uses it once a query has been read as a date.
    pub fn on_date(&self, key: &DateKey, ty: Option<ItemType>, limit: usize) -> Result<Vec<Hit>> {
        let searcher = self.reader.searcher();
        let f = self.fields;
        let key = key.to_string();
        let within = format!("{key}-");
        let mut upper = within.clone();
        upper.push(char::MAX);
        let on: Vec<(Occur, Box<dyn Query>)> = vec![
            (
                Occur::Should,
                Box::new(TermQuery::new(
                    Term::from_field_text(f.date, &key),
                    IndexRecordOption::Basic,
                )),
            ),
            (
                Occur::Should,
                Box::new(RangeQuery::new(
                    Bound::Included(Term::from_field_text(f.date, &within)),
                    Bound::Excluded(Term::from_field_text(f.date, &upper)),
                )),
            ),
        ];
        let filter = ty.map(|ty| Term::from_field_text(f.ty, ty.as_str()));
        let query = filtered_box(Box::new(BooleanQuery::new(on)), &filter);
        let mut hits = self.read_all(&searcher, query.as_ref(), Rank::Date)?;
        hits.sort_by(|a, b| {
            (a.ty != ItemType::Event, &a.date, a.id).cmp(&(b.ty != ItemType::Event, &b.date, b.id))
        });
        hits.truncate(limit);
        Ok(hits)
    }

    /// Every word of `q` in `recall` (any of its forms) or as written in `written`.
    pub(crate) fn words_query(
        &self,
        q: &str,
        recall_field: Field,
        written_field: Field,
    ) -> Box<dyn Query> {
        let recall = terms_by_position(&mut analyzer::words_analyzer(), q);
        let written = terms_by_position(&mut analyzer::exact_analyzer(), q);
        let mut must: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (i, forms) in recall.iter().enumerate() {
            let mut any: Vec<(Occur, Box<dyn Query>)> = forms
                .iter()
                .map(|t| {
                    let q: Box<dyn Query> = Box::new(TermQuery::new(
                        Term::from_field_text(recall_field, t),
                        IndexRecordOption::WithFreqs,
                    ));
                    (Occur::Should, q)
                })
                .collect();
            if let Some(word) = written.get(i).and_then(|g| g.first()) {
                let exact = TermQuery::new(
                    Term::from_field_text(written_field, word),
                    IndexRecordOption::WithFreqs,
                );
                any.push((
                    Occur::Should,
                    Box::new(BoostQuery::new(Box::new(exact), AS_WRITTEN_BOOST)),
                ));
            }
            must.push((Occur::Must, Box::new(BooleanQuery::new(any))));
        }
        Box::new(BooleanQuery::new(must))
    }

    /// Every document a constant-score query matches, up to the prefix cap.
    fn read_all(&self, searcher: &Searcher, query: &dyn Query, rank: Rank) -> Result<Vec<Hit>> {
        let top = TopDocs::with_limit(PREFIX_CANDIDATES).order_by_score();
        searcher
            .search(query, &top)?
            .into_iter()
            .map(|(_, address)| self.hit(searcher, address, rank))
            .collect()
    }

    fn hit(&self, searcher: &Searcher, address: DocAddress, rank: Rank) -> Result<Hit> {
        let f = self.fields;
        let doc: TantivyDocument = searcher.doc(address)?;
        let get = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_str())
                .map(str::to_owned)
        };
        let id = get(f.id)
            .and_then(|s| Id::parse(&s).ok())
            .ok_or_else(|| Error::Corrupt("a document without a readable id".into()))?;
        let ty = get(f.ty)
            .and_then(|s| s.parse::<ItemType>().ok())
            .ok_or_else(|| Error::Corrupt(format!("document {id} without a readable type")))?;
        Ok(Hit {
            id,
            ty,
            path: get(f.path),
            he: get(f.he),
            en: get(f.en),
            date: get(f.date),
            rank,
            score: None,
        })
    }
}

fn shown_len(hit: &Hit) -> usize {
    hit.he
        .as_deref()
        .or(hit.en.as_deref())
        .map_or(usize::MAX, |s| s.chars().count())
}

fn filtered(query: impl Query + 'static, filter: &Option<Term>) -> Box<dyn Query> {
    filtered_box(Box::new(query), filter)
}

fn filtered_box(query: Box<dyn Query>, filter: &Option<Term>) -> Box<dyn Query> {
    match filter {
        None => query,
        Some(term) => Box::new(BooleanQuery::new(vec![
            (Occur::Must, query),
            (
                Occur::Must,
                Box::new(TermQuery::new(term.clone(), IndexRecordOption::Basic)),
            ),
        ])),
    }
}

fn push(out: &mut Vec<Hit>, seen: &mut HashSet<Id>, hits: Vec<Hit>, limit: usize) {
    for hit in hits {
        if out.len() >= limit {
            return;
        }
        if seen.insert(hit.id) {
            out.push(hit);
        }
    }
}

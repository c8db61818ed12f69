//! Ranked search over names and titles: items whose title is the query come first, then items
//! whose title starts with it, then items holding all its words (best BM25 first; a tie, common
//! among short titles, goes to the shortest shown name, then the lowest id).
//!
//! Each rank is its own query, so a rank never loses its items to the size of the one above it.

use std::collections::{BinaryHeap, HashSet};
use std::ops::Bound;
use std::sync::Arc;

use catalog_schemas::{DateKey, Id, ItemType};
use tantivy::collector::TopDocs;
use tantivy::columnar::Column;
use tantivy::query::{
    Bm25StatisticsProvider, BooleanQuery, BoostQuery, EnableScoring, Occur, Query, RangeQuery,
    TermQuery,
};
use tantivy::schema::document::Value as _;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{
    DocAddress, DocSet as _, Searcher, SegmentReader, TERMINATED, TantivyDocument, Term,
};

use crate::analyzer::{self, normal_title, terms_by_position};
use crate::document::{STARTS_UP_TO, number_of_title_order, starts_terms_of};
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

/// The most items of one date read before they are ordered (the date answer's cap).
const DATE_CANDIDATES: usize = 1000;
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
        let exact = self.shortest_first(&searcher, &filtered(exact, &filter), query.limit)?;
        self.push(
            &searcher,
            &mut out,
            &mut seen,
            exact,
            Rank::Exact,
            query.limit,
        )?;

        // Titles that start with the query: the closest (shortest) first.
        if out.len() < query.limit {
            // Items already answered may be among them: enough to fill the page without them.
            let prefix =
                self.prefix_shortest_first(&searcher, &normal, &filter, query.limit + seen.len())?;
            self.push(
                &searcher,
                &mut out,
                &mut seen,
                prefix,
                Rank::Prefix,
                query.limit,
            )?;
        }

        // Every word of the query, in any form the analyzer gives it.
        if out.len() < query.limit {
            let words = self.words_query(query.q, self.fields.words, self.fields.words_exact);
            let best = self.best_scored(
                &searcher,
                filtered_box(words, &filter).as_ref(),
                query.limit + seen.len(),
            )?;
            self.push(
                &searcher,
                &mut out,
                &mut seen,
                best,
                Rank::Words,
                query.limit,
            )?;
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
        // One word is its forms' union alone, which scores the same: tantivy skips the blocks of
        // a union of terms whose best score cannot enter the page (block-max WAND), and does not
        // look inside a `Must` around it, so the union read every posting of a common word.
        if must.len() == 1
            && let Some((_, one)) = must.pop()
        {
            return one;
        }
        Box::new(BooleanQuery::new(must))
    }

    /// Every document a constant-score query matches, up to the date answer's cap. Only the date
    /// answer reads them all (its order needs the stored date); the name ranks use
    /// `shortest_first`.
    fn read_all(&self, searcher: &Searcher, query: &dyn Query, rank: Rank) -> Result<Vec<Hit>> {
        let top = TopDocs::with_limit(DATE_CANDIDATES).order_by_score();
        searcher
            .search(query, &top)?
            .into_iter()
            .map(|(_, address)| self.hit(searcher, address, rank))
            .collect()
    }

    /// The `n` documents `query` matches with the shortest shown name, then the lowest id, in that
    /// order (a document without a shown name last): the least `title_order`s. Every segment is
    /// sorted by that column (`index::settings`), so a segment's matches come best first and its
    /// first `n` live ones are all it can give; the rest of its postings are not read. The answer
    /// is the same however the index's segments lie (the order is the items', not the
    /// documents'), and a page costs a page a segment whatever the catalog's size: reading the
    /// column of every match grew with the catalog, ten times the time for a common word at ten
    /// times the items. The columns come from `rank_columns`, opened once for the searcher's
    /// generation.
    fn shortest_first(
        &self,
        searcher: &Searcher,
        query: &dyn Query,
        n: usize,
    ) -> Result<Vec<Candidate>> {
        let columns = self.rank_columns(searcher)?;
        let weight = query.weight(EnableScoring::disabled_from_searcher(searcher))?;
        // The best `n` so far, the worst on top.
        let mut best: BinaryHeap<(u64, DocAddress)> = BinaryHeap::with_capacity(n + 1);
        for (ord, segment, order) in columns.item_segments(searcher) {
            let alive = segment.alive_bitset();
            let mut scorer = weight.scorer(segment, 1.0)?;
            let mut taken = 0;
            let mut doc = scorer.doc();
            while doc != TERMINATED && taken < n {
                if alive.is_none_or(|a| a.is_alive(doc)) {
                    let address = DocAddress::new(ord as u32, doc);
                    let key = order.first(doc).ok_or_else(|| without_number(address))?;
                    // The segment's later matches order after this one: none of them can enter.
                    if best.len() == n && best.peek().is_some_and(|(worst, _)| key > *worst) {
                        break;
                    }
                    best.push((key, address));
                    if best.len() > n {
                        best.pop();
                    }
                    taken += 1;
                }
                doc = scorer.advance();
            }
        }
        Ok(best
            .into_sorted_vec()
            .into_iter()
            .map(|(key, address)| Candidate {
                address,
                number: number_of_title_order(key),
                score: None,
            })
            .collect())
    }

    /// The `n` documents `query` scores best (BM25), ties going to the shortest shown name, then
    /// the lowest id: the order `shortest_first` gives within a score. One threshold runs across
    /// the segments, so a segment after the first skips every block of postings whose best score
    /// cannot enter the page (tantivy's block-max WAND), and a block that can only tie is skipped
    /// once ties can no longer win: a segment's documents come in `title_order`, so after one
    /// that orders after the page's last, every later one does too. Short titles tie often (in
    /// the generated catalog a common word's whole first page shares one score); tantivy's own
    /// top-k starts each segment afresh and orders ties by where documents lie, which read those
    /// blocks in every segment and answered by the index's layout.
    fn best_scored(
        &self,
        searcher: &Searcher,
        query: &dyn Query,
        n: usize,
    ) -> Result<Vec<Candidate>> {
        if n == 0 {
            return Ok(Vec::new());
        }
        let columns = self.rank_columns(searcher)?;
        let statistics = NameStatistics {
            searcher,
            columns: &columns,
            names: self.name_fields(),
        };
        let weight = query.weight(EnableScoring::enabled_from_statistics_provider(
            &statistics,
            searcher,
        ))?;
        // The best `n` so far, the worst on top.
        let mut best: BinaryHeap<Scored> = BinaryHeap::with_capacity(n + 1);
        for (ord, segment, order) in columns.item_segments(searcher) {
            let alive = segment.alive_bitset();
            let mut broken = None;
            // Ties with the page's last may still win at the front of a segment: offer them.
            let start = threshold(&best, n, 0);
            weight.for_each_pruning(start, segment, &mut |doc, score| {
                if alive.is_some_and(|a| a.is_deleted(doc)) {
                    return threshold(&best, n, 0);
                }
                let address = DocAddress::new(ord as u32, doc);
                let Some(at) = order.first(doc) else {
                    broken = Some(without_number(address));
                    // Nothing scores above this: the rest of the segment is skipped.
                    return f32::MAX;
                };
                let scored = Scored {
                    score,
                    order: at,
                    address,
                };
                if best.len() < n {
                    best.push(scored);
                } else if best.peek().is_some_and(|worst| scored < *worst) {
                    best.pop();
                    best.push(scored);
                }
                threshold(&best, n, at)
            })?;
            if let Some(error) = broken {
                return Err(error);
            }
        }
        Ok(best
            .into_sorted_vec()
            .into_iter()
            .map(|s| Candidate {
                address: s.address,
                number: number_of_title_order(s.order),
                score: Some(s.score),
            })
            .collect())
    }

    /// The name ranks' columns of `searcher`'s segments, opened when a searcher of a new
    /// generation (the index reloaded after a commit) first asks, and shared until the next.
    fn rank_columns(&self, searcher: &Searcher) -> Result<Arc<RankColumns>> {
        let generation = searcher.generation().generation_id();
        let mut cached = self
            .rank_columns
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(columns) = cached.as_ref().filter(|c| c.generation == generation) {
            return Ok(Arc::clone(columns));
        }
        let schema = searcher.schema();
        let segments = searcher
            .segment_readers()
            .iter()
            .map(|segment| {
                let fast = segment.fast_fields();
                // tantivy gives a column without values to a segment no document of which has
                // one (the sort field's, at least): that segment holds no item documents.
                let title_order = fast
                    .column_opt::<u64>(schema.get_field_name(self.fields.title_order))?
                    .filter(|column| column.values.num_vals() > 0);
                Ok(SegmentColumns { title_order })
            })
            .collect::<Result<Vec<_>>>()?;
        let columns = Arc::new(RankColumns {
            generation,
            segments,
        });
        *cached = Some(Arc::clone(&columns));
        Ok(columns)
    }

    /// The fields only item documents hold terms in.
    fn name_fields(&self) -> [Field; 4] {
        let f = self.fields;
        [f.exact, f.starts, f.words, f.words_exact]
    }

    /// The `n` items one of whose titles begins with `normal`, in `shortest_first`'s order. A
    /// beginning indexed in `starts` has a term for each step of shown-name length its items
    /// have, in the order of lengths (`document::starts_term`): the terms are taken shortest
    /// first across the segments, each one's items ordered as `shortest_first` orders them, until
    /// `n` are found. A common word begins some
    /// thousands of titles at a million items, ten times as many at ten million; this reads the
    /// postings and columns of the few shortest lengths instead of all of them. A longer
    /// beginning is rare and begins few titles: its range of `exact` keys is read whole.
    fn prefix_shortest_first(
        &self,
        searcher: &Searcher,
        normal: &str,
        filter: &Option<Term>,
        n: usize,
    ) -> Result<Vec<Candidate>> {
        let f = self.fields;
        if normal.chars().count() > STARTS_UP_TO {
            let mut upper = normal.to_owned();
            upper.push(char::MAX);
            let range = RangeQuery::new(
                Bound::Included(Term::from_field_text(f.exact, normal)),
                Bound::Excluded(Term::from_field_text(f.exact, &upper)),
            );
            return self.shortest_first(searcher, &filtered(range, filter), n);
        }
        let (from, to) = starts_terms_of(normal);
        let columns = self.rank_columns(searcher)?;
        let dictionaries = columns
            .item_segments(searcher)
            .map(|(_, segment, _)| segment.inverted_index(f.starts))
            .collect::<tantivy::Result<Vec<_>>>()?;
        // One stream a segment over its terms of `normal`, merged by hand: the next term is the
        // least any stream stands on, and every stream on it moves past it.
        let mut streams = Vec::with_capacity(dictionaries.len());
        for dictionary in &dictionaries {
            let mut stream = dictionary.terms().range().ge(&from).lt(&to).into_stream()?;
            if stream.advance() {
                streams.push(stream);
            }
        }
        let mut out = Vec::new();
        while out.len() < n {
            let Some(least) = streams.iter().map(|s| s.key()).min().map(<[u8]>::to_vec) else {
                break;
            };
            streams.retain_mut(|s| s.key() != least.as_slice() || s.advance());
            let text = std::str::from_utf8(&least)
                .map_err(|_| Error::Corrupt(format!("a starts term of {normal:?} is not text")))?;
            let term = TermQuery::new(
                Term::from_field_text(f.starts, text),
                IndexRecordOption::Basic,
            );
            out.extend(self.shortest_first(searcher, &filtered(term, filter), n - out.len())?);
        }
        Ok(out)
    }

    /// Appends `candidates` in their order, skipping items already answered, until `limit`; reads
    /// the stored fields of each one appended and of no other.
    fn push(
        &self,
        searcher: &Searcher,
        out: &mut Vec<Hit>,
        seen: &mut HashSet<Id>,
        candidates: Vec<Candidate>,
        rank: Rank,
        limit: usize,
    ) -> Result<()> {
        for candidate in candidates {
            if out.len() >= limit {
                break;
            }
            let id = Id::from_u64(candidate.number)
                .ok_or_else(|| Error::Corrupt(format!("number {} is no id", candidate.number)))?;
            if seen.insert(id) {
                let mut hit = self.hit(searcher, candidate.address, rank)?;
                if hit.id != id {
                    return Err(Error::Corrupt(format!(
                        "document {} has number {}",
                        hit.id, candidate.number
                    )));
                }
                hit.score = candidate.score;
                out.push(hit);
            }
        }
        Ok(())
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

/// The `title_order` column of each segment of one searcher generation, by segment ordinal; a
/// segment where no document has a value has no column.
pub(crate) struct RankColumns {
    generation: u64,
    segments: Vec<SegmentColumns>,
}

struct SegmentColumns {
    title_order: Option<Column<u64>>,
}

impl RankColumns {
    /// Whether the segment of ordinal `ord` holds item documents (every one has a `title_order`);
    /// one of moment documents alone has no name terms.
    fn holds_items(&self, ord: usize) -> bool {
        self.segments
            .get(ord)
            .is_some_and(|segment| segment.title_order.is_some())
    }

    /// The segments of `searcher` (of this generation) that hold item documents, with their
    /// ordinals and `title_order` columns: the only ones a name rank can find anything in.
    fn item_segments<'s>(
        &'s self,
        searcher: &'s Searcher,
    ) -> impl Iterator<Item = (usize, &'s SegmentReader, &'s Column<u64>)> {
        searcher
            .segment_readers()
            .iter()
            .enumerate()
            .filter_map(|(ord, segment)| {
                let order = self.segments.get(ord)?.title_order.as_ref()?;
                Some((ord, segment, order))
            })
    }
}

/// BM25's statistics for the words rank, the name fields' read only from the segments that hold
/// item documents: tantivy answers a segment's inverted index of a field it lacks with an empty
/// one built anew on every call (it caches only those it opens from disk), and a catalog's
/// segments of moment documents alone lack every name field. The figures are the ones the
/// searcher gives, so the scores are too.
struct NameStatistics<'a> {
    searcher: &'a Searcher,
    columns: &'a RankColumns,
    names: [Field; 4],
}

impl NameStatistics<'_> {
    fn segments_of(&self, field: Field) -> impl Iterator<Item = &SegmentReader> {
        let every = !self.names.contains(&field);
        self.searcher
            .segment_readers()
            .iter()
            .enumerate()
            .filter(move |(ord, _)| every || self.columns.holds_items(*ord))
            .map(|(_, segment)| segment)
    }
}

impl Bm25StatisticsProvider for NameStatistics<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        let mut total = 0;
        for segment in self.segments_of(field) {
            total += segment.inverted_index(field)?.total_num_tokens();
        }
        Ok(total)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        self.searcher.total_num_docs()
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let mut total = 0;
        for segment in self.segments_of(term.field()) {
            total += u64::from(segment.inverted_index(term.field())?.doc_freq(term)?);
        }
        Ok(total)
    }
}

/// A matched document before its stored fields are read: what its rank's order needs.
struct Candidate {
    address: DocAddress,
    /// The item's id as a number (from `title_order`).
    number: u64,
    /// BM25 score, for the words rank.
    score: Option<f32>,
}

/// A document the words rank scored; ordered best first (the highest score, then the least
/// `title_order`), so a max-heap of them keeps the worst on top.
#[derive(Debug, Clone, Copy)]
struct Scored {
    score: f32,
    order: u64,
    address: DocAddress,
}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then(self.order.cmp(&other.order))
    }
}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Scored {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Scored {}

/// The score a document must beat to be offered to `best_scored`'s page of `n`, the segment being
/// read having reached `at` in `title_order` (every later document of it orders after `at`).
/// Until the page is full, any score. Then a tie with the page's last can still win while the
/// segment stands before it, so ties are offered (the score just below); after it, none can,
/// and blocks whose best only ties are skipped.
fn threshold(best: &BinaryHeap<Scored>, n: usize, at: u64) -> f32 {
    match best.peek() {
        Some(worst) if best.len() == n => {
            if at >= worst.order {
                worst.score
            } else {
                worst.score.next_down()
            }
        }
        _ => f32::MIN,
    }
}

/// Every item document carries its id's number; one without it is a broken index.
fn without_number(address: DocAddress) -> Error {
    Error::Corrupt(format!("item document {address:?} without its id's number"))
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

#[cfg(test)]
mod tests {
    use super::*;
    use catalog_log_core::{Log, Seq, Store};
    use serde_json::{Value, json};

    fn id(n: u64) -> Id {
        Id::from_u64(n).expect("id")
    }

    /// An index folded from `items`, one commit (and one tantivy commit, so one segment) each.
    fn index_of(items: &[(u64, ItemType, Value)]) -> (tempfile::TempDir, SearchIndex) {
        let dir = tempfile::tempdir().expect("dir");
        let store = Store::open(&dir.path().join("db"), &[]).expect("store");
        let log = Log::open(&store).expect("log");
        let (index, mut indexer) = SearchIndex::open(&dir.path().join("search")).expect("open");
        for (n, ty, data) in items {
            let commit = catalog_testkit::append(
                &log,
                vec![catalog_testkit::put(id(*n), *ty, None, data.clone())],
            );
            indexer.apply(&[commit]).expect("apply");
        }
        assert_eq!(index.applied(), Seq(items.len() as u64));
        drop(indexer);
        (dir, index)
    }

    fn ranked(
        index: &SearchIndex,
        q: &str,
        ty: Option<ItemType>,
        limit: usize,
    ) -> Vec<(u64, Rank)> {
        let query = SearchQuery { q, ty, limit };
        index
            .search(&query)
            .expect("search")
            .into_iter()
            .map(|h| (h.id.as_u64(), h.rank))
            .collect()
    }

    /// The search as it was before the ranks' order came from fast fields: every candidate's
    /// stored fields read, then sorted and deduplicated. The oracle of the proptest below.
    fn reading_every_candidate(index: &SearchIndex, query: &SearchQuery<'_>) -> Vec<Hit> {
        let normal = normal_title(query.q);
        let searcher = index.reader.searcher();
        let f = index.fields;
        let filter = query.ty.map(|ty| Term::from_field_text(f.ty, ty.as_str()));
        let shown_len = |hit: &Hit| {
            hit.he
                .as_deref()
                .or(hit.en.as_deref())
                .map_or(usize::MAX, |s| s.chars().count())
        };
        let mut out: Vec<Hit> = Vec::new();
        let mut seen = HashSet::new();
        let mut push = |out: &mut Vec<Hit>, hits: Vec<Hit>| {
            for hit in hits {
                if out.len() >= query.limit {
                    return;
                }
                if seen.insert(hit.id) {
                    out.push(hit);
                }
            }
        };
        let exact = TermQuery::new(
            Term::from_field_text(f.exact, &normal),
            IndexRecordOption::Basic,
        );
        let mut hits = index
            .read_all(&searcher, filtered(exact, &filter).as_ref(), Rank::Exact)
            .expect("exact");
        hits.sort_by(|a, b| shown_len(a).cmp(&shown_len(b)).then(a.id.cmp(&b.id)));
        push(&mut out, hits);
        if out.len() < query.limit {
            let mut upper = normal.clone();
            upper.push(char::MAX);
            let prefix = RangeQuery::new(
                Bound::Included(Term::from_field_text(f.exact, &normal)),
                Bound::Excluded(Term::from_field_text(f.exact, &upper)),
            );
            let mut hits = index
                .read_all(&searcher, filtered(prefix, &filter).as_ref(), Rank::Prefix)
                .expect("prefix");
            hits.sort_by(|a, b| shown_len(a).cmp(&shown_len(b)).then(a.id.cmp(&b.id)));
            push(&mut out, hits);
        }
        if out.len() < query.limit {
            // Inside a `Must`, as before the one-word union stood alone: every posting scored,
            // no block skipped.
            let words: Box<dyn Query> = Box::new(BooleanQuery::new(vec![(
                Occur::Must,
                index.words_query(query.q, f.words, f.words_exact),
            )]));
            // Every match, ordered by score, ties by shown length, then id.
            let top = TopDocs::with_limit(10_000).order_by_score();
            let found = searcher
                .search(&filtered_box(words, &filter), &top)
                .expect("words");
            let mut hits: Vec<Hit> = found
                .into_iter()
                .map(|(score, address)| {
                    let mut hit = index.hit(&searcher, address, Rank::Words).expect("hit");
                    hit.score = Some(score);
                    hit
                })
                .collect();
            hits.sort_by(|a, b| {
                b.score
                    .expect("scored")
                    .total_cmp(&a.score.expect("scored"))
                    .then(shown_len(a).cmp(&shown_len(b)))
                    .then(a.id.cmp(&b.id))
            });
            push(&mut out, hits);
        }
        out
    }

    #[test]
    fn exact_before_prefix_before_words_with_ties_by_shown_length_then_id() {
        let topic = ItemType::Topic;
        let (_dir, index) = index_of(&[
            // Exact titles. 5 and 4 tie on length (4): the id decides, not the order indexed.
            (5, topic, json!({ "name": { "he": "שמחה" } })),
            (4, topic, json!({ "name": { "he": "שמחה" } })),
            // Exact through a name it is not shown by: the shown name's length (16) places it.
            (
                9,
                topic,
                json!({ "title": { "he": "ספר השמחה הגדולה" }, "label": { "he": "שמחה" } }),
            ),
            // Another type, exact and as short: kept out by a type filter.
            (11, ItemType::Person, json!({ "name": { "he": "שמחה" } })),
            // Prefixes. 8 and 3 tie on length (8); 1 and 6 on 10, 6 by its English shown name.
            (8, topic, json!({ "name": { "he": "שמחה רבה" } })),
            (3, topic, json!({ "name": { "he": "שמחה רבה" } })),
            (1, topic, json!({ "name": { "he": "שמחה גדולה" } })),
            (
                6,
                topic,
                json!({ "name": { "en": "Joy of all" }, "label": { "he": "שמחה של מצוה" } }),
            ),
            // Only the word.
            (10, topic, json!({ "name": { "he": "ספר שמחה" } })),
        ]);
        use Rank::{Exact, Prefix, Words};
        assert_eq!(
            ranked(&index, "שמחה", None, 20),
            [
                (4, Exact),
                (5, Exact),
                (11, Exact),
                (9, Exact),
                (3, Prefix),
                (8, Prefix),
                (1, Prefix),
                (6, Prefix),
                (10, Words),
            ]
        );
        assert_eq!(
            ranked(&index, "שמחה", Some(ItemType::Topic), 20),
            [
                (4, Exact),
                (5, Exact),
                (9, Exact),
                (3, Prefix),
                (8, Prefix),
                (1, Prefix),
                (6, Prefix),
                (10, Words),
            ]
        );
        // A limit inside a rank cuts it after the shortest, with the exact items not repeated.
        assert_eq!(
            ranked(&index, "שמחה", Some(ItemType::Topic), 5),
            [(4, Exact), (5, Exact), (9, Exact), (3, Prefix), (8, Prefix)]
        );
        // The words rank's hits carry their score, the others none.
        let query = SearchQuery {
            q: "שמחה",
            ty: None,
            limit: 20,
        };
        let hits = index.search(&query).expect("search");
        assert!(hits.iter().all(|h| h.score.is_some() == (h.rank == Words)));
        assert_eq!(hits, reading_every_candidate(&index, &query));
    }

    /// More titles start with the query than the old cap on candidates (1,000, taken in document
    /// order before sorting): the shortest still comes first, though its document is the last
    /// of the segment, and the rest follow by id.
    #[test]
    fn the_shortest_title_with_the_prefix_comes_first_however_many_share_it() {
        let dir = tempfile::tempdir().expect("dir");
        let store = Store::open(&dir.path().join("db"), &[]).expect("store");
        let log = Log::open(&store).expect("log");
        let (index, mut indexer) = SearchIndex::open(&dir.path().join("search")).expect("open");
        let name = |he: String| json!({ "name": { "he": he } });
        let mut changes: Vec<_> = (1..=1_200u64)
            .map(|n| {
                catalog_testkit::put(
                    id(n),
                    ItemType::Topic,
                    None,
                    name(format!("שמחה רבה {n:04}")),
                )
            })
            .collect();
        changes.push(catalog_testkit::put(
            id(1_201),
            ItemType::Topic,
            None,
            name("שמחה רבה".into()),
        ));
        let commit = catalog_testkit::append(&log, changes);
        indexer.apply(&[commit]).expect("apply");
        drop(indexer);
        use Rank::Prefix;
        assert_eq!(
            ranked(&index, "שמחה", None, 3),
            [(1_201, Prefix), (1, Prefix), (2, Prefix)]
        );
        // A type filter leaves the order as it is.
        assert_eq!(
            ranked(&index, "שמחה", Some(ItemType::Topic), 2),
            [(1_201, Prefix), (1, Prefix)]
        );
    }

    /// Items that hold the words alike score alike: the shortest shown name comes first, then
    /// the lowest id, wherever their documents lie (each is its own segment here).
    #[test]
    fn words_rank_ties_go_to_the_shortest_shown_name_then_the_lowest_id() {
        let topic = ItemType::Topic;
        let (_dir, index) = index_of(&[
            (1, topic, json!({ "name": { "he": "ספרי שמחה" } })),
            (4, topic, json!({ "name": { "he": "ספר שמחה" } })),
            (2, topic, json!({ "name": { "he": "ספר שמחה" } })),
            (3, topic, json!({ "name": { "he": "ספרים שמחה" } })),
        ]);
        let query = SearchQuery {
            q: "שמחה",
            ty: None,
            limit: 10,
        };
        let hits = index.search(&query).expect("search");
        let scores: Vec<_> = hits.iter().map(|h| h.score).collect();
        assert!(scores.windows(2).all(|w| w[0] == w[1]), "{scores:?}");
        use Rank::Words;
        assert_eq!(
            ranked(&index, "שמחה", None, 10),
            [(2, Words), (4, Words), (1, Words), (3, Words)]
        );
        assert_eq!(ranked(&index, "שמחה", None, 2), [(2, Words), (4, Words)]);
    }

    /// A segment of moment documents alone (a text's paragraphs, no names) is passed over by the
    /// name ranks, and BM25's figures read without it are the ones the whole searcher gives.
    #[test]
    fn a_segment_without_item_documents_leaves_the_answer_and_its_scores_as_they_were() {
        let topic = ItemType::Topic;
        let (_dir, index) = index_of(&[
            (1, topic, json!({ "name": { "he": "שמחה גדולה" } })),
            (
                2,
                ItemType::Segment,
                json!({ "text": id(9).to_string(), "order": "a", "kind": "paragraph",
                        "content": "שמחה ושמחה גדולה" }),
            ),
            (3, topic, json!({ "name": { "he": "ספר ושמחה" } })),
            (4, topic, json!({ "name": { "he": "אור שמחה" } })),
        ]);
        let searcher = index.reader.searcher();
        let columns = index.rank_columns(&searcher).expect("columns");
        let held: Vec<bool> = (0..searcher.segment_readers().len())
            .map(|ord| columns.holds_items(ord))
            .collect();
        assert_eq!(held.iter().filter(|h| !**h).count(), 1, "{held:?}");
        let f = index.fields;
        let statistics = NameStatistics {
            searcher: &searcher,
            columns: &columns,
            names: index.name_fields(),
        };
        for word in ["שמחה", "ושמחה", "גדולה"] {
            for field in [f.words, f.words_exact, f.text] {
                let term = Term::from_field_text(field, word);
                assert_eq!(
                    statistics.doc_freq(&term).expect("ours"),
                    searcher.doc_freq(&term).expect("tantivy's"),
                    "{word} in {field:?}"
                );
            }
        }
        for field in [f.words, f.words_exact, f.exact, f.text] {
            assert_eq!(
                statistics.total_num_tokens(field).expect("ours"),
                Bm25StatisticsProvider::total_num_tokens(&searcher, field).expect("tantivy's"),
            );
        }
        for q in ["שמחה", "ושמחה", "גדולה"] {
            let query = SearchQuery {
                q,
                ty: None,
                limit: 10,
            };
            let hits = index.search(&query).expect("search");
            assert!(!hits.is_empty());
            assert_eq!(hits, reading_every_candidate(&index, &query), "{q}");
        }
    }

    const WORDS: &[&str] = &["שמחה", "שמח", "ושמחה", "אור", "Joy", "joys", "light"];

    fn name() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(WORDS), 1..4).prop_map(|w| w.join(" "))
    }

    use proptest::strategy::Strategy as _;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
        /// The answers are the ones reading every candidate's stored fields gave, hit for hit.
        #[test]
        fn answers_as_reading_every_candidate_did(
            items in proptest::collection::vec(
                (1u64..64, proptest::bool::ANY, proptest::option::of(name()), proptest::option::of(name()), proptest::option::of(name())),
                1..24,
            ),
            // Short prefixes take the `starts` term; the last two, one over `STARTS_UP_TO`
            // characters, the range of `exact` keys.
            q in proptest::sample::select(&["שמחה", "שמ", "ושמחה", "joy", "light", "אור שמחה", "שמחה שמחה א", "שמחה שמחה אור", "joy joy light"][..]),
            filter in proptest::bool::ANY,
            limit in 1usize..12,
        ) {
            let items: Vec<(u64, ItemType, Value)> = items
                .into_iter()
                .map(|(n, person, he, en, label)| {
                    let ty = if person { ItemType::Person } else { ItemType::Topic };
                    let mut data = json!({ "name": { "he": he.unwrap_or_else(|| "שם".into()) } });
                    if let Some(en) = en {
                        data["name"]["en"] = Value::String(en);
                    }
                    if let Some(label) = label {
                        data["label"] = json!({ "he": label });
                    }
                    (n, ty, data)
                })
                .collect();
            let (_dir, index) = index_of(&items);
            let query = SearchQuery { q, ty: filter.then_some(ItemType::Topic), limit };
            let hits = index.search(&query).expect("search");
            let oracle = reading_every_candidate(&index, &query);
            // A one-word score is summed in another order where tantivy skips blocks: the same
            // to a few units in the last place, not always bit for bit.
            let unscored = |hits: &[Hit]| {
                hits.iter().map(|h| Hit { score: None, ..h.clone() }).collect::<Vec<_>>()
            };
            proptest::prop_assert_eq!(unscored(&hits), unscored(&oracle));
            for (hit, old) in hits.iter().zip(&oracle) {
                let close = match (hit.score, old.score) {
                    (Some(a), Some(b)) => (a - b).abs() <= 1e-5 * a.abs().max(1.0),
                    (a, b) => a == b,
                };
                proptest::prop_assert!(close, "{:?} against {:?}", hit.score, old.score);
            }
        }
    }
}

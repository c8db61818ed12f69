//! Anchoring: setting one paragraph (or one word) of a synced text at a moment of the recording,
//! locking it, and moving what follows in proportion, up to the next locked anchor. Pure, so
//! every rule is tested (and proptested) without a store.
//!
//! The times of an alignment are read as one line of points in reading order: for each span its
//! start, then each of its words, then its end. A point is an anchor when it is locked (a span's
//! start when the span is `locked`, a word when the word is). Anchoring point `p` at `at`:
//!
//! - `at` may not be before the previous anchor, nor after the next one, nor past the
//!   recording's end when its duration is known;
//! - `p` becomes `at` and is locked;
//! - the points after `p` and before the next anchor are mapped linearly from `[old p, next]`
//!   onto `[at, next]` (with no next anchor: onto `[at, duration]`, or shifted by the move when
//!   the duration is not known), so they keep their proportions and end where the next anchor is;
//! - the points between the previous anchor and `p` stay where they are, except that any later
//!   than `at` are pulled back to `at`, so the line stays in order;
//! - nothing at or past the next anchor moves, nor anything before the previous one;
//! - a span's end is never before its start.

/// One span's times, in milliseconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timing {
    pub start: u64,
    pub end: u64,
    pub locked: bool,
    pub words: Vec<WordAt>,
}

/// When one word is heard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WordAt {
    pub at: u64,
    pub locked: bool,
}

/// What is anchored: the span at an index (its start), or one word of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Span(usize),
    Word { span: usize, word: usize },
}

/// Why an anchor cannot be set (the request is wrong: 400).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error(
        "atMs {at} is before the previous locked anchor, at {previous} ms: \
         unlock it or anchor at {previous} or later"
    )]
    BeforePrevious { at: u64, previous: u64 },
    #[error(
        "atMs {at} is after the next locked anchor, at {next} ms: \
         unlock it or anchor at {next} or earlier"
    )]
    AfterNext { at: u64, next: u64 },
    #[error("atMs {at} is past the end of the recording ({duration} ms long)")]
    PastEnd { at: u64, duration: u64 },
    #[error("word {word} is not among the paragraph's {words} timed words (counted from 0)")]
    NoSuchWord { word: usize, words: usize },
    #[error("span {0} is not among the alignment's spans")]
    NoSuchSpan(usize),
}

/// One point of the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Point {
    Start(usize),
    Word(usize, usize),
    End(usize),
}

/// The points in reading order.
fn points(spans: &[Timing]) -> Vec<Point> {
    let mut out = Vec::new();
    for (i, span) in spans.iter().enumerate() {
        out.push(Point::Start(i));
        out.extend((0..span.words.len()).map(|k| Point::Word(i, k)));
        out.push(Point::End(i));
    }
    out
}

fn value(spans: &[Timing], p: Point) -> u64 {
    match p {
        Point::Start(i) => spans[i].start,
        Point::Word(i, k) => spans[i].words[k].at,
        Point::End(i) => spans[i].end,
    }
}

fn set(spans: &mut [Timing], p: Point, to: u64) {
    match p {
        Point::Start(i) => spans[i].start = to,
        Point::Word(i, k) => spans[i].words[k].at = to,
        Point::End(i) => spans[i].end = to,
    }
}

fn locked(spans: &[Timing], p: Point) -> bool {
    match p {
        Point::Start(i) => spans[i].locked,
        Point::Word(i, k) => spans[i].words[k].locked,
        Point::End(_) => false,
    }
}

/// Where the anchor sits in the line, and the indexes of the anchors around it.
struct Place {
    at: usize,
    previous: Option<usize>,
    next: Option<usize>,
}

fn place(spans: &[Timing], line: &[Point], anchor: Anchor) -> Result<Place, Refused> {
    let wanted = match anchor {
        Anchor::Span(i) if i < spans.len() => Point::Start(i),
        Anchor::Span(i) => return Err(Refused::NoSuchSpan(i)),
        Anchor::Word { span, .. } if span >= spans.len() => return Err(Refused::NoSuchSpan(span)),
        Anchor::Word { span, word } if word >= spans[span].words.len() => {
            return Err(Refused::NoSuchWord {
                word,
                words: spans[span].words.len(),
            });
        }
        Anchor::Word { span, word } => Point::Word(span, word),
    };
    let at = line
        .iter()
        .position(|p| *p == wanted)
        .ok_or(Refused::NoSuchSpan(0))?;
    let previous = line[..at].iter().rposition(|p| locked(spans, *p));
    let next = line[at + 1..]
        .iter()
        .position(|p| locked(spans, *p))
        .map(|i| at + 1 + i);
    Ok(Place { at, previous, next })
}

/// The moments an anchor may be set at: from the previous anchor to the next one (or the
/// recording's end), both included. The tests' oracle for where an anchor may go.
#[cfg(test)]
pub fn bounds(
    spans: &[Timing],
    anchor: Anchor,
    duration: Option<u64>,
) -> Result<(u64, Option<u64>), Refused> {
    let line = points(spans);
    let place = place(spans, &line, anchor)?;
    let low = place.previous.map_or(0, |p| value(spans, line[p]));
    let high = match (place.next.map(|p| value(spans, line[p])), duration) {
        (Some(next), Some(d)) => Some(next.min(d)),
        (next, d) => next.or(d),
    };
    Ok((low, high))
}

/// Sets `anchor` at `at`, locks it and moves what follows up to the next anchor (see the
/// module's rules).
pub fn anchor(
    spans: &mut [Timing],
    anchor: Anchor,
    at: u64,
    duration: Option<u64>,
) -> Result<(), Refused> {
    let line = points(spans);
    let place = place(spans, &line, anchor)?;
    if let Some(p) = place.previous {
        let previous = value(spans, line[p]);
        if at < previous {
            return Err(Refused::BeforePrevious { at, previous });
        }
    }
    let next = place.next.map(|p| value(spans, line[p]));
    if let Some(next) = next
        && at > next
    {
        return Err(Refused::AfterNext { at, next });
    }
    if let Some(duration) = duration
        && at > duration
    {
        return Err(Refused::PastEnd { at, duration });
    }

    let old = value(spans, line[place.at]);
    // The stretch between the previous anchor and this one keeps its times, pulled back to `at`
    // where they would come after it.
    for &p in &line[place.previous.map_or(0, |i| i + 1)..place.at] {
        let v = value(spans, p);
        if v > at {
            set(spans, p, at);
        }
    }
    set(spans, line[place.at], at);
    match line[place.at] {
        Point::Start(i) => spans[i].locked = true,
        Point::Word(i, k) => spans[i].words[k].locked = true,
        Point::End(_) => {}
    }
    let map = Stretch::new(old, at, next.or(duration));
    for &p in &line[place.at + 1..place.next.unwrap_or(line.len())] {
        let v = map.apply(value(spans, p));
        set(spans, p, v);
    }
    for span in spans.iter_mut() {
        span.end = span.end.max(span.start);
    }
    Ok(())
}

/// The linear map of `[old, end]` onto `[at, end]`; with no end, a shift by `at - old`.
struct Stretch {
    old: u64,
    at: u64,
    end: Option<u64>,
}

impl Stretch {
    fn new(old: u64, at: u64, end: Option<u64>) -> Stretch {
        Stretch { old, at, end }
    }

    fn apply(&self, x: u64) -> u64 {
        let x = x.max(self.old);
        match self.end {
            Some(end) if end > self.old => {
                let x = x.min(end);
                let span_old = u128::from(end - self.old);
                let span_new = u128::from(end.saturating_sub(self.at));
                let moved = u128::from(x - self.old) * span_new;
                // Rounded to the nearest millisecond; never past `end`.
                let offset = (moved + span_old / 2) / span_old;
                (self.at + offset as u64).min(end.max(self.at))
            }
            // The anchor was at or past the end already (times beyond the recording's end):
            // everything after it goes to the anchor's moment.
            Some(_) => self.at,
            None => self.at + (x - self.old),
        }
    }
}

#[cfg(test)]
mod tests;

use proptest::prelude::*;

use super::*;

fn span(start: u64, end: u64) -> Timing {
    Timing {
        start,
        end,
        locked: false,
        words: Vec::new(),
    }
}

fn starts(spans: &[Timing]) -> Vec<u64> {
    spans.iter().map(|s| s.start).collect()
}

#[test]
fn an_anchor_stretches_what_follows_up_to_the_next_lock() {
    // Four spans of 1 s each; the fourth is locked at 3 s.
    let mut spans: Vec<Timing> = (0..4).map(|i| span(i * 1000, i * 1000 + 1000)).collect();
    spans[3].locked = true;
    anchor(&mut spans, Anchor::Span(1), 2000, Some(10_000)).unwrap();
    // [1000, 3000] → [2000, 3000]: halved.
    assert_eq!(starts(&spans), [0, 2000, 2500, 3000]);
    assert_eq!(spans[1].end, 2500);
    assert_eq!(spans[2].end, 3000);
    assert!(spans[1].locked);
    // The locked span and what follows it stay.
    assert_eq!((spans[3].start, spans[3].end), (3000, 4000));
}

#[test]
fn with_no_lock_after_it_the_rest_stretches_to_the_recordings_end() {
    let mut spans: Vec<Timing> = (0..3).map(|i| span(i * 1000, i * 1000 + 1000)).collect();
    // [0, 4000] → [2000, 4000].
    anchor(&mut spans, Anchor::Span(0), 2000, Some(4000)).unwrap();
    assert_eq!(starts(&spans), [2000, 2500, 3000]);
    assert_eq!(spans[2].end, 3500);
}

#[test]
fn with_no_lock_and_no_duration_the_rest_shifts() {
    let mut spans: Vec<Timing> = (0..3).map(|i| span(i * 1000, i * 1000 + 1000)).collect();
    anchor(&mut spans, Anchor::Span(1), 1500, None).unwrap();
    assert_eq!(starts(&spans), [0, 1500, 2500]);
    assert_eq!(spans[2].end, 3500);
}

#[test]
fn what_precedes_stays_unless_it_would_come_after_the_anchor() {
    let mut spans: Vec<Timing> = (0..3).map(|i| span(i * 1000, i * 1000 + 1000)).collect();
    anchor(&mut spans, Anchor::Span(2), 1500, None).unwrap();
    assert_eq!(starts(&spans), [0, 1000, 1500]);
    // The span before ended at 2000, now at the anchor.
    assert_eq!(spans[1].end, 1500);
}

#[test]
fn a_word_anchor_moves_the_words_after_it_and_the_spans_after() {
    let mut spans = vec![span(0, 1000), span(1000, 2000)];
    spans[0].words = (0..4)
        .map(|k| WordAt {
            at: k * 250,
            locked: false,
        })
        .collect();
    anchor(
        &mut spans,
        Anchor::Word { span: 0, word: 2 },
        1000,
        Some(3000),
    )
    .unwrap();
    let words: Vec<u64> = spans[0].words.iter().map(|w| w.at).collect();
    // Word 1 stays; word 2 is set; [500, 3000] → [1000, 3000] for the rest.
    assert_eq!(words, [0, 250, 1000, 1200]);
    assert!(spans[0].words[2].locked);
    assert!(
        !spans[0].locked,
        "the span itself is not locked by a word anchor"
    );
    assert_eq!(spans[0].end, 1400);
    assert_eq!(starts(&spans), [0, 1400]);
}

#[test]
fn refusals_name_the_anchor_in_the_way() {
    let mut spans: Vec<Timing> = (0..4).map(|i| span(i * 1000, i * 1000 + 1000)).collect();
    spans[0].locked = true;
    spans[3].locked = true;
    let before = spans.clone();
    assert_eq!(
        anchor(&mut spans, Anchor::Span(1), 3001, None),
        Err(Refused::AfterNext {
            at: 3001,
            next: 3000
        })
    );
    spans[0].start = 500;
    let before_lock = spans.clone();
    assert_eq!(
        anchor(&mut spans, Anchor::Span(1), 499, None),
        Err(Refused::BeforePrevious {
            at: 499,
            previous: 500
        })
    );
    assert_eq!(spans, before_lock, "nothing changes when refused");
    spans = before;
    assert_eq!(
        anchor(&mut spans, Anchor::Span(3), 9_001, Some(9_000)),
        Err(Refused::PastEnd {
            at: 9_001,
            duration: 9_000
        })
    );
    assert_eq!(
        anchor(&mut spans, Anchor::Word { span: 1, word: 0 }, 1000, None),
        Err(Refused::NoSuchWord { word: 0, words: 0 })
    );
    assert_eq!(
        anchor(&mut spans, Anchor::Span(4), 1000, None),
        Err(Refused::NoSuchSpan(4))
    );
    // At the edges themselves it is allowed.
    let mut edge = spans.clone();
    anchor(&mut edge, Anchor::Span(1), 3000, Some(9_000)).unwrap();
    assert_eq!(starts(&edge), [0, 3000, 3000, 3000]);
    anchor(&mut spans, Anchor::Span(1), 0, Some(9_000)).unwrap();
    assert_eq!(spans[1].start, 0);
}

#[test]
fn re_anchoring_a_locked_span_moves_it() {
    let mut spans: Vec<Timing> = (0..3).map(|i| span(i * 1000, i * 1000 + 1000)).collect();
    spans[1].locked = true;
    anchor(&mut spans, Anchor::Span(1), 1200, Some(3000)).unwrap();
    assert_eq!(starts(&spans), [0, 1200, 2100]);
    assert_eq!(
        bounds(&spans, Anchor::Span(2), Some(3000)).unwrap(),
        (1200, Some(3000))
    );
}

/// Spans with sorted times: each point of the line at or after the one before.
fn sorted_spans() -> impl Strategy<Value = Vec<Timing>> {
    prop::collection::vec(
        (
            0u64..3000,
            0u64..3000,
            any::<bool>(),
            prop::collection::vec((0u64..500, prop::bool::weighted(0.2)), 0..4),
        ),
        1..12,
    )
    .prop_map(|raw| {
        let mut t = 0;
        raw.into_iter()
            .map(|(gap, len, locked, words)| {
                t += gap;
                let start = t;
                let words = words
                    .into_iter()
                    .map(|(step, locked)| {
                        t += step;
                        WordAt { at: t, locked }
                    })
                    .collect();
                t += len;
                Timing {
                    start,
                    end: t,
                    locked,
                    words,
                }
            })
            .collect()
    })
}

fn line_values(spans: &[Timing]) -> Vec<u64> {
    points(spans).into_iter().map(|p| value(spans, p)).collect()
}

fn pick_anchor(spans: &[Timing], pick: usize, word: bool) -> Anchor {
    let i = pick % spans.len();
    if word && !spans[i].words.is_empty() {
        Anchor::Word {
            span: i,
            word: pick % spans[i].words.len(),
        }
    } else {
        Anchor::Span(i)
    }
}

proptest! {
    #[test]
    fn anchoring_keeps_order_and_locks(
        spans in sorted_spans(),
        pick in any::<usize>(),
        word in any::<bool>(),
        fraction in 0.0f64..=1.0,
        duration_extra in prop::option::of(0u64..5000),
    ) {
        let end = spans.last().map_or(0, |s| s.end);
        let duration = duration_extra.map(|x| end + x);
        let a = pick_anchor(&spans, pick, word);
        let (low, high) = bounds(&spans, a, duration).unwrap();
        let high = high.unwrap_or(end + 10_000);
        prop_assume!(low <= high);
        let at = low + ((high - low) as f64 * fraction) as u64;

        let before = spans.clone();
        let mut after = spans.clone();
        anchor(&mut after, a, at, duration).unwrap();

        let line = points(&before);
        let old = line_values(&before);
        let new = line_values(&after);
        // The line stays in order.
        prop_assert!(new.windows(2).all(|w| w[0] <= w[1]), "out of order: {new:?}");
        // Ends are never before starts.
        prop_assert!(after.iter().all(|s| s.end >= s.start));
        let anchored = match a {
            Anchor::Span(i) => Point::Start(i),
            Anchor::Word { span, word } => Point::Word(span, word),
        };
        let at_index = line.iter().position(|p| *p == anchored).unwrap();
        prop_assert_eq!(new[at_index], at);
        prop_assert!(locked(&after, anchored));
        let next = line[at_index + 1..].iter().position(|p| locked(&before, *p)).map(|i| at_index + 1 + i);
        let previous = line[..at_index].iter().rposition(|p| locked(&before, *p));
        for (i, p) in line.iter().enumerate() {
            // Every other anchor stays where it was.
            if i != at_index && locked(&before, *p) {
                prop_assert_eq!(new[i], old[i], "anchor {:?} moved", p);
                prop_assert!(locked(&after, *p));
            }
            // Nothing at or past the next anchor moves, and what moved stays before it.
            if let Some(n) = next {
                if i >= n {
                    prop_assert_eq!(new[i], old[i]);
                } else {
                    prop_assert!(new[i] <= old[n]);
                }
            }
            // Nothing before the previous anchor moves.
            if let Some(pr) = previous && i <= pr {
                prop_assert_eq!(new[i], old[i]);
            }
        }
        if let Some(d) = duration {
            prop_assert!(new.iter().all(|&v| v <= d.max(end)));
        }
    }

    #[test]
    fn outside_the_bounds_is_refused_and_changes_nothing(
        spans in sorted_spans(),
        pick in any::<usize>(),
        word in any::<bool>(),
        past in 1u64..1000,
    ) {
        let a = pick_anchor(&spans, pick, word);
        let (low, high) = bounds(&spans, a, None).unwrap();
        let mut after = spans.clone();
        if let Some(high) = high {
            prop_assert!(anchor(&mut after, a, high + past, None).is_err());
        }
        if low > 0 {
            prop_assert!(anchor(&mut after, a, low.saturating_sub(past), None).is_err());
        }
        prop_assert_eq!(after, spans);
    }
}

//! Showing how far a long fold has come: a bar on a terminal, log lines otherwise. Each fold of
//! the log (the key-value read models, then the search index) reports under its own name.

use std::cell::Cell;
use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// How a rebuild or a verify reports its progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A bar when stderr is a terminal, otherwise a log line every 10,000 commits.
    Auto,
    /// A log line every so many commits.
    LogEvery(u64),
    /// Nothing (tests, benchmarks).
    Silent,
}

pub(crate) enum Reporter {
    Bar(ProgressBar),
    Lines {
        fold: &'static str,
        every: u64,
        total: u64,
        /// The next seq at or past which a line is written: a fold may report in chunks (the
        /// search index commits every few hundred commits), so it rarely lands on a multiple.
        next: Cell<u64>,
    },
    Silent,
}

impl Reporter {
    /// A reporter for one fold, named `fold` (`read models`, `search`), of `total` commits.
    pub(crate) fn new(progress: Progress, fold: &'static str, total: u64) -> Reporter {
        let lines = |every: u64| Reporter::Lines {
            fold,
            every,
            total,
            next: Cell::new(every),
        };
        match progress {
            Progress::Auto if std::io::stderr().is_terminal() => {
                let bar = ProgressBar::new(total);
                if let Ok(style) = ProgressStyle::with_template(
                    "{msg:12} [{bar:40}] {pos}/{len} commits ({per_sec}, {eta} left)",
                ) {
                    bar.set_style(style.progress_chars("=> "));
                }
                bar.set_message(fold);
                Reporter::Bar(bar)
            }
            Progress::Auto => lines(10_000),
            Progress::LogEvery(every) => lines(every.max(1)),
            Progress::Silent => Reporter::Silent,
        }
    }

    pub(crate) fn commit(&self, seq: u64) {
        match self {
            Reporter::Bar(bar) => bar.set_position(seq),
            Reporter::Lines {
                fold,
                every,
                total,
                next,
            } if seq >= next.get() => {
                tracing::info!(fold, seq, head = total, "fold progress");
                next.set((seq / every + 1) * every);
            }
            _ => {}
        }
    }

    pub(crate) fn finish(&self) {
        if let Reporter::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

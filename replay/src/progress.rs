//! Showing how far long work has come: a bar on a terminal, log lines otherwise. Each fold of
//! the log (the key-value read models, then the search index) reports under its own name, in
//! commits; the binary's editions report through the same [`Reporter`], in items.

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

/// One piece of long work's progress, shown as [`Progress`] asks.
pub enum Reporter {
    Bar(ProgressBar),
    Lines {
        fold: &'static str,
        unit: &'static str,
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
    pub fn new(progress: Progress, fold: &'static str, total: u64) -> Reporter {
        Reporter::counting(progress, fold, "commits", total)
    }

    /// A reporter of work named `fold` over `total` things called `unit` (`items`).
    pub fn counting(
        progress: Progress,
        fold: &'static str,
        unit: &'static str,
        total: u64,
    ) -> Reporter {
        let lines = |every: u64| Reporter::Lines {
            fold,
            unit,
            every,
            total,
            next: Cell::new(every),
        };
        match progress {
            Progress::Auto if std::io::stderr().is_terminal() => {
                let bar = ProgressBar::new(total);
                if let Ok(style) = ProgressStyle::with_template(&format!(
                    "{{msg:12}} [{{bar:40}}] {{pos}}/{{len}} {unit} ({{per_sec}}, {{eta}} left)"
                )) {
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

    /// Reports that `done` of the total are done (for a fold, the seq it reached).
    pub fn commit(&self, done: u64) {
        match self {
            Reporter::Bar(bar) => bar.set_position(done),
            Reporter::Lines {
                fold,
                unit,
                every,
                total,
                next,
            } if done >= next.get() => {
                tracing::info!(fold, done, total, unit, "progress");
                next.set((done / every + 1) * every);
            }
            _ => {}
        }
    }

    pub fn finish(&self) {
        if let Reporter::Bar(bar) = self {
            bar.finish_and_clear();
        }
    }
}

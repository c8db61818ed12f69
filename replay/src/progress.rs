//! Showing how far a long fold has come: a bar on a terminal, log lines otherwise.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

/// How a rebuild reports its progress.
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
    Lines { every: u64, total: u64 },
    Silent,
}

impl Reporter {
    pub(crate) fn new(progress: Progress, total: u64) -> Reporter {
        match progress {
            Progress::Auto if std::io::stderr().is_terminal() => {
                let bar = ProgressBar::new(total);
                if let Ok(style) = ProgressStyle::with_template(
                    "{msg} [{bar:40}] {pos}/{len} commits ({per_sec}, {eta} left)",
                ) {
                    bar.set_style(style.progress_chars("=> "));
                }
                bar.set_message("folding");
                Reporter::Bar(bar)
            }
            Progress::Auto => Reporter::Lines {
                every: 10_000,
                total,
            },
            Progress::LogEvery(every) => Reporter::Lines {
                every: every.max(1),
                total,
            },
            Progress::Silent => Reporter::Silent,
        }
    }

    pub(crate) fn commit(&self, seq: u64) {
        match self {
            Reporter::Bar(bar) => bar.set_position(seq),
            Reporter::Lines { every, total } if seq.is_multiple_of(*every) => {
                tracing::info!(seq, head = total, "rebuild progress");
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

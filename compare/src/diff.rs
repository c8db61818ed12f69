//! The comparison itself, pure: two lists of words in, runs of same, removed and added words out.
//!
//! Each word is diffed by its folded form (`catalog_schemas::fold::fold_word`), interned to a
//! number so the diff compares integers. A word that folds to nothing (a dash, punctuation
//! alone) gets a number of its own, so it never equals anything. The diff is `similar`'s Myers
//! with its bounded heuristic (no deadline, so the same sides always give the same answer).
//! Equal words are shown as the second side spells them, and in each stretch of changes the
//! removed words come before the added ones that replace them.

use std::collections::HashMap;

use catalog_schemas::fold::fold_word;
use similar::{Algorithm, DiffTag, capture_diff_slices};

/// What happened to a run of words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    /// In both sides (shown as the second side writes them).
    Same,
    /// Only in the first side.
    Removed,
    /// Only in the second side.
    Added,
}

impl OpKind {
    pub fn as_str(self) -> &'static str {
        match self {
            OpKind::Same => "same",
            OpKind::Removed => "removed",
            OpKind::Added => "added",
        }
    }
}

/// A run of words with one fate, joined by single spaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    pub kind: OpKind,
    pub text: String,
    /// How many words `text` holds.
    pub words: usize,
}

/// How many words of each fate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub same: usize,
    pub removed: usize,
    pub added: usize,
}

/// Two sides compared: the runs in reading order, and their counts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Comparison {
    pub counts: Counts,
    pub ops: Vec<Op>,
}

/// Gives each distinct folded form a number, and each word that folds to nothing a fresh one.
#[derive(Default)]
struct Keys {
    known: HashMap<String, u32>,
    next: u32,
}

impl Keys {
    fn key(&mut self, word: &str) -> u32 {
        let folded = fold_word(word);
        if folded.is_empty() {
            return self.fresh();
        }
        if let Some(&k) = self.known.get(&folded) {
            return k;
        }
        let k = self.fresh();
        self.known.insert(folded, k);
        k
    }

    fn fresh(&mut self) -> u32 {
        self.next += 1;
        self.next
    }
}

/// Compares `a` (the first printing) with `b` (the second), word by word.
pub fn compare_words<'w, S: AsRef<str>>(a: &'w [S], b: &'w [S]) -> Comparison {
    let mut keys = Keys::default();
    let ka: Vec<u32> = a.iter().map(|w| keys.key(w.as_ref())).collect();
    let kb: Vec<u32> = b.iter().map(|w| keys.key(w.as_ref())).collect();
    let mut out = Builder::default();
    for op in capture_diff_slices(Algorithm::Myers, &ka, &kb) {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => out.same(&b[new]),
            DiffTag::Delete => out.removed.extend(a[old].iter().map(AsRef::as_ref)),
            DiffTag::Insert => out.added.extend(b[new].iter().map(AsRef::as_ref)),
            DiffTag::Replace => {
                out.removed.extend(a[old].iter().map(AsRef::as_ref));
                out.added.extend(b[new].iter().map(AsRef::as_ref));
            }
        }
    }
    out.finish()
}

/// Gathers the ops, holding a stretch of changes until the next equal words (or the end) so its
/// removals are written before its additions.
#[derive(Default)]
struct Builder<'w> {
    done: Comparison,
    removed: Vec<&'w str>,
    added: Vec<&'w str>,
}

impl<'w> Builder<'w> {
    fn same<S: AsRef<str>>(&mut self, words: &[S]) {
        self.flush();
        self.done.counts.same += words.len();
        push(
            &mut self.done.ops,
            OpKind::Same,
            words.iter().map(AsRef::as_ref),
        );
    }

    fn flush(&mut self) {
        self.done.counts.removed += self.removed.len();
        self.done.counts.added += self.added.len();
        push(&mut self.done.ops, OpKind::Removed, self.removed.drain(..));
        push(&mut self.done.ops, OpKind::Added, self.added.drain(..));
    }

    fn finish(mut self) -> Comparison {
        self.flush();
        self.done
    }
}

/// Appends `words` as a run of `kind`, joining the last op when it has the same kind.
fn push<'w>(ops: &mut Vec<Op>, kind: OpKind, words: impl Iterator<Item = &'w str>) {
    let mut words = words.peekable();
    if words.peek().is_none() {
        return;
    }
    let op = match ops.last_mut() {
        Some(last) if last.kind == kind => last,
        _ => {
            ops.push(Op {
                kind,
                text: String::new(),
                words: 0,
            });
            ops.last_mut().expect("an op was just pushed")
        }
    };
    for word in words {
        if op.words > 0 {
            op.text.push(' ');
        }
        op.text.push_str(word);
        op.words += 1;
    }
}

#[cfg(test)]
mod tests;

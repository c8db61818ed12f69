//! The key-value projections. Each is a unit struct that owns its column families and folds one
//! commit at a time through a `FoldCtx`; its read side is an `impl ReadModels` block beside it.

use rocksdb::DB;

use crate::error::Result;
use crate::fold::FoldCtx;

pub(crate) mod children;
pub(crate) mod counts;
pub(crate) mod coverage;
pub(crate) mod dangling;
pub(crate) mod events;
pub(crate) mod files;
pub(crate) mod items;
pub(crate) mod links;
pub(crate) mod lists;
pub(crate) mod missing;
pub(crate) mod names;
pub(crate) mod outline;
pub(crate) mod paths;
pub(crate) mod scan_levels;
pub(crate) mod scan_text;
pub(crate) mod sitemap;
pub(crate) mod text_sources;
pub(crate) mod types;
pub(crate) mod withheld;

/// A read model that folds commits. Implementations must be deterministic functions of the commit
/// and the priors, so live folding and `rebuild` give the same bytes.
pub(crate) trait Projection: Send + Sync {
    /// The name used for its checkpoint and by `rebuild --projection`.
    fn name(&self) -> &'static str;
    /// The layout of its keys and values. Raising it makes the next start empty the projection and
    /// fold it again from the log (read models are never migrated, only rebuilt).
    fn version(&self) -> u32 {
        1
    }
    /// The column families it alone writes.
    fn column_families(&self) -> &'static [&'static str];
    /// Key ranges of its column families (family, key prefix) a fold from the log's start holds
    /// whole in memory, because it reads their keys back often ([`crate::resident`]). Only for
    /// ranges sized by the catalog's events, publications, files or dates, not by all its items.
    fn resident(&self) -> &'static [(&'static str, &'static [u8])] {
        &[]
    }
    /// Key ranges (family, key prefix) holding only counters moved by [`FoldCtx::count`] that a
    /// full rebuild sums unread ([`crate::settle`]): ranges sized by all the catalog's items,
    /// whose counters a fold would otherwise read from the store.
    fn summed(&self) -> &'static [(&'static str, &'static [u8])] {
        &[]
    }
    /// Adds this commit's changes to the batch.
    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()>;
    /// At the end of a full rebuild, once every commit is applied and written: turns the
    /// counters summed unread ([`FoldCtx::sums`]) into what folding commit by commit writes
    /// ([`crate::settle`]). By default its [`Projection::summed`] ranges' counters are made
    /// plain, those at zero removed; a projection that adds sums itself ([`FoldCtx::add`])
    /// settles them itself.
    fn settle(&self, db: &DB) -> Result<()> {
        for &(cf_name, prefix) in self.summed() {
            crate::settle::counters(db, cf_name, prefix)?;
        }
        Ok(())
    }
}

static ALL: &[&dyn Projection] = &[
    &types::Types,
    &items::Items,
    &paths::Paths,
    &lists::Lists,
    &links::Backlinks,
    &children::Children,
    &links::Refcounts,
    &events::Events,
    &counts::Counts,
    &sitemap::Sitemap,
    &outline::Outline,
    &names::Names,
    &scan_text::ScanText,
    &scan_levels::ScanLevels,
    &withheld::Withheld,
    &text_sources::TextSources,
    &files::Files,
    &missing::Missing,
    &coverage::Coverage,
    &dangling::Dangling,
];

pub(crate) fn all() -> &'static [&'static dyn Projection] {
    ALL
}

pub(crate) fn by_name(name: &str) -> Option<&'static dyn Projection> {
    ALL.iter().copied().find(|p| p.name() == name)
}

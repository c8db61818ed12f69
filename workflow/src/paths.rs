//! Which readable path each item of a suggestion will have, and which paths clash.
//!
//! The schemas crate derives a path from an item's data; this module settles collisions
//! against main and within the suggestion. Events share dates, so a second event on a day gets
//! `/2`, a third `/3`, and so on; any other clash is reported for the `paths` check.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use catalog_schemas::types::{PathRule, TypeRegistry};
use catalog_schemas::{Id, ItemType};

use crate::after_merge::AfterMerge;
use crate::checks::Problem;
use crate::error::Result;
use crate::service::Workflow;
use crate::suggestions::{Items, SuggestedItem};

pub(crate) struct PathPlan {
    /// Every item of the suggestion; `None` for deleted items and items without a path.
    pub paths: BTreeMap<Id, Option<String>>,
    /// One problem per path claimed twice, on the item that claimed it second.
    pub clashes: Vec<Problem>,
    /// The same clashes as (item, path, the item holding it), for callers that name the cause.
    pub clashing: Vec<(Id, String, Id)>,
}

struct Claims<'a> {
    wf: &'a Workflow,
    items: &'a Items,
    claimed: HashMap<String, Id>,
    settled: BTreeSet<Id>,
}

impl Claims<'_> {
    /// Who else holds `path`, if anyone: an earlier item of this suggestion, or an item of
    /// main that keeps it. Old paths that only redirect may be taken over.
    fn holder(&self, overlay: &AfterMerge<'_>, path: &str, id: Id) -> Result<Option<Id>> {
        if let Some(&other) = self.claimed.get(path) {
            return Ok((other != id).then_some(other));
        }
        let Some(resolved) = self.wf.inner.read_models.resolve(path)? else {
            return Ok(None);
        };
        if resolved.redirected || resolved.id == id {
            return Ok(None);
        }
        // An item of this suggestion already placed elsewhere (or deleted) lets its path go,
        // and so does one not placed yet whose new data makes it another path (two items
        // swapping paths). Events are left out: their numbered paths are settled in turn.
        if let Some(other) = self.items.get(&resolved.id) {
            if self.settled.contains(&other.id) {
                return Ok(None);
            }
            let leaving = match &other.data {
                None => true,
                Some(data) => {
                    other.ty != ItemType::Event
                        && overlay
                            .types()?
                            .path_for(other.ty, data, &|id| overlay.lookup(id))
                            .as_deref()
                            != Some(path)
                }
            };
            if leaving {
                return Ok(None);
            }
        }
        Ok(Some(resolved.id))
    }

    /// Places one item; answers its path and, when taken by another, who holds it.
    fn place(
        &mut self,
        overlay: &AfterMerge<'_>,
        item: &SuggestedItem,
    ) -> Result<(Option<String>, Option<Id>)> {
        self.settled.insert(item.id);
        let Some(data) = &item.data else {
            return Ok((None, None));
        };
        let types = overlay.types()?;
        let Some(base) = types.path_for(item.ty, data, &|id| overlay.lookup(id)) else {
            return Ok((None, None));
        };
        let mut candidate = base.clone();
        let mut holder = self.holder(overlay, &candidate, item.id)?;
        if item.ty == ItemType::Event {
            let mut n = 1;
            while holder.is_some() {
                n += 1;
                candidate = format!("{base}/{n}");
                holder = self.holder(overlay, &candidate, item.id)?;
            }
        }
        self.claimed.entry(candidate.clone()).or_insert(item.id);
        Ok((Some(candidate), holder))
    }
}

/// The field a path is made from, which is what to change when two items claim one path.
fn path_field(types: &TypeRegistry, ty: ItemType) -> String {
    match (ty, types.get(ty).map(|d| &d.path)) {
        (_, Some(PathRule::Field { field, .. })) => format!("/{field}"),
        (ItemType::Unit, _) => "/position".into(),
        (ItemType::Event, _) => "/date".into(),
        _ => "/slug".into(),
    }
}

/// Paths for every item of the suggestion. Items that move away or are deleted are settled
/// first so their old paths are free for the rest; existing events keep their numbers before
/// new events are numbered after them.
pub(crate) fn plan(wf: &Workflow, overlay: &AfterMerge<'_>, items: &Items) -> Result<PathPlan> {
    let mut order: Vec<&SuggestedItem> = items.values().collect();
    order.sort_by_key(|item| {
        (
            item.data.is_some(),
            item.ty == ItemType::Event,
            item.base.is_none(),
            item.id,
        )
    });
    let mut claims = Claims {
        wf,
        items,
        claimed: HashMap::new(),
        settled: BTreeSet::new(),
    };
    let mut plan = PathPlan {
        paths: BTreeMap::new(),
        clashes: Vec::new(),
        clashing: Vec::new(),
    };
    for item in order {
        let (path, holder) = claims.place(overlay, item)?;
        if let (Some(path), Some(holder)) = (&path, holder) {
            plan.clashes.push(Problem::new(
                item.id,
                path_field(&*overlay.types()?, item.ty),
                format!("wants the path {path}, which {holder} holds"),
            ));
            plan.clashing.push((item.id, path.clone(), holder));
        }
        plan.paths.insert(item.id, path);
    }
    Ok(plan)
}

/// The path of one item, judged against main only (cheap enough to answer every put).
pub(crate) fn path_of(
    wf: &Workflow,
    overlay: &AfterMerge<'_>,
    item: &SuggestedItem,
) -> Result<Option<String>> {
    let mut claims = Claims {
        wf,
        items: overlay.items(),
        claimed: HashMap::new(),
        settled: BTreeSet::new(),
    };
    Ok(claims.place(overlay, item)?.0)
}

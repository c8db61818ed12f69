//! `counts`: how many live items there are of each type.

use std::collections::BTreeMap;

use catalog_schemas::ItemType;

use crate::error::Result;
use crate::fold::FoldCtx;
use crate::keys;
use crate::read::ReadModels;

use super::Projection;

pub(crate) const CF: &str = "rm_counts";

pub(crate) struct Counts;

impl Projection for Counts {
    fn name(&self) -> &'static str {
        "counts"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        for view in ctx.changes() {
            if view.old_data().is_some() {
                ctx.count(CF, view.old_ty().key().to_vec(), -1);
            }
            if view.new_data().is_some() {
                ctx.count(CF, view.ty().key().to_vec(), 1);
            }
        }
        Ok(())
    }
}

impl ReadModels {
    /// Live items per type; types with none are left out.
    pub fn counts(&self) -> Result<BTreeMap<ItemType, u64>> {
        let mut out = BTreeMap::new();
        self.scan(CF, &[], None, |key, value| {
            out.insert(keys::type_from(key)?, keys::u64_from(value)?);
            Ok(true)
        })?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::testutil::*;
    use catalog_schemas::ItemType;
    use serde_json::json;

    #[test]
    fn counts_follow_creation_deletion_and_merge() {
        let t = Fixture::new();
        let (a, b, c) = (t.id(), t.id(), t.id());
        t.commit(vec![
            t.put(a, "work", None, json!({})),
            t.put(b, "work", None, json!({})),
            t.put(c, "topic", None, json!({})),
        ]);
        t.commit(vec![t.put(a, "work", None, json!({"x": 1}))]);
        let counts = t.rm.counts().unwrap();
        assert_eq!(counts.get(&ItemType::Work), Some(&2));
        assert_eq!(counts.get(&ItemType::Topic), Some(&1));
        t.commit(vec![t.merge(b, "work", a), t.delete(c, "topic")]);
        let counts = t.rm.counts().unwrap();
        assert_eq!(counts.get(&ItemType::Work), Some(&1));
        assert_eq!(counts.get(&ItemType::Topic), None);
    }
}

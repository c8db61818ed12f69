//! `withheld`: the items whose own rights hold their words back (`catalog_schemas::rights::own`),
//! with the reason, as of their latest version. A `segment` is withheld when its text is listed
//! here: the read side asks at serve time, so a steward's decision about a text reaches its
//! paragraphs at once, with nothing to fold again.

use catalog_schemas::{Id, rights};

use crate::error::{Error, Result};
use crate::fold::{self, FoldCtx};
use crate::keys;
use crate::read::ReadModels;

use super::Projection;

pub(crate) const CF: &str = "rm_withheld";

pub(crate) struct Withheld;

impl Projection for Withheld {
    fn name(&self) -> &'static str {
        "withheld"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        for view in ctx.changes() {
            let old = view.old_data().and_then(|d| rights::own(view.old_ty(), d));
            let new = view.new_data().and_then(|d| rights::own(view.ty(), d));
            if old == new {
                continue;
            }
            let key = keys::id_bytes(view.id());
            match new {
                Some(why) => ctx.put(CF, &key, why.reason().as_bytes())?,
                None => ctx.delete(CF, &key)?,
            }
        }
        Ok(())
    }
}

impl ReadModels {
    /// Why `id`'s own rights hold its words back, if they do.
    pub fn withheld_reason(&self, id: Id) -> Result<Option<String>> {
        let db = self.db();
        match db.get_pinned_cf(fold::cf(db, CF)?, keys::id_bytes(id))? {
            Some(bytes) => Ok(Some(reason(&bytes)?)),
            None => Ok(None),
        }
    }

    /// The reasons for each of `ids` that is withheld by its own rights, in one multi-get.
    pub(crate) fn withheld_reasons(&self, ids: &[Id]) -> Result<Vec<Option<String>>> {
        let db = self.db();
        let handle = fold::cf(db, CF)?;
        let keys: Vec<_> = ids.iter().map(|&id| (handle, keys::id_bytes(id))).collect();
        db.multi_get_cf(keys)
            .into_iter()
            .map(|got| got?.map(|bytes| reason(&bytes)).transpose())
            .collect()
    }

    /// Whether any item is withheld: when none is, what the log holds can be served as it is.
    pub fn anything_withheld(&self) -> Result<bool> {
        let mut any = false;
        self.scan(CF, &[], None, |_, _| {
            any = true;
            Ok(false)
        })?;
        Ok(any)
    }

    /// Up to `limit` withheld items after `after` (in id-byte order), with their reasons.
    pub fn withheld_items(&self, after: Option<Id>, limit: usize) -> Result<Vec<(Id, String)>> {
        let mut out = Vec::new();
        let after = after.map(keys::id_bytes);
        self.scan(CF, &[], after.as_ref().map(|a| &a[..]), |key, value| {
            if out.len() == limit {
                return Ok(false);
            }
            out.push((keys::id_from(key)?, reason(value)?));
            Ok(true)
        })?;
        Ok(out)
    }
}

fn reason(bytes: &[u8]) -> Result<String> {
    String::from_utf8(bytes.to_vec())
        .map_err(|_| Error::Corrupt("a withheld reason is not UTF-8".into()))
}

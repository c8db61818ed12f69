//! `paths`: every path an item ever held → that item. A current path is marked current; a path an
//! item left (renamed, deleted, merged away) stays as a redirect until another item takes it.
//!
//! A merged item's old paths still name the merged item; `resolve` follows the merge (and any merge
//! after it) at read time, so a later merge never has to rewrite older redirects.

use std::collections::HashMap;

use catalog_schemas::Id;

use crate::error::{Error, Result};
use crate::fold::FoldCtx;
use crate::keys;
use crate::read::ReadModels;
use crate::record::Lookup;

use super::Projection;

pub(crate) const CF: &str = "rm_paths";

const CURRENT: u8 = 1;
const REDIRECT: u8 = 0;

pub(crate) struct Paths;

fn entry(flag: u8, id: Id) -> Vec<u8> {
    keys::key(&[&[flag], &keys::id_bytes(id)])
}

fn decode(bytes: &[u8]) -> Result<(bool, Id)> {
    match bytes.split_first() {
        Some((&flag, id)) if flag <= CURRENT => Ok((flag == CURRENT, keys::id_from(id)?)),
        _ => Err(Error::Corrupt(format!(
            "bad path entry {}",
            hex::encode(bytes)
        ))),
    }
}

impl Projection for Paths {
    fn name(&self) -> &'static str {
        "paths"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        // Paths left in this commit become redirects before paths taken in it are written, so an item
        // may take over a path another item leaves in the same commit.
        let mut written: HashMap<&str, (bool, Id)> = HashMap::new();
        for view in ctx.changes() {
            let Some(old) = view.old_path() else { continue };
            if view.new_path() == Some(old) {
                continue;
            }
            let holder = match ctx.get(CF, old.as_bytes())? {
                Some(bytes) => Some(decode(&bytes)?),
                None => None,
            };
            // Only the path's current holder turns it into a redirect; an item that lost the path to
            // another one earlier must not take it back.
            if holder.is_none_or(|(_, id)| id == view.id()) {
                written.insert(old, (false, view.id()));
            }
        }
        for view in ctx.changes() {
            if let Some(new) = view.new_path() {
                written.insert(new, (true, view.id()));
            }
        }
        for (path, (current, id)) in written {
            ctx.put(
                CF,
                path.as_bytes(),
                &entry(if current { CURRENT } else { REDIRECT }, id),
            )?;
        }
        Ok(())
    }
}

/// Where a path leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub id: Id,
    /// True when the path is not the item's current one (renamed, deleted or merged away).
    pub redirected: bool,
    /// The item's current path, if it has one.
    pub path: Option<String>,
}

/// Merges of merges are followed at most this far, so a cycle in bad data cannot hang a reader.
const MAX_MERGE_HOPS: usize = 16;

impl ReadModels {
    /// Finds the item a path names, following renames and merges.
    pub fn resolve(&self, path: &str) -> Result<Option<Resolved>> {
        let db = self.db();
        let Some(bytes) = db.get_cf(crate::fold::cf(db, CF)?, path.as_bytes())? else {
            return Ok(None);
        };
        let (current, mut id) = decode(&bytes)?;
        let mut redirected = !current;
        for _ in 0..MAX_MERGE_HOPS {
            match self.item(id)? {
                Lookup::Merged { into } => {
                    id = into;
                    redirected = true;
                }
                Lookup::Found(item) => {
                    return Ok(Some(Resolved {
                        id,
                        redirected,
                        path: item.path,
                    }));
                }
                Lookup::Deleted | Lookup::Missing => {
                    return Ok(Some(Resolved {
                        id,
                        redirected,
                        path: None,
                    }));
                }
            }
        }
        Err(Error::Corrupt(format!(
            "merges from path {path} go on for more than {MAX_MERGE_HOPS} items"
        )))
    }
}

#[cfg(test)]
mod tests {
    use crate::Resolved;
    use crate::testutil::*;
    use serde_json::json;

    #[test]
    fn renames_deletes_and_merges_keep_old_paths_working() {
        let t = Fixture::new();
        let (a, b) = (t.id(), t.id());
        t.commit(vec![
            t.put(a, "work", Some("/a"), json!({})),
            t.put(b, "work", Some("/b"), json!({})),
        ]);
        assert_eq!(
            t.rm.resolve("/a").unwrap(),
            Some(Resolved {
                id: a,
                redirected: false,
                path: Some("/a".into())
            })
        );
        assert_eq!(t.rm.resolve("/nowhere").unwrap(), None);

        t.commit(vec![t.put(a, "work", Some("/a2"), json!({}))]);
        assert_eq!(
            t.rm.resolve("/a").unwrap(),
            Some(Resolved {
                id: a,
                redirected: true,
                path: Some("/a2".into())
            })
        );
        assert!(!t.rm.resolve("/a2").unwrap().unwrap().redirected);

        // b is merged into a: both of b's paths now lead to a.
        t.commit(vec![t.put(b, "work", Some("/b2"), json!({}))]);
        t.commit(vec![t.merge(b, "work", a)]);
        for old in ["/b", "/b2"] {
            assert_eq!(
                t.rm.resolve(old).unwrap(),
                Some(Resolved {
                    id: a,
                    redirected: true,
                    path: Some("/a2".into())
                })
            );
        }

        // Deleting a keeps its paths resolving, with no current path.
        t.commit(vec![t.delete(a, "work")]);
        assert_eq!(
            t.rm.resolve("/a2").unwrap(),
            Some(Resolved {
                id: a,
                redirected: true,
                path: None
            })
        );
        assert_eq!(
            t.rm.resolve("/b").unwrap(),
            Some(Resolved {
                id: a,
                redirected: true,
                path: None
            })
        );
    }

    #[test]
    fn a_freed_path_can_be_taken_and_is_not_taken_back() {
        let t = Fixture::new();
        let (a, c) = (t.id(), t.id());
        t.commit(vec![t.put(a, "work", Some("/x"), json!({}))]);
        // In one commit a leaves /x and c takes it.
        t.commit(vec![
            t.put(a, "work", Some("/y"), json!({})),
            t.put(c, "work", Some("/x"), json!({})),
        ]);
        assert_eq!(
            t.rm.resolve("/x").unwrap(),
            Some(Resolved {
                id: c,
                redirected: false,
                path: Some("/x".into())
            })
        );
        // a moving on turns /y into a redirect and leaves c holding /x.
        t.commit(vec![t.put(a, "work", Some("/z"), json!({}))]);
        assert_eq!(t.rm.resolve("/x").unwrap().unwrap().id, c);
        assert_eq!(
            t.rm.resolve("/y").unwrap(),
            Some(Resolved {
                id: a,
                redirected: true,
                path: Some("/z".into())
            })
        );
    }
}

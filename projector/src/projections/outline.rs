//! `outline`: the units of each work grouped by the first step of their `position` (the volume),
//! with a unit count per volume, and the units of one volume in position order.

use catalog_schemas::{Id, ItemType};
use serde_json::Value;

use crate::error::Result;
use crate::fold::FoldCtx;
use crate::keys::{self, Step};
use crate::read::ReadModels;
use crate::record::StoredItem;

use super::Projection;

pub(crate) const CF: &str = "rm_outline";

const UNIT: u8 = b'u';
const COUNT: u8 = b'c';

pub(crate) struct Outline;

/// The work a unit belongs to and its position steps, when it has both.
fn placement(data: Option<&Value>) -> Option<(Id, Vec<Step>)> {
    let data = data?;
    let work = Id::parse(data.get("work")?.as_str()?).ok()?;
    let steps: Vec<Step> = data
        .get("position")?
        .as_array()?
        .iter()
        .map(Step::from_value)
        .collect();
    (!steps.is_empty()).then_some((work, steps))
}

fn part_prefix(work: Id, part: &Step) -> Vec<u8> {
    let mut out = keys::key(&[&[UNIT], &keys::id_bytes(work)]);
    part.encode_into(&mut out);
    out
}

fn count_key(work: Id, part: &Step) -> Vec<u8> {
    let mut out = keys::key(&[&[COUNT], &keys::id_bytes(work)]);
    part.encode_into(&mut out);
    out
}

/// The unit's key: its whole position (ended by a zero byte, so shorter positions come first), then
/// its id.
fn unit_key(work: Id, steps: &[Step], id: Id) -> Vec<u8> {
    let mut out = keys::key(&[&[UNIT], &keys::id_bytes(work)]);
    for step in steps {
        step.encode_into(&mut out);
    }
    out.push(0);
    out.extend_from_slice(&keys::id_bytes(id));
    out
}

impl Projection for Outline {
    fn name(&self) -> &'static str {
        "outline"
    }

    fn column_families(&self) -> &'static [&'static str] {
        &[CF]
    }

    fn apply(&self, ctx: &mut FoldCtx<'_>) -> Result<()> {
        for view in ctx.changes() {
            let old = (view.old_ty() == ItemType::Unit)
                .then(|| placement(view.old_data()))
                .flatten();
            let new = (view.ty() == ItemType::Unit)
                .then(|| placement(view.new_data()))
                .flatten();
            if old == new {
                continue;
            }
            if let Some((work, steps)) = &old {
                ctx.delete(CF, &unit_key(*work, steps, view.id()))?;
                ctx.count(CF, count_key(*work, &steps[0]), -1);
            }
            if let Some((work, steps)) = &new {
                ctx.put(CF, &unit_key(*work, steps, view.id()), &[])?;
                ctx.count(CF, count_key(*work, &steps[0]), 1);
            }
        }
        Ok(())
    }
}

/// One volume of a work's outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutlinePart {
    /// The first position step, as `part` takes it back.
    pub part: String,
    pub units: u64,
}

impl ReadModels {
    /// A work's volumes in order, each with how many units it holds.
    pub fn outline(&self, work: Id) -> Result<Vec<OutlinePart>> {
        let mut out = Vec::new();
        self.scan(
            CF,
            &keys::key(&[&[COUNT], &keys::id_bytes(work)]),
            None,
            |rest, value| {
                let (step, _) = Step::decode(rest)?;
                out.push(OutlinePart {
                    part: step.to_string(),
                    units: keys::u64_from(value)?,
                });
                Ok(true)
            },
        )?;
        Ok(out)
    }

    /// Up to `limit` units of one volume in position order; empty for a volume the work lacks.
    pub fn part(&self, work: Id, part: &str, limit: usize) -> Result<Vec<StoredItem>> {
        let mut ids = Vec::new();
        self.scan(
            CF,
            &part_prefix(work, &Step::parse(part)),
            None,
            |rest, _| {
                if ids.len() == limit {
                    return Ok(false);
                }
                ids.push(keys::trailing_id(rest)?);
                Ok(true)
            },
        )?;
        self.items(&ids)
    }
}

#[cfg(test)]
mod tests {
    use crate::OutlinePart;
    use crate::testutil::*;
    use serde_json::json;

    #[test]
    fn outline_groups_units_by_volume_in_order() {
        let t = Fixture::new();
        let work = t.id();
        let unit = |pos: serde_json::Value| json!({"work": work.to_string(), "position": pos});
        let (a, b, c, d) = (t.id(), t.id(), t.id(), t.id());
        t.commit(vec![t.put(work, "work", Some("/w"), json!({}))]);
        t.commit(vec![
            t.put(a, "unit", None, unit(json!([10, 2]))),
            t.put(b, "unit", None, unit(json!([2, 5]))),
            t.put(c, "unit", None, unit(json!(["10", 1]))),
            t.put(d, "unit", None, unit(json!(["א"]))),
        ]);
        let part = |name: &str| OutlinePart {
            part: name.into(),
            units: 0,
        };
        let outline = t.rm.outline(work).unwrap();
        assert_eq!(
            outline,
            vec![
                OutlinePart {
                    units: 1,
                    ..part("2")
                },
                OutlinePart {
                    units: 2,
                    ..part("10")
                },
                OutlinePart {
                    units: 1,
                    ..part("א")
                }
            ]
        );
        let ids = |p: &str, limit| {
            t.rm.part(work, p, limit)
                .unwrap()
                .into_iter()
                .map(|i| i.id)
                .collect::<Vec<_>>()
        };
        assert_eq!(ids("10", 10), vec![c, a]);
        assert_eq!(ids("10", 1), vec![c]);
        assert!(ids("3", 10).is_empty());

        // Moving a unit to another volume moves its count; deleting the last unit drops the volume.
        t.commit(vec![t.put(a, "unit", None, unit(json!([2, 1])))]);
        t.commit(vec![t.delete(d, "unit")]);
        assert_eq!(
            t.rm.outline(work).unwrap(),
            vec![
                OutlinePart {
                    units: 2,
                    ..part("2")
                },
                OutlinePart {
                    units: 1,
                    ..part("10")
                }
            ]
        );
        assert_eq!(ids("2", 10), vec![a, b]);
    }
}

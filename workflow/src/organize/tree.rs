//! The catalog tree: the sets at the top, the sets and sefarim inside a set, a sefer's volumes
//! and the units in each, every node with how many children and items it holds.
//!
//! Everything is read from the projector's read models: sets under a set from `children`
//! (through `parent`), a set's sefarim from its list, its counts from the backlink counts, a
//! sefer's volumes and their unit counts from `outline`. Nothing is written.

use std::cmp::Ordering;

use catalog_projector::{ReadModels, StoredItem};
use catalog_schemas::{Id, ItemType, OrderKey, refs};
use serde::Serialize;
use serde_json::Value;

use crate::after_merge::stored_data;
use crate::error::{Limit, Missing, Refusal, Result, Wording};
use crate::service::Workflow;

/// The deepest tree one request may ask for.
pub const MAX_DEPTH: u8 = 5;
/// At most this many children are listed under one node; `more` says some were left out.
const MAX_CHILDREN: usize = 500;
/// At most this many nodes in one answer; past it, nodes are listed without their children.
const MAX_NODES: usize = 5000;
/// Sets are read this many at a time when looking for the top-level ones.
const PAGE: usize = 1000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = TreeNodeKind))]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Set,
    Work,
    /// A sefer's volume: its units that share a first position step.
    Part,
    Unit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct TreeCounts {
    /// What would be listed under the node: a set's sets and sefarim, a sefer's volumes, a
    /// volume's units.
    pub children: u64,
    /// Items inside: everything in a set, every unit of a sefer or volume, and for a unit the
    /// items pointing at it (texts, contents maps, relations).
    pub items: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
pub struct TreeNode {
    /// Every node but a volume is an item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    #[serde(rename = "type")]
    pub kind: NodeKind,
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub path: Option<String>,
    /// The item's name object (a set's name, a sefer's title, a unit's label).
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub name: Option<Value>,
    /// A volume's first position step, as `/v1/works/{id}/parts/{part}` takes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub part: Option<String>,
    pub counts: TreeCounts,
    /// Listed down to the depth asked; absent below it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "utoipa", schema(no_recursion))]
    pub children: Option<Vec<TreeNode>>,
    /// Some children were left out (too many for one answer).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub more: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema), schema(as = CatalogTree))]
pub struct Tree {
    #[cfg_attr(feature = "utoipa", schema(required))]
    pub root: Option<Id>,
    pub depth: u8,
    /// The top-level sets, or the root alone.
    pub nodes: Vec<TreeNode>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub more: bool,
}

/// How much one answer may list.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Caps {
    /// Children listed under one node (and top-level sets).
    pub children: usize,
    /// Nodes in the whole answer.
    pub nodes: usize,
}

impl Caps {
    const STANDARD: Caps = Caps {
        children: MAX_CHILDREN,
        nodes: MAX_NODES,
    };
}

impl Workflow {
    /// The tree under `root` (a set or a work), or the top-level sets, `depth` levels down.
    pub fn catalog_tree(&self, root: Option<Id>, depth: u8) -> Result<Tree> {
        self.catalog_tree_within(root, depth, Caps::STANDARD)
    }

    pub(crate) fn catalog_tree_within(
        &self,
        root: Option<Id>,
        depth: u8,
        caps: Caps,
    ) -> Result<Tree> {
        if depth == 0 || depth > MAX_DEPTH {
            let bounds = 1..=usize::from(MAX_DEPTH);
            let wording = Wording::WholeNumber;
            return Err(Limit::new("depth", bounds, usize::from(depth), wording).into());
        }
        let mut walk = Walk {
            rm: &self.inner.read_models,
            depth,
            caps,
            budget: caps.nodes,
        };
        let (nodes, more) = match root {
            None => {
                let (sets, mut more) = walk.top_sets()?;
                let mut nodes = Vec::with_capacity(sets.len());
                for set in &sets {
                    if walk.budget == 0 {
                        more = true;
                        break;
                    }
                    nodes.push(walk.set(set, 1)?);
                }
                (nodes, more)
            }
            Some(id) => {
                let stored = Missing::from_lookup(id, self.inner.read_models.item(id)?)?;
                let node = match stored.ty {
                    ItemType::Set => walk.set(&stored, 0)?,
                    ItemType::Work => walk.work(&stored, 0)?,
                    other => return Err(Refusal::TreeRoot { id, is: other }.into()),
                };
                (vec![node], false)
            }
        };
        Ok(Tree {
            root,
            depth,
            nodes,
            more,
        })
    }
}

struct Walk<'a> {
    rm: &'a ReadModels,
    depth: u8,
    caps: Caps,
    /// Nodes still allowed in the answer.
    budget: usize,
}

/// Sets sort as the children read model sorts them: by order key (none first), then id.
fn by_order(a: &(StoredItem, Option<OrderKey>), b: &(StoredItem, Option<OrderKey>)) -> Ordering {
    (&a.1, a.0.id).cmp(&(&b.1, b.0.id))
}

impl Walk<'_> {
    /// Whether a node at `level` lists its children. Below the depth asked it does not; when
    /// the node budget is spent it cannot, and says so in `more` if it has any.
    fn expands(&self, level: u8, node: &mut TreeNode) -> bool {
        if level >= self.depth {
            return false;
        }
        if self.budget == 0 {
            node.more = node.counts.children > 0;
            return false;
        }
        true
    }

    /// How many of `available` children may be listed now, and whether some are left out.
    fn room(&self, available: usize) -> (usize, bool) {
        let fits = available.min(self.caps.children).min(self.budget);
        (fits, fits < available)
    }

    fn top_sets(&mut self) -> Result<(Vec<StoredItem>, bool)> {
        let mut top = Vec::new();
        let mut after: Option<Vec<u8>> = None;
        loop {
            let page = self
                .rm
                .list(Some(ItemType::Set), None, after.as_deref(), PAGE)?;
            for stored in page.items {
                let data = stored_data(&stored)?;
                let parent = data
                    .get("parent")
                    .and_then(Value::as_str)
                    .and_then(|s| Id::parse(s).ok());
                if parent.is_none() {
                    let key = refs::order_of(&data);
                    top.push((stored, key));
                }
            }
            match page.next {
                Some(next) => after = Some(next),
                None => break,
            }
        }
        top.sort_by(by_order);
        let more = top.len() > self.caps.children;
        top.truncate(self.caps.children);
        Ok((top.into_iter().map(|(s, _)| s).collect(), more))
    }

    fn node(&mut self, stored: &StoredItem, kind: NodeKind, name_field: &str) -> Result<TreeNode> {
        self.budget = self.budget.saturating_sub(1);
        let data = stored_data(stored)?;
        Ok(TreeNode {
            id: Some(stored.id),
            kind,
            path: stored.path.clone(),
            name: data.get(name_field).cloned(),
            part: None,
            counts: TreeCounts {
                children: 0,
                items: 0,
            },
            children: None,
            more: false,
        })
    }

    fn set(&mut self, stored: &StoredItem, level: u8) -> Result<TreeNode> {
        let mut node = self.node(stored, NodeKind::Set, "name")?;
        let (mut items, mut works, mut subsets) = (0, 0, 0);
        for c in self.rm.linked_counts(stored.id)? {
            match (c.field.as_str(), c.ty) {
                ("sets", ItemType::Work) => {
                    items += c.count;
                    works += c.count;
                }
                ("sets", _) => items += c.count,
                ("parent", ItemType::Set) => subsets += c.count,
                _ => {}
            }
        }
        node.counts = TreeCounts {
            children: subsets + works,
            items,
        };
        if !self.expands(level, &mut node) {
            return Ok(node);
        }
        let want = self.caps.children + 1;
        let mut listed = self
            .rm
            .children(stored.id, "parent", ItemType::Set, None, want)?
            .items;
        if listed.len() < want {
            let works = self.rm.list(
                Some(ItemType::Work),
                Some(stored.id),
                None,
                want - listed.len(),
            )?;
            listed.extend(works.items);
        }
        let (fits, more) = self.room(listed.len());
        node.more = more;
        let mut children = Vec::with_capacity(fits);
        for child in &listed[..fits] {
            // Deeper levels of earlier children may have spent the budget.
            if self.budget == 0 {
                node.more = true;
                break;
            }
            children.push(match child.ty {
                ItemType::Set => self.set(child, level + 1)?,
                _ => self.work(child, level + 1)?,
            });
        }
        node.children = Some(children);
        Ok(node)
    }

    fn work(&mut self, stored: &StoredItem, level: u8) -> Result<TreeNode> {
        let mut node = self.node(stored, NodeKind::Work, "title")?;
        let parts = self.rm.outline(stored.id)?;
        node.counts = TreeCounts {
            children: parts.len() as u64,
            items: parts.iter().map(|p| p.units).sum(),
        };
        if !self.expands(level, &mut node) {
            return Ok(node);
        }
        let (fits, more) = self.room(parts.len());
        node.more = more;
        let mut children = Vec::with_capacity(fits);
        for part in parts.into_iter().take(fits) {
            if self.budget == 0 {
                node.more = true;
                break;
            }
            self.budget = self.budget.saturating_sub(1);
            let mut part_node = TreeNode {
                id: None,
                kind: NodeKind::Part,
                path: stored.path.as_ref().map(|p| format!("{p}/{}", part.part)),
                name: None,
                part: Some(part.part.clone()),
                counts: TreeCounts {
                    children: part.units,
                    items: part.units,
                },
                children: None,
                more: false,
            };
            if self.expands(level + 1, &mut part_node) {
                let units = self
                    .rm
                    .part(stored.id, &part.part, self.caps.children + 1)?;
                let (fits, more) = self.room(units.len());
                part_node.more = more;
                let mut listed = Vec::with_capacity(fits);
                for unit in &units[..fits] {
                    if self.budget == 0 {
                        part_node.more = true;
                        break;
                    }
                    listed.push(self.unit(unit)?);
                }
                part_node.children = Some(listed);
            }
            children.push(part_node);
        }
        node.children = Some(children);
        Ok(node)
    }

    fn unit(&mut self, stored: &StoredItem) -> Result<TreeNode> {
        let mut node = self.node(stored, NodeKind::Unit, "label")?;
        node.counts.items = self
            .rm
            .linked_counts(stored.id)?
            .iter()
            .filter(|c| c.field != "sets")
            .map(|c| c.count)
            .sum();
        Ok(node)
    }
}

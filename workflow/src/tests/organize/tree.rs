//! The catalog tree, and its caps at their edges (small caps, so no thousands of items are
//! needed).

use catalog_schemas::{Id, ItemType};
use serde_json::json;

use super::Shelf;
use crate::organize::tree::Caps;
use crate::tests::Harness;
use crate::tests::{merge, new_item};
use crate::{Error, Limit, Refusal, Tree, TreeNode};

#[test]
fn the_tree_lists_sets_sefarim_volumes_and_units_with_counts() {
    let t = Shelf::new();
    let tree = t.wf().catalog_tree(None, 2).unwrap();
    let names: Vec<Option<Id>> = tree.nodes.iter().map(|n| n.id).collect();
    assert_eq!(names.len(), 2, "a1 is not at the top");
    let a = tree.nodes.iter().find(|n| n.id == Some(t.a)).unwrap();
    assert_eq!((a.counts.children, a.counts.items), (2, 1));
    let children = a.children.as_ref().unwrap();
    assert_eq!(children[0].id, Some(t.a1));
    assert_eq!(children[1].id, Some(t.work));
    assert!(children[1].children.is_none(), "depth 2 stops here");

    let work = t.wf().catalog_tree(Some(t.work), 2).unwrap();
    let node = &work.nodes[0];
    assert_eq!((node.counts.children, node.counts.items), (2, 3));
    let parts = node.children.as_ref().unwrap();
    assert_eq!(parts[0].part.as_deref(), Some("1"));
    assert_eq!(parts[0].path.as_deref(), Some("/sefer/1"));
    assert_eq!(parts[0].children.as_ref().unwrap().len(), 2);
    assert!(matches!(
        t.wf().catalog_tree(Some(t.units[0]), 1),
        Err(Error::Refused(Refusal::TreeRoot {
            is: ItemType::Unit,
            ..
        }))
    ));
    assert!(matches!(
        t.wf().catalog_tree(None, 0),
        Err(Error::Limit(Limit { got: 0, .. }))
    ));
    assert!(t.wf().catalog_tree(None, crate::MAX_DEPTH).is_ok());
    assert!(matches!(
        t.wf().catalog_tree(None, crate::MAX_DEPTH + 1),
        Err(Error::Limit(Limit {
            min: 1,
            max: 5,
            got: 6,
            ..
        }))
    ));
}

fn count(tree: &Tree) -> usize {
    fn walk(nodes: &[TreeNode]) -> usize {
        nodes
            .iter()
            .map(|n| 1 + n.children.as_deref().map_or(0, walk))
            .sum()
    }
    walk(&tree.nodes)
}

/// A top-level set holding three subsets, each holding one more.
fn sets(h: &Harness) -> Id {
    let steward = h.writer("steward", true);
    let set = |slug: &str, parent: Option<Id>| {
        let mut v = json!({ "name": { "he": "א" }, "slug": slug });
        if let Some(p) = parent {
            v["parent"] = json!(p.to_string());
        }
        new_item(ItemType::Set, v)
    };
    let top = merge(&h.wf, &steward, &steward, vec![set("top", None)])[0];
    let mids = merge(
        &h.wf,
        &steward,
        &steward,
        vec![
            set("m1", Some(top)),
            set("m2", Some(top)),
            set("m3", Some(top)),
        ],
    );
    merge(
        &h.wf,
        &steward,
        &steward,
        mids.iter()
            .enumerate()
            .map(|(i, m)| set(&format!("leaf{i}"), Some(*m)))
            .collect(),
    );
    top
}

#[test]
fn children_are_listed_up_to_the_cap() {
    let h = Harness::new();
    let top = sets(&h);
    let at = |children| {
        h.wf.catalog_tree_within(
            Some(top),
            1,
            Caps {
                children,
                nodes: 100,
            },
        )
        .unwrap()
    };
    let exact = at(3);
    assert_eq!(exact.nodes[0].children.as_ref().unwrap().len(), 3);
    assert!(!exact.nodes[0].more);
    let short = at(2);
    assert_eq!(short.nodes[0].children.as_ref().unwrap().len(), 2);
    assert!(short.nodes[0].more);
    assert_eq!(short.nodes[0].counts.children, 3, "counts are never cut");
}

#[test]
fn an_answer_holds_at_most_the_node_budget() {
    let h = Harness::new();
    let top = sets(&h);
    let within = |nodes| {
        h.wf.catalog_tree_within(
            Some(top),
            2,
            Caps {
                children: 100,
                nodes,
            },
        )
        .unwrap()
    };
    // The whole tree is seven nodes.
    let whole = within(7);
    assert_eq!(count(&whole), 7);
    assert!(!whole.nodes[0].more);
    let cut = within(6);
    assert_eq!(count(&cut), 6);
    assert!(
        cut.nodes[0].more
            || cut.nodes[0]
                .children
                .as_ref()
                .unwrap()
                .iter()
                .any(|n| n.more)
    );
    // Top-level sets are capped the same way.
    let tops =
        h.wf.catalog_tree_within(
            None,
            1,
            Caps {
                children: 1,
                nodes: 100,
            },
        )
        .unwrap();
    assert_eq!(tops.nodes.len(), 1);
    assert!(!tops.more, "one top-level set");
}

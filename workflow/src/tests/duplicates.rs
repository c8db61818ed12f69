//! The `duplicates` check on a real store: against main, within one suggestion, and never
//! blocking an approval.

use catalog_schemas::{Id, ItemType};
use serde_json::{Value, json};

use super::{World, change, new_item, topic};
use crate::{Check, CheckName, CheckStatus, Resolutions, Status, SuggestionId};

fn event(w: &World, he: &str, date: &str) -> Value {
    json!({ "kind": "farbrengen", "title": { "he": he }, "date": date, "sets": [w.set] })
}

/// Drafts and submits one suggestion by the editor; answers it and its duplicates check.
fn submit(w: &World, puts: Vec<crate::PutItem>) -> (SuggestionId, Check) {
    let wf = &w.h.wf;
    let id = wf.create_draft(&w.editor, "maybe twice", None).unwrap().id;
    for p in puts {
        wf.put_item(&w.editor, id, p).unwrap();
    }
    let open = wf.submit(&w.editor, id).unwrap();
    let check = open
        .checks
        .into_iter()
        .find(|c| c.check == CheckName::Duplicates)
        .expect("a duplicates check");
    (id, check)
}

#[test]
fn an_event_differing_only_in_niqqud_warns_names_the_other_and_still_merges() {
    let w = World::new();
    let first = w.merge(vec![new_item(
        ItemType::Event,
        event(&w, "התוועדות י״ט כסלו", "5785-03-19"),
    )])[0];

    let (id, check) = submit(
        &w,
        vec![new_item(
            ItemType::Event,
            // The same letters with niqqud, no gershayim and a double space.
            event(
                &w,
                "ה\u{05B4}ת\u{05B0}ו\u{05B7}ו\u{05B0}ע\u{05B2}ד\u{05BC}ו\u{05BC}ת  יט כסלו",
                "5785-03-19",
            ),
        )],
    );
    assert_eq!(check.status, CheckStatus::Warn, "{}", check.message);
    assert!(
        check.message.contains(&first.to_string()),
        "{}",
        check.message
    );
    assert!(
        check.message.contains("/events/5785-03-19"),
        "{}",
        check.message
    );
    assert!(check.message.contains("date and kind"), "{}", check.message);
    assert!(!check.blocks_merge());

    let merged = w.h.wf.approve(&w.keeper, id, &Resolutions::none()).unwrap();
    assert_eq!(merged.status, Status::Merged);
}

#[test]
fn an_event_on_another_day_passes() {
    let w = World::new();
    w.merge(vec![new_item(
        ItemType::Event,
        event(&w, "התוועדות", "5785-03-19"),
    )]);
    let (_, check) = submit(
        &w,
        vec![new_item(
            ItemType::Event,
            event(&w, "התוועדות", "5785-03-20"),
        )],
    );
    assert_eq!(check.status, CheckStatus::Pass, "{}", check.message);
}

#[test]
fn two_new_items_of_one_suggestion_that_match_warn() {
    let w = World::new();
    let mut one = topic(w.set, "joy");
    let mut two = topic(w.set, "gladness");
    one["name"] = json!({ "he": "שמחה", "en": "Joy" });
    two["name"] = json!({ "he": "שִׂמְחָה", "en": "joy!" });
    let (id, check) = submit(
        &w,
        vec![
            new_item(ItemType::Topic, one),
            new_item(ItemType::Topic, two),
        ],
    );
    assert_eq!(check.status, CheckStatus::Warn, "{}", check.message);
    let ids: Vec<Id> = w.h.wf.get(id).unwrap().items.iter().map(|i| i.id).collect();
    assert_eq!(ids.len(), 2);
    assert!(
        ids.iter().all(|i| check.message.contains(&i.to_string())),
        "{}",
        check.message
    );
    assert!(
        check.message.contains("of this suggestion"),
        "{}",
        check.message
    );
}

#[test]
fn an_item_changed_but_not_renamed_is_not_its_own_duplicate() {
    let w = World::new();
    let ids = w.merge(vec![new_item(
        ItemType::Event,
        event(&w, "התוועדות", "5785-03-19"),
    )]);
    let mut changed = event(&w, "התוועדות", "5785-03-19");
    changed["occasion"] = json!("יט כסלו");
    let (_, check) = submit(&w, vec![change(ids[0], Some(changed))]);
    assert_eq!(check.status, CheckStatus::Pass, "{}", check.message);
}

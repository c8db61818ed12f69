//! Item data as a suggestion puts it: any JSON as any type's data goes through what the write
//! path runs on it — the schema check (with bodies and run lists), reference fields, date keys,
//! order keys, the reduced name of the `duplicates` check and the derived path — and each
//! answers or refuses, never panics.
#![no_main]

use catalog_schemas::name_key::NameKey;
use catalog_schemas::{ItemType, paths, refs, types};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Some((&code, json)) = data.split_first() else {
        return;
    };
    let ty = ItemType::ALL[usize::from(code) % ItemType::ALL.len()];
    let Ok(value) = serde_json::from_slice::<Value>(json) else {
        return;
    };
    let _ = types::validate(ty, &value);
    let _ = types::dates(ty, &value);
    let _ = refs::references(ty, &value);
    let _ = refs::order_of(&value);
    let _ = NameKey::of_item(&value);
    // A unit's path is made from its work's: let the data stand for that work too.
    let _ = paths::path_for(ty, &value, &|_| Some((ItemType::Work, value.clone())));
});

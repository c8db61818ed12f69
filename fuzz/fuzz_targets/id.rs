//! Ids as people type and paste them: any text is read or refused, never a panic, and an id
//! that is read writes back in the canonical form that reads as the same id.
#![no_main]

use catalog_schemas::Id;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some(id) = Id::from_bytes(data) {
        assert_eq!(id.to_bytes(), data);
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(id) = Id::parse(text) {
        let canonical = id.to_string();
        assert_eq!(
            Id::parse(&canonical).ok(),
            Some(id),
            "{text:?} → {canonical}"
        );
    }
});

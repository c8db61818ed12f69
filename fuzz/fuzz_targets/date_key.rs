//! Date keys (`5784-06B-12`) and days of the year (`06-14`): any text is a key of the calendar
//! or a refusal, and a key writes back as text that reads as the same key.
#![no_main]

use catalog_schemas::{DateKey, dates};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(key) = DateKey::parse(text) {
        let written = key.to_string();
        assert_eq!(
            DateKey::parse(&written).ok(),
            Some(key),
            "{text:?} → {written}"
        );
        if let Some(parent) = key.parent() {
            assert!(parent.contains(&key));
        }
        if let (Some(_), Some(_)) = (key.month(), key.day()) {
            let (y, m, d) = key
                .to_gregorian()
                .expect("a whole day has a gregorian date");
            assert_eq!(DateKey::from_gregorian(y, m, d), Some(key));
        }
        let _ = (key.sort_bytes(), key.month_day_bytes());
        let _ = (dates::hebrew(&key), dates::english(&key));
    }
    let _ = DateKey::parse_month_day(text);
});

//! Dates as people write them (`/v1/dates/parse`): Hebrew letters, English, Gregorian. Any text
//! is read or refused with a reason, and what is read is a real day of the calendar whose key
//! and written forms agree.
#![no_main]

use catalog_schemas::{DateKey, dates};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(read) = dates::read(text) {
        assert_eq!(DateKey::parse(&read.key.to_string()).ok(), Some(read.key));
        assert_eq!(read.en, dates::english(&read.key));
    }
});

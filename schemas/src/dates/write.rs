//! Writing a [`DateKey`] back as people read it: in Hebrew with the day and year in letters
//! (`י״ט כסלו תשמ״ט`) and in English with digits (`19 Kislev 5749`). Both read back to the
//! same key.

use super::gematria;
use crate::{DateKey, Month};

/// The date in Hebrew: day in letters, month, year in letters (the 5000s without their
/// thousands).
pub fn hebrew(key: &DateKey) -> String {
    let mut words = Vec::with_capacity(3);
    if let Some(day) = key.day() {
        words.push(gematria::write(u32::from(day)));
    }
    if let Some(month) = key.month() {
        words.push(month.name_he().to_owned());
    }
    let year = gematria::write_year(key.year());
    // After plain Adar, the years 5001 and 5002 (`א׳`, `ב׳`) would read as Adar I or II: they
    // are written with their thousands then (`ה׳א׳`).
    let year = match (key.month(), key.year()) {
        (Some(Month::Adar), 5001 | 5002) => format!("ה׳{year}"),
        _ => year,
    };
    words.push(year);
    words.join(" ")
}

/// The date in English: `19 Kislev 5749`, `Adar II 5784`, `5749`.
pub fn english(key: &DateKey) -> String {
    let mut words = Vec::with_capacity(3);
    if let Some(day) = key.day() {
        words.push(day.to_string());
    }
    if let Some(month) = key.month() {
        words.push(month.name_en().to_owned());
    }
    words.push(key.year().to_string());
    words.join(" ")
}

//! Date text generated from Gregorian days in many spellings — Gregorian, English, Hebrew in
//! letters — read by `dates::read_key`, and each key compared with the day a second, independent
//! calendar (`calendar`, the molad arithmetic) finds for it.

mod calendar;

use catalog_schemas::dates::read_key;

use calendar::{fixed_from_gregorian, gregorian_days_in_month, hebrew_from_fixed, letters};

const GREGORIAN_NAMES: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// English spellings of each month, by key code.
fn english_names(code: &str) -> &'static [&'static str] {
    match code {
        "01" => &["Tishrei", "Tishri"],
        "02" => &["Cheshvan", "Heshvan", "Marcheshvan", "Mar Cheshvan"],
        "03" => &["Kislev", "Kislew"],
        "04" => &["Teves", "Tevet"],
        "05" => &["Shevat", "Shvat", "Sh'vat"],
        "06" => &["Adar"],
        "06A" => &["Adar I", "Adar Rishon", "Adar Aleph"],
        "06B" => &["Adar II", "Adar Sheni", "Adar Beis"],
        "07" => &["Nissan", "Nisan"],
        "08" => &["Iyar", "Iyyar"],
        "09" => &["Sivan"],
        "10" => &["Tammuz", "Tamuz"],
        "11" => &["Av", "Menachem Av"],
        "12" => &["Elul"],
        other => panic!("no month {other}"),
    }
}

/// Hebrew spellings of each month, by key code.
fn hebrew_names(code: &str) -> &'static [&'static str] {
    match code {
        "01" => &["תשרי"],
        "02" => &["חשון", "מרחשון", "מר-חשון", "חשוון", "מרחשוון"],
        "03" => &["כסלו", "כסליו"],
        "04" => &["טבת"],
        "05" => &["שבט"],
        "06" => &["אדר"],
        "06A" => &["אדר א׳", "אדר ראשון", "אדר א'"],
        "06B" => &["אדר ב׳", "אדר שני", "אדר ב'"],
        "07" => &["ניסן"],
        "08" => &["אייר", "איר"],
        "09" => &["סיון", "סיוון"],
        "10" => &["תמוז"],
        "11" => &["אב", "מנחם אב"],
        "12" => &["אלול"],
        other => panic!("no month {other}"),
    }
}

/// Gregorian days to check: a spread over four centuries, and every day of a common and a
/// leap Hebrew year (Tishrei 1988 to Elul 1990 and 2023-2024, which hold Adar I and II).
fn days() -> Vec<(i64, i64, i64)> {
    let mut days = Vec::new();
    for year in (1800..=2200).step_by(3) {
        for month in 1..=12 {
            days.push((
                year,
                month,
                (year * 7 + month * 5) % gregorian_days_in_month(year, month) + 1,
            ));
        }
    }
    for year in [1988, 1989, 1990, 2023, 2024] {
        for month in 1..=12 {
            for day in 1..=gregorian_days_in_month(year, month) {
                days.push((year, month, day));
            }
        }
    }
    days
}

/// The strings for one day, each with the key it must read as.
fn spellings(n: usize, (gy, gm, gd): (i64, i64, i64)) -> Vec<(String, String)> {
    let (hy, code, hd) = hebrew_from_fixed(fixed_from_gregorian(gy, gm, gd));
    let day_key = format!("{hy:04}-{code}-{hd:02}");
    let month_key = format!("{hy:04}-{code}");
    let pick = |names: &[&'static str]| names[n % names.len()];
    let en = pick(english_names(code));
    let he = pick(hebrew_names(code));
    let gname = GREGORIAN_NAMES[(gm - 1) as usize];
    let (he_day, he_year) = (letters(hd), letters(hy % 1000));
    let ascii = |s: &str| s.replace('״', "\"").replace('׳', "'");
    let mut out = vec![
        (format!("{gy:04}-{gm:02}-{gd:02}"), day_key.clone()),
        (format!("{gname} {gd}, {gy}"), day_key.clone()),
        (format!("{gd} {} {gy}", &gname[..3]), day_key.clone()),
        (format!("{hd} {en} {hy}"), day_key.clone()),
        (format!("{en} {hd}, {hy}"), day_key.clone()),
        (format!("{en} {hy}"), month_key.clone()),
    ];
    // Hebrew letters for the 5000s only, where the thousands may be left out
    if hy / 1000 == 5 {
        out.extend([
            (format!("{he_day} {he} {he_year}"), day_key.clone()),
            (
                ascii(&format!("{he_day} ב{he} ה׳{he_year}")),
                day_key.clone(),
            ),
            (format!("{he_day} ב{he}, ה׳ {he_year}"), day_key.clone()),
            (format!("{he} {he_year}"), month_key),
        ]);
    }
    out
}

#[test]
fn generated_date_strings_agree_with_an_independent_calendar() {
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (n, day) in days().into_iter().enumerate() {
        for (text, expected) in spellings(n, day) {
            checked += 1;
            match read_key(&text) {
                Ok(key) if key.to_string() == expected => {}
                Ok(key) => wrong.push(format!("{text:?} read as {key}, calendar says {expected}")),
                Err(e) => wrong.push(format!("{text:?} refused ({e}), calendar says {expected}")),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {checked} wrong:\n{}",
        wrong.len(),
        wrong[..wrong.len().min(20)].join("\n")
    );
    assert!(checked >= 200, "only {checked} strings checked");
}

#[test]
fn the_independent_calendar_knows_its_landmarks() {
    // Known days, to trust the second algorithm itself.
    assert_eq!(
        hebrew_from_fixed(fixed_from_gregorian(1988, 12, 17)),
        (5749, "04", 9)
    );
    assert_eq!(
        hebrew_from_fixed(fixed_from_gregorian(2024, 3, 24)),
        (5784, "06B", 14)
    );
    assert_eq!(
        hebrew_from_fixed(fixed_from_gregorian(2023, 9, 16)),
        (5784, "01", 1)
    );
    assert_eq!(
        hebrew_from_fixed(fixed_from_gregorian(1948, 5, 14)),
        (5708, "08", 5)
    );
    assert_eq!(
        hebrew_from_fixed(fixed_from_gregorian(2000, 1, 1)),
        (5760, "04", 23)
    );
}

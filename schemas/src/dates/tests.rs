//! Every written form the reader takes, the writer's output, the refusals and their reasons,
//! and the round trip of any key through Hebrew and English.

use proptest::prelude::*;

use super::gematria;
use super::{read, read_key};
use crate::{DateKey, Month, SchemaError};

fn key(text: &str) -> String {
    match read_key(text) {
        Ok(k) => k.to_string(),
        Err(e) => panic!("{text:?} was refused: {e}"),
    }
}

fn reason(text: &str) -> String {
    match read_key(text) {
        Ok(k) => panic!("{text:?} was read as {k}"),
        Err(SchemaError::DateText { input, reason }) => {
            assert_eq!(input, text);
            reason
        }
        Err(other) => panic!("{text:?}: unexpected error {other:?}"),
    }
}

fn all_read_as(expected: &str, texts: &[&str]) {
    for text in texts {
        assert_eq!(key(text), expected, "{text:?}");
    }
}

#[test]
fn gematria_reads_days_with_and_without_marks() {
    for (word, value) in [
        ("א'", 1),
        ("ט\"ו", 15),
        ("ט\"ז", 16),
        ("טו", 15),
        ("י\"ט", 19),
        ("כ'", 20),
        ("ל", 30),
        ("כ\"ט", 29),
    ] {
        let read = gematria::read(word).unwrap_or_else(|| panic!("{word}"));
        assert_eq!((read.value, read.thousands), (value, None), "{word}");
    }
}

#[test]
fn gematria_reads_years_with_and_without_thousands() {
    let read = |w: &str| gematria::read(w).map(|l| (l.thousands, l.value));
    assert_eq!(read("תשמ\"ט"), Some((None, 749)));
    assert_eq!(read("ה'תשמ\"ט"), Some((Some(5), 749)));
    assert_eq!(read("התשמ\"ט"), Some((Some(5), 749)));
    assert_eq!(read("התשמט"), Some((Some(5), 749)));
    assert_eq!(read("ד'תק\"ס"), Some((Some(4), 560)));
    assert_eq!(read("תתקצ\"ט"), Some((None, 999)));
    assert_eq!(read("תשפ\"ה"), Some((None, 785)));
    // final letters count as their ordinary letters
    assert_eq!(read("תשך"), Some((None, 720)));
}

#[test]
fn gematria_refuses_letters_out_of_order_and_non_letters() {
    for word in ["אב", "יכ", "כת", "abc", ""] {
        assert_eq!(gematria::read(word), None, "{word}");
    }
}

#[test]
fn gematria_writes_marks_and_avoids_the_name_spellings() {
    assert_eq!(gematria::write(1), "א׳");
    assert_eq!(gematria::write(15), "ט״ו");
    assert_eq!(gematria::write(16), "ט״ז");
    assert_eq!(gematria::write(19), "י״ט");
    assert_eq!(gematria::write(30), "ל׳");
    assert_eq!(gematria::write(749), "תשמ״ט");
    assert_eq!(gematria::write(515), "תקט״ו");
    assert_eq!(gematria::write(900), "תת״ק");
    assert_eq!(gematria::write_year(5749), "תשמ״ט");
    assert_eq!(gematria::write_year(4560), "ד׳תק״ס");
    assert_eq!(gematria::write_year(5000), "ה׳ אלפים");
    assert_eq!(gematria::write_year(6001), "ו׳א׳");
}

#[test]
fn hebrew_day_month_year_in_letters() {
    all_read_as(
        "5749-03-19",
        &[
            "י״ט כסלו תשמ״ט",
            "י\"ט כסלו תשמ\"ט",
            "יט כסלו תשמט",
            "י״ט בכסלו תשמ״ט",
            "י״ט ב׳כסלו תשמ״ט",
            "י״ט כסלו ה׳תשמ״ט",
            "י״ט כסלו ה'תשמ\"ט",
            "י\"ט כסלו התשמ\"ט",
            "י״ט כסלו ה׳ תשמ״ט",
            "י״ט, כסלו, תשמ״ט.",
            "י״ט כסליו תשמ״ט",
            "יום ב׳ י״ט כסלו תשמ״ט",
            "י״ט לחודש כסלו שנת תשמ״ט לפ״ק",
            "(י״ט כסלו תשמ״ט)",
            "“י״ט כסלו תשמ״ט”",
            "יִ״ט כִּסְלֵו תשמ״ט",
            "19 כסלו 5749",
        ],
    );
    all_read_as(
        "5749-05-15",
        &["ט״ו בשבט תשמ״ט", "ט\"ו שבט ה'תשמ\"ט", "טו בשבט תשמט"],
    );
    all_read_as("5749-05-16", &["ט״ז בשבט תשמ״ט"]);
}

#[test]
fn days_written_as_their_letters_name() {
    // 10 Shevat 5710 and 5711, in every way the name and its marks are typed
    all_read_as(
        "5710-05-10",
        &[
            "יו״ד שבט תש״י",
            "יו\"ד שבט ה'תש\"י",
            "יו”ד שבט תש”י",
            "יו''ד שבט תש''י",
            "יוד שבט תשי",
            "יו״ד בשבט ה׳תש״י",
            "ביו״ד שבט תש״י",
            "יום ג׳ יו״ד שבט תש״י",
            "שבט יו״ד תש״י",
            "10 Shevat 5710",
        ],
    );
    all_read_as("5711-05-10", &["יו״ד שבט תשי״א", "ביו\"ד שבט ה'תשי\"א"]);
    all_read_as("5587-03-10", &["יו״ד כסלו תקפ״ז", "יוד כסלו ה׳תקפ״ז"]);
    // 20 Cheshvan 5621, 20 Av 5704
    all_read_as(
        "5621-02-20",
        &[
            "כ״ף מר-חשון תרכ״א",
            "כ\"ף מרחשון ה'תרכ\"א",
            "כ״ף מר חשוון תרכ״א",
            "כף חשון תרכא",
            "בכ״ף מר־חשון תרכ״א",
        ],
    );
    all_read_as(
        "5704-11-20",
        &["כ״ף מנחם-אב תש״ד", "כ\"ף מנחם אב תש\"ד", "כ״ף באב תש״ד"],
    );
    // the day is written back as days are usually written
    let read = read("יו״ד שבט תש״י").expect("readable");
    assert_eq!(
        (read.he.as_str(), read.en.as_str()),
        ("י׳ שבט תש״י", "10 Shevat 5710")
    );
}

#[test]
fn letter_names_not_written_for_days_are_refused_with_the_usual_way() {
    assert_eq!(
        reason("ה״א טבת תשמ״ט"),
        "\"ה״א\" is the name of the letter ה, which days are not written with: write ה׳"
    );
    assert_eq!(
        reason("ה\"י טבת תשמ\"ט"),
        "\"ה״י\" is the name of the letter ה, which days are not written with: write ה׳"
    );
    assert_eq!(
        reason("למ״ד תשרי תשמ״ט"),
        "\"למ״ד\" is the name of the letter ל, which days are not written with: write ל׳"
    );
    for name in [
        "אל״ף",
        "בי״ת",
        "גימ״ל",
        "דל״ת",
        "וא״ו",
        "וי״ו",
        "זי״ן",
        "חי״ת",
        "טי״ת",
    ] {
        let why = reason(&format!("{name} ניסן תשמ״ט"));
        assert!(why.contains("is the name of the letter"), "{name}: {why}");
    }
}

#[test]
fn letters_that_only_sum_to_a_day_are_refused() {
    // Read as sums these would be silent misreadings: ה״א as 6, ה״ה as 10, a misplaced mark
    // turning יו״ד into 20.
    assert_eq!(
        reason("ה״ה כסלו תשמ״ט"),
        "\"ה״ה\" is not how a day is written: 10 is י׳"
    );
    assert_eq!(
        reason("י״וד שבט תש״י"),
        "\"י״וד\" is not how a day is written: 20 is כ׳"
    );
    assert_eq!(
        reason("יוד׳ שבט תש״י"),
        "\"יוד׳\" is not how a day is written: 20 is כ׳"
    );
    assert_eq!(
        reason("י״ה שבט תשמ״ט"),
        "\"י״ה\" is not how a day is written: 15 is ט״ו"
    );
    assert_eq!(
        reason("יי שבט תשמ״ט"),
        "\"יי\" is not how a day is written: 20 is כ׳"
    );
}

#[test]
fn a_lone_letter_after_adar_at_the_end_is_the_year_when_adar_i_would_have_none() {
    // 5001 written without its thousands; read as Adar I, the text would have no year.
    assert_eq!(key("יו״ד אדר א׳"), "5001-06-10");
    assert_eq!(key("ט״ו אדר ב׳"), "5002-06-15");
    // with a year after it, the letter is still Adar I or II, and a wrong one keeps its reason
    assert_eq!(key("ט״ו אדר א׳ תשפ״ד"), "5784-06A-15");
    assert_eq!(reason("ט״ו אדר א׳ תשפ״ה"), reason_of_adar_i_in_5785());
}

fn reason_of_adar_i_in_5785() -> String {
    DateKey::new(5785, Some(Month::AdarI), Some(15)).expect_err("5785 is not a leap year")
}

#[test]
fn a_letters_name_is_a_day_never_a_year() {
    assert_eq!(
        reason("יו״ד"),
        "\"יו״ד\" names the letter י, which is written for a day (10), not a year"
    );
    assert_eq!(reason("כסלו כ״ף"), "Kislev כ״ף has no year");
    assert_eq!(reason("יו״ד שבט"), "Shevat has no year");
    assert_eq!(
        reason("יו״ד שבט כ״ף"),
        "\"כ״ף\" names the letter כ, which is written for a day (20), not a year"
    );
    // the preposition is read only before a name written for days
    assert!(reason("בבי״ת שבט תש״י").contains("is not a month, a number in letters"));
}

#[test]
fn every_hebrew_month_spelling() {
    let cases: &[(&str, &str)] = &[
        ("תשרי", "01"),
        ("חשון", "02"),
        ("חשוון", "02"),
        ("מרחשון", "02"),
        ("מרחשוון", "02"),
        ("מר-חשון", "02"),
        ("מר־חשון", "02"),
        ("מר חשוון", "02"),
        ("כסלו", "03"),
        ("טבת", "04"),
        ("שבט", "05"),
        ("אדר", "06"),
        ("ניסן", "07"),
        ("אייר", "08"),
        ("איר", "08"),
        ("סיון", "09"),
        ("סיוון", "09"),
        ("תמוז", "10"),
        ("אב", "11"),
        ("מנחם אב", "11"),
        ("אלול", "12"),
    ];
    for (name, code) in cases {
        // 5785 is a common year, so plain Adar is its sixth month
        assert_eq!(
            key(&format!("ה׳ {name} תשפ״ה")),
            format!("5785-{code}-05"),
            "{name}"
        );
        assert_eq!(
            key(&format!("ה׳ ב{name} תשפ״ה")),
            format!("5785-{code}-05"),
            "ב{name}"
        );
        assert_eq!(
            key(&format!("{name} תשפ״ה")),
            format!("5785-{code}"),
            "{name}"
        );
    }
}

#[test]
fn adar_of_a_leap_year_in_hebrew() {
    // 5784 is a leap year
    all_read_as(
        "5784-06A-14",
        &[
            "י״ד אדר א׳ תשפ״ד",
            "י״ד אדר א תשפ״ד",
            "י\"ד אדר א' תשפ\"ד",
            "י״ד אדר ראשון תשפ״ד",
            "י״ד באדר הראשון תשפ״ד",
        ],
    );
    all_read_as(
        "5784-06B-14",
        &[
            "י״ד אדר ב׳ תשפ״ד",
            "י״ד אדר ב תשפ״ד",
            "י״ד אדר שני תשפ״ד",
            "י״ד באדר ב׳ תשפ״ד",
        ],
    );
    all_read_as("5784-06B-01", &["א׳ אדר ב׳ תשפ״ד"]);
    all_read_as("5784-06A", &["אדר א׳ תשפ״ד"]);
}

#[test]
fn english_transliterations() {
    let cases: &[(&str, &str)] = &[
        ("Tishrei", "01"),
        ("Tishri", "01"),
        ("Cheshvan", "02"),
        ("Heshvan", "02"),
        ("Marcheshvan", "02"),
        ("Mar Cheshvan", "02"),
        ("Mar-Cheshvan", "02"),
        ("Kislev", "03"),
        ("Kislew", "03"),
        ("Teves", "04"),
        ("Tevet", "04"),
        ("Shevat", "05"),
        ("Shvat", "05"),
        ("Sh'vat", "05"),
        ("Adar", "06"),
        ("Nissan", "07"),
        ("Nisan", "07"),
        ("Iyar", "08"),
        ("Iyyar", "08"),
        ("Sivan", "09"),
        ("Tammuz", "10"),
        ("Tamuz", "10"),
        ("Av", "11"),
        ("Menachem Av", "11"),
        ("Menachem-Av", "11"),
        ("Elul", "12"),
    ];
    for (name, code) in cases {
        assert_eq!(
            key(&format!("5 {name} 5785")),
            format!("5785-{code}-05"),
            "{name}"
        );
        assert_eq!(
            key(&format!("{name} 5, 5785")),
            format!("5785-{code}-05"),
            "{name}"
        );
        assert_eq!(
            key(&format!("{} 5785", name.to_uppercase())),
            format!("5785-{code}"),
            "{name}"
        );
    }
}

#[test]
fn english_adar_of_a_leap_year() {
    all_read_as(
        "5784-06A-14",
        &[
            "14 Adar I 5784",
            "Adar I 14, 5784",
            "14 Adar Rishon 5784",
            "14 Adar Aleph 5784",
        ],
    );
    all_read_as(
        "5784-06B-14",
        &[
            "14 Adar II 5784",
            "14 Adar Sheni 5784",
            "14 Adar Beis 5784",
            "Adar II 14 5784",
        ],
    );
}

#[test]
fn english_numbers_with_ordinals_and_commas() {
    all_read_as(
        "5749-03-19",
        &[
            "19 Kislev 5749",
            "Kislev 19, 5749",
            "19th of Kislev, 5749",
            "the 19th of Kislev 5749",
            "kislev 19 5749",
            "  19  Kislev  5749  ",
            "19 Kislev ה׳תשמ״ט",
        ],
    );
}

#[test]
fn an_ordinal_ending_counts_only_glued_to_digits() {
    assert_eq!(
        reason("19 th Kislev 5749"),
        "\"th\" is not a month, a number or a word of a date"
    );
}

#[test]
fn partial_dates() {
    all_read_as(
        "5749-03",
        &["Kislev 5749", "כסלו תשמ״ט", "בכסלו ה׳תשמ״ט", "Kislev, 5749"],
    );
    all_read_as(
        "5749",
        &["5749", "תשמ״ט", "ה׳תשמ״ט", "ה׳ תשמ״ט", "שנת תשמ״ט"],
    );
    all_read_as("5000", &["ה׳ אלפים", "5000"]);
}

#[test]
fn gregorian_dates_become_the_hebrew_day() {
    all_read_as(
        "5749-04-09",
        &[
            "December 17, 1988",
            "17 December 1988",
            "Dec 17 1988",
            "1988-12-17",
            "17th of December, 1988",
            "17 בדצמבר 1988",
            "1988 December 17",
        ],
    );
    // a leap year's Adar II, and the Gregorian leap day
    all_read_as("5784-06B-14", &["March 24, 2024", "2024-03-24"]);
    all_read_as("5784-06A-20", &["2024-02-29"]);
}

#[test]
fn plain_adar_in_a_leap_year_is_refused_naming_both() {
    let why = reason("14 Adar 5784");
    assert!(why.contains("Adar I") && why.contains("Adar II"), "{why}");
    assert!(why.contains("5784 is a leap year"), "{why}");
    let why = reason("י״ד אדר תשפ״ד");
    assert!(why.contains("Adar I (06A) or Adar II (06B)"), "{why}");
}

#[test]
fn adar_one_or_two_in_a_common_year_is_refused() {
    assert_eq!(
        reason("14 Adar II 5785"),
        "5785 is not a leap year: say Adar"
    );
    assert_eq!(reason("אדר א׳ תשפ״ה"), "5785 is not a leap year: say Adar");
}

#[test]
fn days_past_the_month_are_refused_with_its_length() {
    // 5749 is a short (deficient) year: Kislev has 29 days
    assert_eq!(key("29 Kislev 5749"), "5749-03-29");
    assert_eq!(reason("30 Kislev 5749"), "Kislev 5749 has 29 days");
    assert_eq!(reason("ל׳ טבת תשמ״ט"), "Teves 5749 has 29 days");
    assert_eq!(reason("31 Tishrei 5749"), "31 is not a day of a month");
    assert_eq!(reason("0 Tishrei 5749"), "0 is not a day of a month");
}

#[test]
fn unreadable_words_are_named() {
    assert_eq!(
        reason("19 Kislevv 5749"),
        "\"kislevv\" is not a month, a number or a word of a date"
    );
    assert_eq!(
        reason("י״ט כסלוו תשמ״ט"),
        "\"כסלוו\" is not a month, a number in letters or a word of a date"
    );
    assert_eq!(reason(""), "it names no date");
    assert_eq!(reason(" ,. "), "it names no date");
    assert_eq!(reason("Kislev"), "Kislev has no year");
    assert_eq!(reason("19 Kislev"), "Kislev has no year");
    assert_eq!(reason("Kislev 19"), "Kislev 19 has no year");
    assert_eq!(
        reason("Kislev Teves 5749"),
        "it names two months, Kislev and Teves"
    );
    assert_eq!(
        reason("1 2 Kislev 5749"),
        "3 numbers around Kislev: write the day, the month and the year"
    );
    assert_eq!(
        reason("19 5749"),
        "2 numbers and no month: write a month between the day and the year"
    );
    assert_eq!(reason("123456"), "123456 is too long to be a day or a year");
    assert_eq!(reason("12345"), "year 12345 is outside 1000..9999");
    assert_eq!(reason("999"), "year 999 is outside 1000..9999");
    assert_eq!(
        reason("אלפים"),
        "\"אלפים\" needs the thousands digit before it"
    );
}

#[test]
fn date_keys_read_as_themselves_from_the_year_4000() {
    all_read_as("5749-03-19", &["5749-03-19", " 5749-03-19 "]);
    all_read_as("5784-06B", &["5784-06B"]);
    all_read_as("5749-03", &["5749-03"]);
    assert_eq!(reason("5785-06A-01"), "5785 is not a leap year: say Adar");
    assert_eq!(reason("5749-03-30"), "Kislev 5749 has 29 days");
    // below 4000 an all-digit YYYY-MM-DD is Gregorian; with Adar I or II it is still a key
    assert_eq!(key("3999-01-01"), key("January 1, 3999"));
    all_read_as("3762-06A-01", &["3762-06A-01"]);
}

#[test]
fn gregorian_refusals_name_the_reason() {
    assert_eq!(reason("February 30, 1988"), "February 1988 has no day 30");
    assert_eq!(reason("1988-02-30"), "February 1988 has no day 30");
    assert_eq!(
        reason("1988-13-01"),
        "13 is not a month of the year: use 01..12"
    );
    assert!(reason("December 1988").contains("spans two Hebrew months"));
    assert_eq!(
        reason("17 December 1988 Kislev"),
        "it mixes a Gregorian month with the Hebrew month Kislev"
    );
    assert_eq!(
        reason("י״ז דצמבר 1988"),
        "\"י״ז\": write the day and year of a Gregorian date in digits"
    );
    assert!(reason("December 17, 9000").contains("falls outside the Hebrew years"));
}

#[test]
fn text_length_limit_at_its_edge() {
    let padded = |n: usize| format!("{}19 Kislev 5749", " ".repeat(n - "19 Kislev 5749".len()));
    assert_eq!(key(&padded(super::MAX_TEXT_CHARS)), "5749-03-19");
    let why = reason(&padded(super::MAX_TEXT_CHARS + 1));
    assert!(why.contains("more than the 200"), "{why}");
}

#[test]
fn written_back_in_hebrew_and_english() {
    let read = read("December 17, 1988").expect("readable");
    assert_eq!(read.key.to_string(), "5749-04-09");
    assert_eq!(read.he, "ט׳ טבת תשמ״ט");
    assert_eq!(read.en, "9 Teves 5749");
    let read = super::read("19 Kislev 5749").expect("readable");
    assert_eq!(
        (read.he.as_str(), read.en.as_str()),
        ("י״ט כסלו תשמ״ט", "19 Kislev 5749")
    );
    let read = super::read("אדר ב׳ תשפ״ד").expect("readable");
    assert_eq!(
        (read.he.as_str(), read.en.as_str()),
        ("אדר ב׳ תשפ״ד", "Adar II 5784")
    );
    let read = super::read("5749").expect("readable");
    assert_eq!((read.he.as_str(), read.en.as_str()), ("תשמ״ט", "5749"));
    assert_eq!(
        serde_json::to_value(super::read("15 Shevat 5749").expect("readable")).expect("json"),
        serde_json::json!({ "key": "5749-05-15", "he": "ט״ו שבט תשמ״ט", "en": "15 Shevat 5749" })
    );
}

/// Any valid key: a year, a month of it, or a day of that month.
fn any_key() -> impl Strategy<Value = DateKey> {
    (1000u16..=9999, 0usize..=Month::ALL.len(), 1u8..=30).prop_filter_map(
        "the month and day must exist that year",
        |(year, month, day)| {
            let month = Month::ALL.get(month).copied();
            DateKey::new(year, month, month.map(|_| day))
                .or_else(|_| DateKey::new(year, month, None))
                .ok()
        },
    )
}

/// How people type the gershayim of a name: not at all, the Hebrew mark, ASCII and
/// typographic quotes, two apostrophes.
const NAME_MARKS: [&str; 6] = ["", "״", "\"", "”", "“", "''"];

/// Up to three letters of the values a day can have, with or without a mark before the last.
fn day_like_word() -> impl Strategy<Value = (String, String)> {
    let letter = prop::sample::select("אבגדהוזחטיכלך".chars().collect::<Vec<_>>());
    (
        prop::collection::vec(letter, 1..=3),
        prop::sample::select(vec!["", "״", "׳"]),
    )
        .prop_map(|(letters, mark)| {
            let plain: String = letters.iter().collect();
            let mut word = String::new();
            for (i, c) in letters.iter().enumerate() {
                if i + 1 == letters.len() && letters.len() > 1 {
                    word.push_str(mark);
                }
                word.push(*c);
            }
            if letters.len() == 1 {
                word.push_str(mark);
            }
            (word, plain)
        })
}

proptest! {
    #[test]
    fn a_named_day_reads_as_its_letter_in_any_month_and_year(
        (name, day) in prop::sample::select(vec![("יו", "ד", 10u8), ("כ", "ף", 20u8)])
            .prop_map(|(head, last, day)| ((head, last), day)),
        mark in prop::sample::select(NAME_MARKS.to_vec()),
        prefix in prop::sample::select(vec!["", "ב"]),
        key in any_key(),
    ) {
        let (Some(month), Some(_)) = (key.month(), key.day()) else {
            return Ok(());
        };
        let text = format!(
            "{prefix}{}{mark}{} {} {}",
            name.0,
            name.1,
            month.name_he(),
            gematria::write_year(key.year())
        );
        let expected = DateKey::new(key.year(), Some(month), Some(day))
            .expect("every month has a 10th and a 20th");
        prop_assert_eq!(read_key(&text), Ok(expected), "{}", text);
    }

    #[test]
    fn a_day_in_letters_reads_only_as_the_day_it_is_written_as(
        (word, plain) in day_like_word(),
    ) {
        // Shevat always has 30 days.
        if let Ok(key) = read_key(&format!("{word} שבט תשפ״ה")) {
            let day = u32::from(key.day().expect("a day"));
            let usual = gematria::is_usual(&plain, day);
            let named = matches!((plain.as_str(), day), ("יוד", 10) | ("כף" | "כך", 20));
            prop_assert!(usual || named, "{} read as day {}", word, day);
        }
    }
    #[test]
    fn any_key_written_in_hebrew_reads_back(key in any_key()) {
        let he = super::hebrew(&key);
        prop_assert_eq!(read_key(&he), Ok(key), "{}", he);
    }

    #[test]
    fn any_key_written_in_english_reads_back(key in any_key()) {
        let en = super::english(&key);
        prop_assert_eq!(read_key(&en), Ok(key), "{}", en);
    }

    #[test]
    fn any_value_in_letters_reads_back(n in 1u32..1000) {
        let written = gematria::write(n);
        let read = gematria::read(&written.replace('׳', "'").replace('״', "\""));
        prop_assert_eq!(read.map(|l| (l.thousands, l.value)), Some((None, n)), "{}", written);
    }

    #[test]
    fn reading_never_panics(text in "\\PC{0,40}") {
        let _ = read_key(&text);
    }

    #[test]
    fn hebrew_like_text_never_panics(text in "[א-ת׳״'\" 0-9,.-]{0,30}") {
        let _ = read_key(&text);
    }
}

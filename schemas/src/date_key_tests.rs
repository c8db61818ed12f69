use proptest::prelude::*;

use super::*;

fn key(s: &str) -> DateKey {
    DateKey::parse(s).unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn err(s: &str) -> String {
    DateKey::parse(s).unwrap_err().to_string()
}

#[test]
fn leap_years_follow_the_nineteen_year_cycle() {
    for year in MIN_YEAR..=MAX_YEAR {
        let by_cycle = (7 * u32::from(year) + 1) % 19 < 7;
        assert_eq!(is_leap_year(year), by_cycle, "year {year}");
    }
}

#[test]
fn known_years() {
    // 5784 ran from 16 September 2023 to 2 October 2024: 383 days, a deficient leap year.
    assert!(is_leap_year(5784));
    assert_eq!(days_in_month(5784, Month::Cheshvan), Some(29));
    assert_eq!(days_in_month(5784, Month::Kislev), Some(29));
    assert_eq!(days_in_month(5784, Month::AdarI), Some(30));
    assert_eq!(days_in_month(5784, Month::AdarII), Some(29));
    assert_eq!(days_in_month(5784, Month::Adar), None);
    // 5785 (3 October 2024 to 22 September 2025): 355 days, a complete common year.
    assert!(!is_leap_year(5785));
    assert_eq!(days_in_month(5785, Month::Cheshvan), Some(30));
    assert_eq!(days_in_month(5785, Month::Kislev), Some(30));
    assert_eq!(days_in_month(5785, Month::AdarI), None);
    // 5786: 354 days, a regular year.
    assert_eq!(days_in_month(5786, Month::Cheshvan), Some(29));
    assert_eq!(days_in_month(5786, Month::Kislev), Some(30));
}

#[test]
fn gregorian_conversion_matches_known_days() {
    assert_eq!(key("5785-01-01").to_gregorian(), Some((2024, 10, 3)));
    assert_eq!(key("5784-06B-14").to_gregorian(), Some((2024, 3, 24)));
    assert_eq!(key("5785-06-14").to_gregorian(), Some((2025, 3, 14)));
    assert_eq!(key("5785-06").to_gregorian(), None);
    assert_eq!(
        DateKey::from_gregorian(2024, 3, 24),
        Some(key("5784-06B-14"))
    );
    assert_eq!(
        DateKey::from_gregorian(2024, 2, 23),
        Some(key("5784-06A-14"))
    );
    assert_eq!(
        DateKey::from_gregorian(2025, 3, 14),
        Some(key("5785-06-14"))
    );
    assert_eq!(
        DateKey::from_gregorian(2024, 10, 3),
        Some(key("5785-01-01"))
    );
}

#[test]
fn adar_must_match_the_year() {
    assert_eq!(
        err("5785-06A"),
        "date key 5785-06A: 5785 is not a leap year: say Adar"
    );
    assert_eq!(
        err("5785-06B-01"),
        "date key 5785-06B-01: 5785 is not a leap year: say Adar"
    );
    assert_eq!(
        err("5784-06"),
        "date key 5784-06: 5784 is a leap year: say Adar I (06A) or Adar II (06B)"
    );
    key("5784-06A");
    key("5784-06B-29");
    key("5785-06-29");
}

#[test]
fn month_lengths_are_exact() {
    assert_eq!(
        err("5786-02-30"),
        "date key 5786-02-30: Cheshvan 5786 has 29 days"
    );
    key("5785-02-30");
    assert_eq!(
        err("5784-03-30"),
        "date key 5784-03-30: Kislev 5784 has 29 days"
    );
    key("5784-06A-30");
    assert_eq!(
        err("5784-06B-30"),
        "date key 5784-06B-30: Adar II 5784 has 29 days"
    );
    assert_eq!(
        err("5785-01-00"),
        "date key 5785-01-00: Tishrei 5785 has 30 days"
    );
}

#[test]
fn malformed_keys_say_why() {
    assert!(err("578").contains("is not four digits"));
    assert!(err("5785-13").contains("is not a month"));
    assert!(err("5785-6").contains("is not a month"));
    assert!(err("5785-06a").contains("is not a month"));
    assert!(err("5785-01-1").contains("is not two digits"));
    assert!(err("5785-01-01-01").contains("too many parts"));
    assert!(err("0999").contains("outside"));
    assert!(err("").contains("not four digits"));
    assert!(err("+785").contains("not four digits"));
}

#[test]
fn display_is_the_key() {
    for s in ["5785", "5785-01", "5784-06A", "5784-06B-14", "5785-12-29"] {
        assert_eq!(key(s).to_string(), s);
    }
    let k = key("5784-06B-14");
    assert_eq!(
        (k.year(), k.month(), k.day()),
        (5784, Some(Month::AdarII), Some(14))
    );
    assert_eq!(serde_json::to_string(&k).unwrap(), r#""5784-06B-14""#);
    assert_eq!(
        serde_json::from_str::<DateKey>(r#""5784-06B-14""#).unwrap(),
        k
    );
    assert!(serde_json::from_str::<DateKey>(r#""5785-06A""#).is_err());
}

#[test]
fn order_is_calendar_order() {
    let keys = [
        "5784",
        "5784-01",
        "5784-01-01",
        "5784-05-30",
        "5784-06A",
        "5784-06A-01",
        "5784-06B",
        "5784-06B-01",
        "5784-07",
        "5784-12-29",
        "5785",
        "5785-06",
        "5785-06-29",
        "5785-07-01",
    ];
    for pair in keys.windows(2) {
        let (a, b) = (key(pair[0]), key(pair[1]));
        assert!(a < b, "{a} < {b}");
        assert!(a.sort_bytes() < b.sort_bytes(), "{a} < {b} as bytes");
    }
    assert_eq!(
        key("5785-06").sort_bytes()[2],
        key("5784-06A").sort_bytes()[2]
    );
    assert_eq!(key("5784-06B-14").month_day_bytes(), Some([7, 14]));
    assert_eq!(key("5784-06B").month_day_bytes(), None);
}

#[test]
fn parents_and_containment() {
    let day = key("5784-06B-14");
    assert_eq!(day.parent(), Some(key("5784-06B")));
    assert_eq!(key("5784-06B").parent(), Some(key("5784")));
    assert_eq!(key("5784").parent(), None);
    assert!(key("5784").contains(&day));
    assert!(key("5784-06B").contains(&day));
    assert!(!key("5784-06A").contains(&day));
    assert!(!key("5785").contains(&day));
}

#[test]
fn month_days_of_any_year() {
    assert_eq!(
        DateKey::parse_month_day("06B-14").unwrap(),
        (Month::AdarII, 14)
    );
    assert_eq!(
        DateKey::parse_month_day("02-30").unwrap(),
        (Month::Cheshvan, 30)
    );
    assert!(DateKey::parse_month_day("04-30").is_err());
    assert!(DateKey::parse_month_day("13-01").is_err());
    assert!(DateKey::parse_month_day("0101").is_err());
}

/// Every valid day key of a year, built from ICU's month lengths.
fn days_of_year(year: u16) -> Vec<DateKey> {
    Month::ALL
        .into_iter()
        .filter_map(|m| Some((m, days_in_month(year, m)?)))
        .flat_map(|(m, n)| (1..=n).map(move |d| DateKey::new(year, Some(m), Some(d)).unwrap()))
        .collect()
}

proptest! {
    #[test]
    fn every_day_of_a_year_roundtrips_in_calendar_order(year in MIN_YEAR..=MAX_YEAR) {
        let days = days_of_year(year);
        prop_assert!((353..=385).contains(&days.len()), "{} days in {}", days.len(), year);
        for k in &days {
            prop_assert_eq!(DateKey::parse(&k.to_string()).unwrap(), *k);
        }
        let gregorian: Vec<_> = days.iter().map(|k| k.to_gregorian().unwrap()).collect();
        for (pair, g) in days.windows(2).zip(gregorian.windows(2)) {
            prop_assert!(pair[0] < pair[1]);
            prop_assert!(g[0] < g[1], "{} and {} out of order in gregorian", pair[0], pair[1]);
        }
    }

    #[test]
    fn order_agrees_with_the_calendar(
        a in (MIN_YEAR + 1..MAX_YEAR, 0usize..400),
        b in (MIN_YEAR + 1..MAX_YEAR, 0usize..400),
    ) {
        let pick = |(y, i): (u16, usize)| {
            let days = days_of_year(y);
            days[i % days.len()]
        };
        let (a, b) = (pick(a), pick(b));
        prop_assert_eq!(a.cmp(&b), a.to_gregorian().unwrap().cmp(&b.to_gregorian().unwrap()));
        prop_assert_eq!(a.cmp(&b), a.sort_bytes().cmp(&b.sort_bytes()));
    }

    #[test]
    fn gregorian_roundtrip(year in MIN_YEAR + 1..MAX_YEAR, i in 0usize..400) {
        let days = days_of_year(year);
        let k = days[i % days.len()];
        let (gy, gm, gd) = k.to_gregorian().unwrap();
        prop_assert_eq!(DateKey::from_gregorian(gy, gm, gd), Some(k));
    }

    #[test]
    fn arbitrary_text_never_panics(s in "[0-9A-Z-]{0,14}") {
        if let Ok(k) = DateKey::parse(&s) {
            prop_assert_eq!(k.to_string(), s);
        }
    }

    #[test]
    fn any_text_is_a_key_or_a_date_key_error(s in "\\PC{0,20}") {
        match DateKey::parse(&s) {
            Ok(k) => prop_assert_eq!(DateKey::parse(&k.to_string()), Ok(k)),
            Err(e) => prop_assert!(matches!(e, SchemaError::DateKey { .. }), "{e:?}"),
        }
        if let Err(e) = DateKey::parse_month_day(&s) {
            prop_assert!(matches!(e, SchemaError::DateKey { .. }), "{e:?}");
        }
    }
}

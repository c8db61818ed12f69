//! `GET /v1/dates/parse` end to end: Hebrew, English and Gregorian dates read into keys and
//! written back, days written as their letter's name (`יו״ד שבט`), partial dates, Adar in leap and common years, the length limit at its edge, and
//! the `400 bad-request` answers with their reasons.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::http::{Reply, enc};
use serde_json::json;

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(Shared::start_demo)
}

async fn parse(q: &str) -> Reply {
    s().anon()
        .get(&format!("/v1/dates/parse?q={}", enc(q)))
        .await
}

#[tokio::test]
async fn a_hebrew_date_in_letters_is_read_and_written_back() {
    for q in [
        "י״ט כסלו תשמ״ט",
        "י\"ט בכסלו ה'תשמ\"ט",
        "19 Kislev 5749",
        "Kislev 19, 5749",
    ] {
        let body = parse(q).await.expect(200).json();
        assert_eq!(
            body,
            json!({ "key": "5749-03-19", "he": "י״ט כסלו תשמ״ט", "en": "19 Kislev 5749" }),
            "{q}"
        );
    }
}

#[tokio::test]
async fn partial_dates_are_months_and_years() {
    let body = parse("Kislev 5749").await.expect(200).json();
    assert_eq!(
        body,
        json!({ "key": "5749-03", "he": "כסלו תשמ״ט", "en": "Kislev 5749" })
    );
    let body = parse("ה׳תשמ״ט").await.expect(200).json();
    assert_eq!(body, json!({ "key": "5749", "he": "תשמ״ט", "en": "5749" }));
}

#[tokio::test]
async fn gregorian_dates_answer_the_hebrew_day() {
    for q in ["December 17, 1988", "17 December 1988", "1988-12-17"] {
        let body = parse(q).await.expect(200).json();
        assert_eq!(
            body,
            json!({ "key": "5749-04-09", "he": "ט׳ טבת תשמ״ט", "en": "9 Teves 5749" }),
            "{q}"
        );
    }
    let body = parse("March 24, 2024").await.expect(200).json();
    assert_eq!(body["key"], "5784-06B-14");
    assert_eq!(body["he"], "י״ד אדר ב׳ תשפ״ד");
    assert_eq!(body["en"], "14 Adar II 5784");
}

#[tokio::test]
async fn a_day_written_as_its_letters_name_is_that_day() {
    let cases = [
        (
            "יו״ד שבט תש״י",
            json!({ "key": "5710-05-10", "he": "י׳ שבט תש״י", "en": "10 Shevat 5710" }),
        ),
        (
            "ביו\"ד שבט ה'תשי\"א",
            json!({ "key": "5711-05-10", "he": "י׳ שבט תשי״א", "en": "10 Shevat 5711" }),
        ),
        (
            "יוד כסלו תקפ״ז",
            json!({ "key": "5587-03-10", "he": "י׳ כסלו תקפ״ז", "en": "10 Kislev 5587" }),
        ),
        (
            "כ״ף מר-חשון תרכ״א",
            json!({ "key": "5621-02-20", "he": "כ׳ חשון תרכ״א", "en": "20 Cheshvan 5621" }),
        ),
        (
            "כ\"ף מנחם-אב תש\"ד",
            json!({ "key": "5704-11-20", "he": "כ׳ אב תש״ד", "en": "20 Av 5704" }),
        ),
    ];
    for (q, expected) in cases {
        assert_eq!(parse(q).await.expect(200).json(), expected, "{q}");
    }
    // Names no one writes for a day, letters that only sum to one, and a name as a year.
    let refused = [
        (
            "ה״א טבת תשמ״ט",
            "the name of the letter ה, which days are not written with: write ה׳",
        ),
        (
            "ה״ה כסלו תשמ״ט",
            "\"ה״ה\" is not how a day is written: 10 is י׳",
        ),
        (
            "יו״ד",
            "names the letter י, which is written for a day (10), not a year",
        ),
    ];
    for (q, why) in refused {
        let message = parse(q).await.expect_error(400, "bad-request");
        assert!(message.contains(why), "{q}: {message}");
    }
}

#[tokio::test]
async fn adar_follows_the_year() {
    let body = parse("אדר שני תשפ״ד").await.expect(200).json();
    assert_eq!(body["key"], "5784-06B");
    let message = parse("14 Adar 5784").await.expect_error(400, "bad-request");
    assert!(
        message.contains("5784 is a leap year: say Adar I (06A) or Adar II (06B)"),
        "{message}"
    );
    let message = parse("14 Adar II 5785")
        .await
        .expect_error(400, "bad-request");
    assert!(
        message.ends_with("5785 is not a leap year: say Adar"),
        "{message}"
    );
}

#[tokio::test]
async fn text_that_is_no_date_is_400_with_the_reason() {
    let head = s().anon().get_json("/v1").await["head"].clone();
    let cases = [
        ("19 Kislevv 5749", "\"kislevv\" is not a month"),
        ("30 Kislev 5749", "Kislev 5749 has 29 days"),
        ("Kislev", "Kislev has no year"),
        ("February 30, 1988", "February 1988 has no day 30"),
        ("December 1988", "spans two Hebrew months"),
        ("hello", "\"hello\" is not a month"),
    ];
    for (q, why) in cases {
        let message = parse(q).await.expect_error(400, "bad-request");
        assert!(message.contains(why), "{q}: {message}");
        assert!(
            message.contains(&format!("{q:?}")),
            "the message names the text: {message}"
        );
    }
    // reading writes nothing
    assert_eq!(s().anon().get_json("/v1").await["head"], head);
}

#[tokio::test]
async fn q_is_required() {
    for path in ["/v1/dates/parse", "/v1/dates/parse?q="] {
        let message = s().anon().get(path).await.expect_error(400, "bad-request");
        assert_eq!(message, "query parameter q is required");
    }
}

#[tokio::test]
async fn q_is_at_most_200_characters() {
    let date = "י״ט כסלו תשמ״ט";
    let fill = |n: usize| format!("{}{date}", " ".repeat(n - date.chars().count()));
    let body = parse(&fill(200)).await.expect(200).json();
    assert_eq!(body["key"], "5749-03-19");
    let message = parse(&fill(201)).await.expect_error(400, "bad-request");
    assert!(
        message.contains("201 characters is more than the 200"),
        "{message}"
    );
}

#[tokio::test]
async fn the_route_is_in_the_openapi_document() {
    let doc = s().anon().get_json("/openapi.json").await;
    let op = &doc["paths"]["/v1/dates/parse"]["get"];
    assert_eq!(op["parameters"][0]["name"], "q");
    assert!(op["responses"]["200"]["content"]["application/json"]["schema"].is_object());
    assert!(op["responses"]["400"].is_object());
}

//! The issue list (filters, counts, cursor, deprecated `before`) and the thread search.

use serde_json::json;

use crate::common;
use crate::common::flow::first_of;
use crate::common::http::enc;
use crate::{counts, handle, number, numbers, open, s, suggestion_with};

#[tokio::test]
async fn the_list_filters_counts_and_pages() {
    let me = s().token("lister");
    let who = handle("lister");
    let anon = s().anon();
    let work = first_of(&anon, "work").await;
    let work_id = work["id"].as_str().expect("work id").to_string();
    let blurry = json!({
        "title": "Blurry scan",
        "type": "bad-scan",
        "entityId": work_id,
        "body": "page 12 is BLURRED",
    });
    let a = number(&open(&me, blurry).await);
    let b = number(&open(&me, json!({ "title": "a wrong date" })).await);
    let c = number(
        &open(
            &me,
            json!({ "title": "a missing page", "type": "missing-page" }),
        )
        .await,
    );
    me.post(
        &format!("/v1/issues/{c}/state"),
        &json!({ "state": "not_planned" }),
    )
    .await
    .expect(200);
    let list = |query: String| {
        let anon = anon.clone();
        let who = who.clone();
        async move {
            anon.get_json(&format!("/v1/issues?author={}&{query}", enc(&who)))
                .await
        }
    };

    let open_list = list(String::new()).await;
    assert_eq!(numbers(&open_list), [b, a], "open by default, newest first");
    assert_eq!(counts(&open_list), (2, 1));
    assert_eq!(numbers(&list("state=closed".into()).await), [c]);
    assert_eq!(numbers(&list("state=all".into()).await), [c, b, a]);
    assert_eq!(numbers(&list("state=all&type=bad-scan".into()).await), [a]);
    assert_eq!(
        numbers(&list(format!("state=all&entity={work_id}")).await),
        [a]
    );
    let words = list("state=all&q=blurred+PAGE".into()).await;
    assert_eq!(numbers(&words), [a], "words in title or body, any case");
    assert_eq!(counts(&words), (1, 0));
    assert_eq!(numbers(&list(format!("state=all&q=%23{b}")).await), [b]);
    assert!(numbers(&list("state=all&q=nowhere+words".into()).await).is_empty());
    let entity_anyone = anon
        .get_json(&format!("/v1/issues?state=all&entity={work_id}"))
        .await;
    assert!(numbers(&entity_anyone).contains(&a));

    let first = anon
        .get(&format!(
            "/v1/issues?author={}&state=all&limit=2",
            enc(&who)
        ))
        .await
        .expect(200);
    assert_eq!(numbers(&first.json()), [c, b]);
    let cursor = first.next_cursor().expect("a second page");
    assert!(
        first
            .header_all("link")
            .contains(&format!("cursor={cursor}"))
    );
    assert!(first.header("deprecation").is_none());
    let second = anon
        .get(&format!(
            "/v1/issues?author={}&state=all&limit=2&cursor={cursor}",
            enc(&who)
        ))
        .await
        .expect(200);
    assert_eq!(numbers(&second.json()), [a]);
    assert!(second.next_cursor().is_none());
    assert_eq!(counts(&second.json()), (2, 1));
    // The deprecated `before` means the same as `cursor`, and says it is deprecated.
    let old = anon
        .get(&format!(
            "/v1/issues?author={}&state=all&limit=2&before={cursor}",
            enc(&who)
        ))
        .await
        .expect(200);
    assert_eq!(numbers(&old.json()), [a]);
    assert!(
        old.header("deprecation")
            .is_some_and(|d| d.starts_with('@')),
        "{:?}",
        old.headers
    );
    assert!(old.header("sunset").is_some());
    // A cursor belongs to its filters.
    anon.get(&format!(
        "/v1/issues?author={}&state=open&limit=2&cursor={cursor}",
        enc(&who)
    ))
    .await
    .expect_error(400, "bad-request");

    assert_eq!(numbers(&list("state=all&limit=100".into()).await).len(), 3);
    assert_eq!(numbers(&list("state=all&limit=1".into()).await), [c]);
    for query in [
        "limit=0",
        "limit=101",
        "state=pending",
        "type=bug",
        "entity=nope",
        "author=-x-",
        "cursor=garbage",
    ] {
        anon.get(&format!("/v1/issues?{query}"))
            .await
            .expect_error(400, "bad-request");
    }
    let nobody = anon
        .get_json("/v1/issues?state=all&author=nobody-has-this")
        .await;
    assert_eq!((numbers(&nobody).len(), counts(&nobody)), (0, (0, 0)));
}

#[tokio::test]
async fn threads_are_found_by_number_and_words() {
    let me = s().token("author");
    let word = common::unique("zebra");
    let issue = number(&open(&me, json!({ "title": format!("the {word} scan") })).await);
    let (_, sugg) = suggestion_with(&me, "nothing to close").await;
    let anon = s().anon();

    let by_number = anon.get_json(&format!("/v1/threads?q=%23{issue}")).await;
    assert_eq!(by_number["items"][0]["number"], issue);
    assert_eq!(by_number["items"][0]["kind"], "issue");
    let plain = anon.get_json(&format!("/v1/threads?q={sugg}")).await;
    assert_eq!(plain["items"][0]["number"], sugg);
    assert_eq!(plain["items"][0]["kind"], "suggestion");
    assert_eq!(plain["items"][0]["state"], "open");
    let by_words = anon
        .get_json(&format!("/v1/threads?q={}+SCAN", enc(&word.to_uppercase())))
        .await;
    assert_eq!(
        by_words["items"].as_array().map(Vec::len),
        Some(1),
        "{by_words}"
    );
    assert_eq!(by_words["items"][0]["title"], format!("the {word} scan"));

    let newest = anon.get_json("/v1/threads?limit=20").await;
    assert!(
        newest["items"]
            .as_array()
            .is_some_and(|i| !i.is_empty() && i.len() <= 20)
    );
    assert_eq!(
        anon.get_json("/v1/threads?limit=1").await["items"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    for query in ["limit=0", "limit=21", "limit=x"] {
        anon.get(&format!("/v1/threads?{query}"))
            .await
            .expect_error(400, "bad-request");
    }
}

/// Every issue number of `query`, walked `limit` at a time with `next`.
async fn walked(api: &common::http::Api, query: &str, limit: usize) -> Vec<u64> {
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let path = format!(
            "/v1/issues?{query}&limit={limit}{}",
            cursor
                .as_ref()
                .map(|c| format!("&cursor={c}"))
                .unwrap_or_default()
        );
        let reply = api.get(&path).await.expect(200);
        out.extend(numbers(&reply.json()));
        match reply.next_cursor() {
            Some(next) => cursor = Some(next),
            None => return out,
        }
    }
    panic!("{query}: the cursor never ends");
}

#[tokio::test]
async fn walking_the_cursor_gives_each_issue_once_and_counts_follow_states() {
    let me = s().token("pager");
    let who = enc(&handle("pager"));
    let anon = s().anon();
    let mut made = Vec::new();
    for n in 0..5 {
        made.push(number(
            &open(&me, json!({ "title": format!("paged issue {n}") })).await,
        ));
    }
    me.post(
        &format!("/v1/issues/{}/state", made[1]),
        &json!({ "state": "completed" }),
    )
    .await
    .expect(200);
    made.reverse();
    for limit in [1, 2, 100] {
        assert_eq!(
            walked(&anon, &format!("author={who}&state=all"), limit).await,
            made,
            "by {limit}"
        );
    }
    let open_ones: Vec<u64> = made.iter().copied().filter(|n| *n != made[3]).collect();
    assert_eq!(walked(&anon, &format!("author={who}"), 1).await, open_ones);
    assert_eq!(
        walked(&anon, &format!("author={who}&state=closed"), 1).await,
        [made[3]]
    );
    assert_eq!(
        walked(&anon, &format!("author={who}&state=all&q=paged+issue"), 2).await,
        made
    );
    let list = anon
        .get_json(&format!("/v1/issues?author={who}&state=closed"))
        .await;
    assert_eq!(counts(&list), (4, 1));

    // A cursor altered anywhere is refused.
    let first = anon
        .get(&format!("/v1/issues?author={who}&state=all&limit=1"))
        .await
        .expect(200);
    let cursor = first.next_cursor().expect("a second page");
    let mut bytes = cursor.into_bytes();
    let last = bytes.len() - 1;
    bytes[last] = if bytes[last] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(bytes).expect("ascii");
    anon.get(&format!(
        "/v1/issues?author={who}&state=all&limit=1&cursor={tampered}"
    ))
    .await
    .expect_error(400, "bad-request");
}

/// Words no index holds are checked on at most EXAMINE_LIMIT (2,000) issues a request: a page
/// that meets the bound answers what it found with a `next` that goes on from there.
#[tokio::test]
async fn a_word_search_examines_a_bounded_number_of_issues_per_request() {
    const EXAMINE_LIMIT: usize = 2_000;
    let me = s().token("examiner");
    let who = enc(&handle("examiner"));
    let anon = s().anon();
    let word = common::unique("needle");
    let needle = number(&open(&me, json!({ "title": format!("the {word}") })).await);
    for n in 0..EXAMINE_LIMIT {
        open(&me, json!({ "title": format!("hay {n}") })).await;
    }
    let first = anon
        .get(&format!("/v1/issues?author={who}&q={word}"))
        .await
        .expect(200);
    assert!(
        numbers(&first.json()).is_empty(),
        "the needle is past the bound"
    );
    let cursor = first.next_cursor().expect("the examination goes on");
    let second = anon
        .get(&format!("/v1/issues?author={who}&q={word}&cursor={cursor}"))
        .await
        .expect(200);
    assert_eq!(numbers(&second.json()), [needle]);
    assert!(second.next_cursor().is_none());
    // An author's open list needs no examination: one page, with its counters.
    let page = anon
        .get_json(&format!("/v1/issues?author={who}&limit=100"))
        .await;
    assert_eq!(numbers(&page).len(), 100);
    assert_eq!(counts(&page), (EXAMINE_LIMIT as u64 + 1, 0));
}

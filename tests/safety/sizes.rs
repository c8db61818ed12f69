//! Sizes that multiply work: items per suggestion (5,000; 50,000 with a `bot:` token), items
//! one organize plan may change (1,000), and the review view, which lists 100 items a page.

use serde_json::{Value, json};

use crate::common::flow::{Put, approve, draft, merge, put, submit};
use crate::common::http::Api;
use crate::common::unique;
use crate::{person, s, topic};

const MAX_SUGGESTION_ITEMS: usize = 5_000;
const MAX_PLAN_ITEMS: usize = 1_000;
const REVIEW_VIEW_ITEMS: usize = 100;

/// Puts `n` new topics into draft `sid`, a few requests at a time; answers their ids.
async fn fill(api: &Api, sid: u64, tag: &str, n: usize) -> Vec<String> {
    let mut ids = Vec::with_capacity(n);
    let slugs: Vec<String> = (0..n).map(|i| format!("{tag}-{i}")).collect();
    for chunk in slugs.chunks(8) {
        let mut running = Vec::with_capacity(chunk.len());
        for slug in chunk {
            let (api, item) = (api.clone(), Put::new("topic", topic(slug)));
            running.push(tokio::spawn(async move { put(&api, sid, &item).await }));
        }
        for task in running {
            let r = task.await.expect("put task");
            ids.push(r.expect_ok().json()["id"].as_str().unwrap().to_string());
        }
    }
    ids
}

#[tokio::test]
async fn a_suggestion_holds_at_most_5000_items_and_a_bots_more() {
    let author = person("author");
    let bot = person("bot");
    let (mine, bots) = (
        draft(&author, "as many as may be").await,
        draft(&bot, "an import").await,
    );
    let tag = unique("many");
    let (people_tag, bot_tag) = (format!("{tag}-p"), format!("{tag}-b"));
    let (ids, _) = tokio::join!(
        fill(&author, mine, &people_tag, MAX_SUGGESTION_ITEMS),
        fill(&bot, bots, &bot_tag, MAX_SUGGESTION_ITEMS + 1),
    );

    // One past the cap is refused, naming it; a change to an item it holds is not one more.
    let message = put(
        &author,
        mine,
        &Put::new("topic", topic(&format!("{tag}-late"))),
    )
    .await
    .expect_error(400, "bad-request");
    assert!(message.contains("5000"), "{message}");
    put(
        &author,
        mine,
        &Put::change(&ids[0], topic(&format!("{tag}-changed"))),
    )
    .await
    .expect_ok();
    // Taking one out makes room for one more.
    put(&author, mine, &Put::delete(&ids[1])).await.expect_ok();
    put(
        &author,
        mine,
        &Put::new("topic", topic(&format!("{tag}-room"))),
    )
    .await
    .expect_ok();

    // The review view lists 100 items a page, in id order, and says how many there are.
    let mut seen = Vec::new();
    let mut path = format!("/v1/suggestions/{mine}");
    let mut pages = 0;
    loop {
        let view = author.get_json(&path).await;
        assert_eq!(
            view["itemCount"], MAX_SUGGESTION_ITEMS,
            "{}",
            view["itemCount"]
        );
        let items = view["items"].as_array().unwrap();
        let changes = view["changes"].as_array().unwrap();
        assert!(items.len() <= REVIEW_VIEW_ITEMS && items.len() == changes.len());
        seen.extend(items.iter().map(|i| i["id"].as_str().unwrap().to_string()));
        pages += 1;
        match view["nextItems"].as_str() {
            Some(after) => path = format!("/v1/suggestions/{mine}?after={after}"),
            None => break,
        }
        if pages == 3 {
            break;
        }
    }
    assert_eq!(seen.len(), 3 * REVIEW_VIEW_ITEMS);
    let mut sorted = seen.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), seen.len(), "pages overlap");
    author
        .get(&format!("/v1/suggestions/{mine}?after=nonsense"))
        .await
        .expect_error(400, "bad-request");

    // The bot's draft holds one more than a person's may.
    let view = bot.get_json(&format!("/v1/suggestions/{bots}")).await;
    assert_eq!(view["itemCount"], MAX_SUGGESTION_ITEMS + 1);
}

/// A set of the steward's and `n` topics merged.
async fn topics(n: usize) -> (String, Vec<String>) {
    let st = s().steward();
    let tag = unique("plan");
    let set = merge(
        &st,
        "a set to organize into",
        &[Put::new(
            "set",
            json!({ "name": { "he": "אוסף", "en": tag }, "slug": tag }),
        )],
    )
    .await
    .ids
    .remove(0);
    let sid = draft(&st, "topics to organize").await;
    let ids = fill(&st, sid, &tag, n).await;
    submit(&st, sid).await.expect(200);
    let merged = approve(&st, sid).await.expect(200).json();
    assert_eq!(merged["status"], "merged", "{merged}");
    (set, ids)
}

fn plan(set: &str, ids: &[String]) -> Value {
    let operations: Vec<Value> = ids
        .chunks(500)
        .map(|chunk| json!({ "op": "move", "items": chunk, "to": set }))
        .collect();
    json!({ "operations": operations, "description": "Gather the topics\nThey belong together." })
}

#[tokio::test]
async fn an_organize_plan_changes_at_most_1000_items() {
    let (set, ids) = topics(MAX_PLAN_ITEMS + 1).await;
    let st = s().steward();

    let at_cap = st
        .post("/v1/organize/preview", &plan(&set, &ids[..MAX_PLAN_ITEMS]))
        .await
        .expect(200)
        .json();
    assert_eq!(
        at_cap["items"].as_array().map(Vec::len),
        Some(MAX_PLAN_ITEMS),
        "preview at the cap"
    );

    let past = plan(&set, &ids);
    for path in ["/v1/organize/preview", "/v1/organize"] {
        let r = st.post(path, &past).await;
        let message = r.expect_error(400, "bad-request");
        assert!(message.contains("1000 items"), "{path}: {message}");
        let detail = &r.json()["detail"];
        assert_eq!(detail["operation"], 2, "{path}: {detail}");
        assert_eq!(detail["field"], "items", "{path}: {detail}");
    }
    // Nothing was saved: the last topic is in no set.
    let last = st
        .get_json(&format!("/v1/entities/{}", ids[MAX_PLAN_ITEMS]))
        .await;
    assert!(last["data"].get("sets").is_none(), "{last}");
}

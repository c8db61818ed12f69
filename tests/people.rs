//! People end to end: finding people to mention (handle prefix, part of a name, ids, a
//! conversation's people first, limits), a person's page (counts that move, activity, a private
//! issue hidden from others, paging), and handle changes (the steward route and the command
//! line): the old handle answers with `movedFrom`, the new one shows the earlier activity, a
//! renamed keeper still approves in their set, and the old handle is never given to anyone else.

mod common;

use std::sync::OnceLock;

use catalog_workflow::{MAX_FORMER_HANDLES, MAX_HANDLE_ENTRIES, MAX_THREAD_PEOPLE};
use common::flow::{Put, approve, create, propose};
use common::http::{Api, enc};
use common::openapi::documented;
use common::{DataDir, GENEROUS_RATE, Shared};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["pager", "renamed", "keeper", "author", "stranger"]);
            dir.add_reader(extra);
            // Three handles sharing a prefix: `a` and `t` take no part in `z`'s suggestion
            // until `t` comments on it.
            let prefix = common::unique("pq");
            for tag in ["a", "t", "z"] {
                let handle = format!("{prefix}{tag}");
                extra.insert(format!("pq-{tag}"), dir.person(&handle, false));
                extra.insert(format!("pq-{tag}-handle"), handle);
            }
            extra.insert("pq-prefix".into(), prefix);
            // A name to find by a part of it.
            let named = common::unique("named");
            let word = format!("quillfeather{}", common::unique("w").replace('-', ""));
            dir.cli_ok(
                &[
                    "account",
                    "add",
                    &named,
                    "--name",
                    &format!("Menucha {word} Levi"),
                ],
                None,
            );
            extra.insert("named-handle".into(), named);
            extra.insert("named-word".into(), word);
            // The handle-prefix cap: `edge-first`, eighteen `edge-aNN` to be renamed ten times
            // each, then `edge-target`, all under one prefix, named without it.
            let edge = common::unique("hk");
            let mut add = |role: String, handle: String| {
                dir.cli_ok(&["account", "add", &handle, "--name", "Edge Person"], None);
                extra.insert(format!("{role}-handle"), handle);
            };
            add("edge-first".into(), format!("{edge}0a"));
            for k in 0..EDGE_RENAMED {
                add(format!("edge-a{k:02}"), format!("{edge}a{k:02}r0"));
            }
            add("edge-target".into(), format!("{edge}t"));
            extra.insert("edge-prefix".into(), edge);
            // The thread cap: the 500th and the 501st comment of a conversation.
            dir.add_people(extra, &["threader", "c500", "c501"]);
        })
    })
}

/// Accounts renamed to the most handles they may leave behind, for the handle-prefix cap.
const EDGE_RENAMED: usize = 18;

fn handle(role: &str) -> String {
    s().handle(role)
}

fn handles(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .unwrap_or_else(|| panic!("no items: {list}"))
        .iter()
        .map(|p| p["handle"].as_str().expect("handle").to_string())
        .collect()
}

fn topic(sets: Value) -> Put {
    let slug = common::unique("people");
    Put::new(
        "topic",
        json!({ "name": { "he": "נושא", "en": slug }, "slug": slug, "sets": sets }),
    )
}

#[tokio::test]
async fn people_are_found_by_handle_prefix_and_by_part_of_their_name() {
    let anon = s().anon();
    let prefix = s().extra["pq-prefix"].clone();
    let found = anon
        .get_json(&format!("/v1/people?q=@{}", enc(&prefix)))
        .await;
    assert_eq!(
        handles(&found),
        vec![handle("pq-a"), handle("pq-t"), handle("pq-z")],
        "handles starting with the prefix, in handle order"
    );
    let first = &found["items"][0];
    for field in ["id", "handle", "name", "steward", "trusted"] {
        assert!(first.get(field).is_some(), "no {field}: {first}");
    }
    assert_eq!(first["steward"], false);

    let word = &s().extra["named-word"];
    let by_name = anon
        .get_json(&format!(
            "/v1/people?q={}",
            enc(&word[3..word.len() - 2].to_uppercase())
        ))
        .await;
    assert_eq!(
        handles(&by_name),
        vec![handle("named")],
        "a part of the name, any case"
    );
    let spaced = anon
        .get_json(&format!("/v1/people?q={}", enc(&format!("{word}   levi"))))
        .await;
    assert_eq!(
        handles(&spaced),
        vec![handle("named")],
        "white space runs fold"
    );
    // Handles match from their start only (this person's name does not hold "amed").
    let named = handle("named");
    let none = anon
        .get_json(&format!("/v1/people?q={}", enc(&named[1..5])))
        .await;
    assert!(!handles(&none).contains(&named), "{none}");
}

#[tokio::test]
async fn ids_say_who_each_is_and_are_capped() {
    let anon = s().anon();
    let prefix = s().extra["pq-prefix"].clone();
    let found = anon.get_json(&format!("/v1/people?q={prefix}")).await;
    let ids: Vec<u64> = found["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|p| p["id"].as_u64().expect("id"))
        .collect();
    let asked = format!("{},{},999999999,{}", ids[2], ids[0], ids[1]);
    let who = anon.get_json(&format!("/v1/people?ids={asked}")).await;
    assert_eq!(
        handles(&who),
        vec![handle("pq-z"), handle("pq-a"), handle("pq-t")],
        "in the order asked, ids nobody holds left out"
    );

    let hundred: Vec<String> = (1..=100).map(|n| n.to_string()).collect();
    anon.get(&format!("/v1/people?ids={}", hundred.join(",")))
        .await
        .expect(200);
    let many: Vec<String> = (1..=101).map(|n| n.to_string()).collect();
    let r = anon
        .get(&format!("/v1/people?ids={}", many.join(",")))
        .await;
    let message = r.expect_error(400, "bad-request");
    assert!(message.contains("ids"), "{message}");
    assert_eq!(r.json()["detail"]["max"], 100);
    anon.get("/v1/people?ids=1,x")
        .await
        .expect_error(400, "bad-request");
    anon.get("/v1/people?ids=1&q=a")
        .await
        .expect_error(400, "bad-request");
}

#[tokio::test]
async fn a_conversations_people_come_first() {
    let author = s().token("pq-z");
    let (sid, _) = propose(&author, "people of a thread", &[topic(json!([]))]).await;
    s().token("pq-t")
        .post(
            &format!("/v1/suggestions/{sid}/comments"),
            &json!({ "body": "a comment" }),
        )
        .await
        .expect(201);
    let anon = s().anon();
    let prefix = s().extra["pq-prefix"].clone();
    let list = anon
        .get_json(&format!("/v1/people?q={prefix}&thread=changeset:{sid}"))
        .await;
    assert_eq!(
        handles(&list),
        vec![handle("pq-z"), handle("pq-t"), handle("pq-a")],
        "the author, then the commenter, then the rest"
    );
    // Without q: the conversation's people alone.
    let only = anon
        .get_json(&format!("/v1/people?thread=changeset:{sid}"))
        .await;
    assert_eq!(handles(&only), vec![handle("pq-z"), handle("pq-t")]);
    // The limit cuts the whole list.
    let one = anon
        .get_json(&format!(
            "/v1/people?q={prefix}&thread=changeset:{sid}&limit=1"
        ))
        .await;
    assert_eq!(handles(&one), vec![handle("pq-z")]);
    for bad in ["entity:cat-00000001", "changeset:x", "nonsense"] {
        anon.get(&format!("/v1/people?thread={}", enc(bad)))
            .await
            .expect_error(400, "bad-request");
    }
    anon.get("/v1/people?thread=changeset:99999999")
        .await
        .expect_error(404, "not-found");
}

#[tokio::test]
async fn limits_and_unknown_parameters_are_refused() {
    let anon = s().anon();
    for query in ["limit=0", "limit=21", "limit=x", "colour=red", "cursor=abc"] {
        anon.get(&format!("/v1/people?{query}"))
            .await
            .expect_error(400, "bad-request");
    }
    anon.get("/v1/people?limit=20&q=a").await.expect(200);
    anon.get("/v1/people?limit=1&q=a").await.expect(200);
    let page = format!("/v1/people/{}", handle("pager"));
    for query in ["limit=0", "limit=101", "colour=red", "cursor=abc"] {
        anon.get(&format!("{page}?{query}"))
            .await
            .expect_error(400, "bad-request");
    }
    let whole = anon.get(&format!("{page}?limit=100")).await.expect(200);
    let etag = whole.header("etag").expect("an ETag");
    anon.get_with(&format!("{page}?limit=100"), &[("if-none-match", &etag)])
        .await
        .expect(304);
    let list = anon.get("/v1/people?q=a").await.expect(200);
    let etag = list.header("etag").expect("an ETag");
    anon.get_with("/v1/people?q=a", &[("if-none-match", &etag)])
        .await
        .expect(304);
    anon.get("/v1/people/nobody-has-this-handle")
        .await
        .expect_error(404, "not-found");
    anon.get("/v1/people/not%20a%20handle")
        .await
        .expect_error(400, "bad-request");
}

#[tokio::test]
async fn a_handle_prefix_search_examines_two_hundred_handle_keys() {
    assert_eq!(
        1 + EDGE_RENAMED * (MAX_FORMER_HANDLES + 1),
        MAX_HANDLE_ENTRIES - 1,
        "the keys before the target's"
    );
    let steward = s().steward();
    let prefix = s().extra["edge-prefix"].clone();
    // Eighteen people with eleven handles each (ten left behind): 198 keys, after the one of
    // `edge-first` and before `edge-target`'s.
    for k in 0..EDGE_RENAMED {
        let base = handle(&format!("edge-a{k:02}"));
        let base = base.strip_suffix("r0").expect("a first handle");
        for j in 0..MAX_FORMER_HANDLES {
            steward
                .post(
                    &format!("/v1/admin/accounts/{base}r{j}/rename"),
                    &json!({ "handle": format!("{base}r{}", j + 1) }),
                )
                .await
                .expect(200);
        }
    }
    let search = format!("/v1/people?q={}&limit=20", enc(&prefix));
    let target = handle("edge-target");
    // 199 keys before it: the target's is the 200th examined.
    let found = handles(&s().anon().get_json(&search).await);
    assert_eq!(found.len(), 20, "{found:?}");
    assert_eq!(found.last(), Some(&target), "{found:?}");
    assert_eq!(found[0], handle("edge-first"));
    // One key more before it (`edge-first` renamed): the target's is the 201st, not examined.
    let first = handle("edge-first");
    let moved = format!("{prefix}0b");
    steward
        .post(
            &format!("/v1/admin/accounts/{first}/rename"),
            &json!({ "handle": moved }),
        )
        .await
        .expect(200);
    let found = handles(&s().anon().get_json(&search).await);
    assert_eq!(found.len(), 19, "{found:?}");
    assert!(!found.contains(&target), "{found:?}");
    assert_eq!(
        found[0], moved,
        "found by either handle, shown by the one now"
    );
    // A narrower prefix reaches it at once.
    let narrow = handles(
        &s().anon()
            .get_json(&format!("/v1/people?q={}", enc(&target)))
            .await,
    );
    assert_eq!(narrow, vec![target]);
}

#[tokio::test]
async fn a_conversations_people_are_read_from_its_first_500_comments() {
    let author = s().token("threader");
    let (sid, _) = propose(&author, "a long conversation", &[topic(json!([]))]).await;
    let path = format!("/v1/suggestions/{sid}/comments");
    // The steward (whom the daily comment quota does not hold) writes the first 499.
    let steward = s().steward();
    for n in 1..MAX_THREAD_PEOPLE {
        steward
            .post(&path, &json!({ "body": format!("comment {n}") }))
            .await
            .expect(201);
    }
    for who in ["c500", "c501"] {
        s().token(who)
            .post(&path, &json!({ "body": format!("I am {who}") }))
            .await
            .expect(201);
    }
    let people = handles(
        &s().anon()
            .get_json(&format!("/v1/people?thread=changeset:{sid}&limit=20"))
            .await,
    );
    assert_eq!(
        people,
        vec![
            handle("threader"),
            s().steward_handle.clone(),
            handle("c500")
        ],
        "the 500th comment's author is read, the 501st's is not"
    );
    // Asked for by handle, the 501st's author is still found, after the thread's people.
    let asked = handles(
        &s().anon()
            .get_json(&format!(
                "/v1/people?thread=changeset:{sid}&q={}",
                enc(&handle("c501"))
            ))
            .await,
    );
    assert_eq!(asked, vec![handle("c501")]);
}

async fn counts(api: &Api, who: &str) -> Value {
    api.get_json(&format!("/v1/people/{who}")).await["counts"].clone()
}

#[tokio::test]
async fn a_persons_page_counts_what_they_do_and_hides_private_issues_from_others() {
    let me = s().token("pager");
    let who = handle("pager");
    let anon = s().anon();
    let before = counts(&anon, &who).await;
    assert_eq!(
        before,
        json!({ "suggestions": 0, "merged": 0, "issues": 0, "comments": 0, "reviews": 0 })
    );

    let (sid, _) = propose(&me, "a page's suggestion", &[topic(json!([]))]).await;
    let issue = me
        .post("/v1/issues", &json!({ "title": "a page's issue" }))
        .await
        .expect(201)
        .json();
    me.post(
        &format!("/v1/suggestions/{sid}/comments"),
        &json!({ "body": "my own note" }),
    )
    .await
    .expect(201);
    let after = counts(&anon, &who).await;
    assert_eq!(
        after,
        json!({ "suggestions": 1, "merged": 0, "issues": 1, "comments": 1, "reviews": 0 })
    );
    approve(&s().steward(), sid).await.expect(200);
    assert_eq!(counts(&anon, &who).await["merged"], 1);

    let private = me
        .post(
            "/v1/issues",
            &json!({ "title": "offensive words", "type": "offensive" }),
        )
        .await
        .expect(201)
        .json();
    assert_eq!(private["private"], true);

    let page = anon.get_json(&format!("/v1/people/{who}")).await;
    assert_eq!(page["handle"], who.as_str());
    assert!(page.get("movedFrom").is_none(), "{page}");
    let numbers = |page: &Value| -> Vec<u64> {
        page["activity"]
            .as_array()
            .expect("activity")
            .iter()
            .map(|a| a["number"].as_u64().expect("number"))
            .collect()
    };
    // Newest first: the issue was opened after the suggestion.
    assert_eq!(
        numbers(&page),
        vec![issue["number"].as_u64().unwrap(), sid_number(&page, sid)],
        "the private issue is not shown to an anonymous reader: {page}"
    );
    assert_eq!(page["counts"]["issues"], 1, "nor counted");
    for stranger in [s().token("stranger")] {
        let seen = stranger.get_json(&format!("/v1/people/{who}")).await;
        assert_eq!(numbers(&seen).len(), 2, "{seen}");
    }
    let own = me.get_json(&format!("/v1/people/{who}")).await;
    assert_eq!(
        numbers(&own)[0],
        private["number"].as_u64().unwrap(),
        "the reporter sees their private issue"
    );
    assert_eq!(own["counts"]["issues"], 2);
    let steward = s().steward().get_json(&format!("/v1/people/{who}")).await;
    assert_eq!(numbers(&steward).len(), 3);

    // One at a time, with a cursor and a Link.
    let first = me
        .get(&format!("/v1/people/{who}?limit=1"))
        .await
        .expect(200);
    let next = first.next_cursor().expect("a next cursor");
    assert!(
        first
            .header("link")
            .is_some_and(|l| l.contains("rel=\"next\""))
    );
    let second = me
        .get_json(&format!("/v1/people/{who}?limit=1&cursor={next}"))
        .await;
    assert_eq!(numbers(&second), vec![issue["number"].as_u64().unwrap()]);
    let third_cursor = second["next"].as_str().expect("next").to_string();
    let third = me
        .get_json(&format!("/v1/people/{who}?limit=1&cursor={third_cursor}"))
        .await;
    assert_eq!(third["activity"][0]["kind"], "suggestion");
    assert!(third["next"].is_null(), "{third}");
    // A cursor of another person's page is refused.
    anon.get(&format!("/v1/people/{}?cursor={next}", handle("stranger")))
        .await
        .expect_error(400, "bad-request");
}

/// The number of suggestion `sid` as the page shows it.
fn sid_number(page: &Value, sid: u64) -> u64 {
    page["activity"]
        .as_array()
        .expect("activity")
        .iter()
        .find(|a| a["kind"] == "suggestion" && a["id"] == sid)
        .and_then(|a| a["number"].as_u64())
        .unwrap_or_else(|| panic!("suggestion {sid} is not on the page: {page}"))
}

#[tokio::test]
async fn a_steward_renames_and_the_old_handle_keeps_finding_the_person() {
    let old = handle("renamed");
    let me = s().token("renamed");
    let (sid, _) = propose(&me, "before the rename", &[topic(json!([]))]).await;
    let new = common::unique("renewed");
    let path = format!("/v1/admin/accounts/{old}/rename");
    let body = json!({ "handle": new });

    s().token("stranger")
        .post(&path, &body)
        .await
        .expect_error(403, "forbidden");
    s().token("reader")
        .post(&path, &body)
        .await
        .expect_error(403, "forbidden");
    s().anon()
        .post(&path, &body)
        .await
        .expect_error(401, "unauthorized");
    s().steward()
        .post(&path, &json!({ "handle": "not a handle" }))
        .await
        .expect_error(400, "bad-request");
    s().steward()
        .post(&path, &json!({ "handle": handle("stranger") }))
        .await
        .expect_error(409, "conflict");
    let unchanged = s().anon().get_json(&format!("/v1/people/{old}")).await;
    assert!(
        unchanged.get("movedFrom").is_none(),
        "nothing was renamed yet: {unchanged}"
    );

    let renamed = s().steward().post(&path, &body).await.expect(200).json();
    assert_eq!(renamed["handle"], new.as_str());

    let by_old = s().anon().get_json(&format!("/v1/people/{old}")).await;
    assert_eq!(by_old["handle"], new.as_str());
    assert_eq!(by_old["movedFrom"], old.as_str());
    let by_new = s().anon().get_json(&format!("/v1/people/{new}")).await;
    assert!(by_new.get("movedFrom").is_none());
    assert_eq!(by_new["id"], renamed["id"]);
    assert_eq!(by_new["counts"]["suggestions"], 1, "{by_new}");
    assert_eq!(
        by_new["activity"][0]["id"], sid,
        "earlier activity: {by_new}"
    );

    // The old handle is the person's for good: nobody takes it, not even by renaming.
    s().steward()
        .post(
            &format!("/v1/admin/accounts/{}/rename", handle("stranger")),
            &json!({ "handle": old }),
        )
        .await
        .expect_error(409, "conflict");
    // Renaming by a former handle names the handle they have now.
    s().steward()
        .post(&path, &json!({ "handle": common::unique("again") }))
        .await
        .expect_error(400, "bad-request");
    // The search finds them by the old handle too, as they are now.
    let found = s().anon().get_json(&format!("/v1/people?q={old}")).await;
    assert_eq!(handles(&found), vec![new.clone()]);
    // Their token still writes, as the person with the new handle.
    me.post(
        &format!("/v1/suggestions/{sid}/comments"),
        &json!({ "body": "after the rename" }),
    )
    .await
    .expect(201);
    // An @old mention reaches them.
    s().token("stranger")
        .post(
            &format!("/v1/suggestions/{sid}/comments"),
            &json!({ "body": format!("asking @{old}") }),
        )
        .await
        .expect(201);
    let inbox = me.get_json("/v1/inbox?filter=mention").await;
    assert_eq!(inbox["items"].as_array().map(Vec::len), Some(1), "{inbox}");
}

#[tokio::test]
async fn a_renamed_keeper_still_approves_in_their_set() {
    let keeper = handle("keeper");
    let data = json!({
        "name": { "he": "אוסף" }, "slug": common::unique("people-set"), "keepers": [keeper]
    });
    let (set, _) = create(&s().steward(), "set", data).await;
    let new = common::unique("kept");
    s().steward()
        .post(
            &format!("/v1/admin/accounts/{keeper}/rename"),
            &json!({ "handle": new }),
        )
        .await
        .expect(200);
    let (sid, _) = propose(
        &s().token("author"),
        "in a kept set",
        &[topic(json!([set]))],
    )
    .await;
    // Asked to review by the handle they have now (keepers are asked on submit).
    let requests = s()
        .anon()
        .get_json(&format!("/v1/suggestions/{sid}/conversation"))
        .await;
    assert!(
        requests.to_string().contains(&new),
        "the keeper is asked as @{new}: {requests}"
    );
    let merged = approve(&s().token("keeper"), sid).await.expect(200).json();
    assert_eq!(merged["status"], "merged");
    // And the author may still not approve their own, renamed or not.
    let (own, _) = propose(&s().token("keeper"), "own", &[topic(json!([set]))]).await;
    approve(&s().token("keeper"), own)
        .await
        .expect_error(403, "forbidden");
}

#[test]
fn the_command_line_renames_and_never_gives_the_old_handle_away() {
    let dir = DataDir::new();
    let old = common::unique("cli-old");
    let new = common::unique("cli-new");
    let other = common::unique("cli-other");
    dir.add_account(&old, false, false, None);
    dir.add_account(&other, false, false, None);
    let out = dir.cli_ok(&["account", "rename", &old, &new], None);
    assert!(out.contains(&new), "{out}");
    let again = dir.cli(&["account", "add", &old]);
    assert!(!again.status.success(), "the old handle was given away");
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("taken"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let taken = dir.cli(&["account", "rename", &new, &other]);
    assert!(
        !taken.status.success(),
        "renamed onto someone else's handle"
    );
    let missing = dir.cli(&["account", "rename", "nobody-at-all", "somebody-new"]);
    assert!(!missing.status.success());

    let server = dir.start(&["--rate-limit-per-minute", GENEROUS_RATE]);
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let page = server.anon().get_json(&format!("/v1/people/{old}")).await;
        assert_eq!(page["handle"], new.as_str());
        assert_eq!(page["movedFrom"], old.as_str());
    });
}

#[tokio::test]
async fn the_routes_are_documented() {
    documented(
        &s().anon(),
        &[
            ("/v1/people", "get"),
            ("/v1/people/{username}", "get"),
            ("/v1/admin/accounts/{handle}/rename", "post"),
        ],
    )
    .await;
}

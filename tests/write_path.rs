//! The write path of issue 2, end to end: people and tokens made with the CLI,
//! draft → put → submit → approve, and the change visible at once in the
//! commit feed and every read route; keepers, quick fixes, refused approvals,
//! and tokens managed through the site session.

mod common;

use std::sync::OnceLock;

use common::Shared;
use common::flow::{
    Merged, Put, all_of, approve, change, commit_at, create, first_of, fresh_copy, head, item,
    list_all, merge_by, propose, put, session_cookie, submit,
};
use common::http::{Api, Auth, enc};
use serde_json::{Value, json};

const PASSWORD: &str = "correct horse battery staple";

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["plain", "keeper", "outsider"]);
            let signer = common::unique("signer");
            dir.add_account(&signer, false, false, Some(PASSWORD));
            extra.insert("signer".into(), signer);
        })
    })
}

fn handle(role: &str) -> String {
    s().handle(role)
}

fn id_of(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

async fn ids_at(api: &Api, path: &str) -> Vec<String> {
    list_all(api, path).await.iter().map(id_of).collect()
}

/// A new unit for `work`, copied from one of its units with a position of its own.
fn new_unit(template: &Value, n: u64) -> Value {
    let mut d = template["data"].clone();
    if let Some(pos) = d["position"].as_array_mut()
        && let Some(last) = pos.last_mut()
    {
        *last = if last.is_number() {
            json!(9000 + n)
        } else {
            json!(format!("t{n}"))
        };
    }
    d
}

async fn author_copy(slug: &str) -> Value {
    fresh_copy(&first_of(&s().anon(), "author").await["data"], slug)
}

#[tokio::test]
async fn a_suggestion_merges_and_every_read_route_shows_it_at_once() {
    let anon = s().anon();
    let steward = s().steward();
    let plain = s().token("plain");

    // Given a work with units, and two authors of our own.
    let works = all_of(&anon, "work").await;
    let work = works.first().expect("demo work").clone();
    let w = id_of(&work);
    let units = list_all(
        &anon,
        &format!("/v1/entities/{w}/children?field=work&type=unit"),
    )
    .await;
    let template = units.first().expect("demo work with units").clone();
    let slug_a = common::unique("story-a");
    let (a, _) = create(&steward, "author", author_copy(&slug_a).await).await;
    let (gone, _) = create(
        &steward,
        "author",
        author_copy(&common::unique("story-gone")).await,
    )
    .await;
    let old_path_a = item(&anon, &a).await["path"].as_str().unwrap().to_string();
    let mut event = first_of(&anon, "event").await["data"].clone();
    event["date"] = json!("5790-01-15");
    event["title"] = json!({ "he": "התוועדות בדיקה", "en": common::unique("story-event") });
    let stats_before = anon.get_json("/v1/stats").await;
    let head_before = head(&anon).await;

    // When a plain person proposes a new unit, a change, a new event and a delete...
    let mut changed_a = item(&anon, &a).await["data"].clone();
    changed_a["slug"] = json!(format!("{slug_a}-renamed"));
    let unit_data = new_unit(&template, 1);
    let (sid, ids) = propose(
        &plain,
        "the user story of issue 2",
        &[
            Put::new("unit", unit_data.clone()),
            Put::change(&a, changed_a.clone()),
            Put::new("event", event.clone()),
            Put::delete(&gone),
        ],
    )
    .await;
    let (u, e) = (ids[0].clone(), ids[2].clone());
    // Nothing is live before approval.
    anon.get(&format!("/v1/entities/{u}"))
        .await
        .expect_error(404, "not-found");
    // ...nobody but a steward or keeper may merge it, and a steward does.
    approve(&plain, sid).await.expect_error(403, "forbidden");
    let merged = approve(&steward, sid).await.expect(200).json();
    assert_eq!(merged["status"], "merged");
    let seq = merged["merged_commit"].as_u64().expect("merged_commit");
    // Other tests of this file merge at the same time, so only the order is known.
    assert!(seq > head_before, "merged at {seq}, before {head_before}");
    let got = anon.get_json(&format!("/v1/suggestions/{sid}")).await;
    assert_eq!(got["status"], "merged");
    assert_eq!(got["merged_commit"], seq);

    // Then the commit feed has one commit with every change...
    assert!(head(&anon).await >= seq);
    let c = commit_at(&anon, seq).await;
    assert_eq!(c["author"], handle("plain"));
    assert_eq!(c["mergedBy"], s().steward_handle);
    let changes = c["changes"].as_array().unwrap();
    let changed: Vec<String> = changes.iter().map(id_of).collect();
    for id in [&u, &a, &e, &gone] {
        assert!(
            changed.contains(id),
            "commit {seq} does not change {id}: {c}"
        );
    }
    let deletion = changes.iter().find(|ch| ch["id"] == gone.as_str()).unwrap();
    assert!(deletion["data"].is_null(), "a delete with data: {deletion}");

    // ...and every read route agrees at once.
    let unit = item(&anon, &u).await;
    assert_eq!(unit["data"], unit_data);
    assert_eq!(unit["type"], "unit");
    let upath = unit["path"]
        .as_str()
        .expect("new unit has a path")
        .to_string();
    assert!(
        upath.starts_with(work["path"].as_str().unwrap()),
        "unit path {upath}"
    );
    assert!(
        ids_at(&anon, "/v1/entities?type=unit&limit=500")
            .await
            .contains(&u)
    );
    assert!(
        ids_at(
            &anon,
            &format!("/v1/entities/{w}/children?field=work&type=unit")
        )
        .await
        .contains(&u)
    );
    let back = anon.get_json(&format!("/v1/entities/{w}/backlinks")).await;
    assert!(
        back["backlinks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["from"] == u.as_str()),
        "{back}"
    );
    let r = anon
        .get_json(&format!("/v1/resolve?path={}", enc(&upath)))
        .await;
    assert_eq!(r["id"], u.as_str());
    let new_a = item(&anon, &a).await;
    assert_eq!(new_a["data"], changed_a);
    let r = anon
        .get_json(&format!("/v1/resolve?path={}", enc(&old_path_a)))
        .await;
    assert_eq!(
        r,
        json!({ "id": a, "redirected": true, "path": new_a["path"] })
    );
    let ev = anon.get_json("/v1/events?dates=5790-01-15").await;
    assert!(
        ev["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["id"] == e.as_str()),
        "{ev}"
    );
    anon.get(&format!("/v1/entities/{gone}"))
        .await
        .expect_error(404, "not-found");
    assert!(
        !ids_at(&anon, "/v1/entities?type=author&limit=500")
            .await
            .contains(&gone)
    );
    let stats = anon.get_json("/v1/stats").await;
    assert!(stats["head"].as_u64().unwrap() >= seq);
    let count = |v: &Value, t: &str| v["counts"][t].as_u64().unwrap_or(0);
    assert_eq!(count(&stats, "unit"), count(&stats_before, "unit") + 1);
    assert_eq!(count(&stats, "event"), count(&stats_before, "event") + 1);
    let h = anon.get_json(&format!("/v1/entities/{a}/history")).await;
    let hist = h["history"].as_array().unwrap();
    assert_eq!(hist.len(), 2, "{h}");
    assert!(
        hist[0].to_string().contains("-renamed"),
        "newest first: {h}"
    );
}

#[tokio::test]
async fn keepers_approve_their_sets_and_others_may_not() {
    let anon = s().anon();
    let steward = s().steward();
    let plain = s().token("plain");
    let keeper = s().token("keeper");
    let outsider = s().token("outsider");

    let mut set = fresh_copy(
        &first_of(&anon, "set").await["data"],
        &common::unique("kept"),
    );
    set["keepers"] = json!([handle("keeper")]);
    set["policy"] = json!("reviewed");
    set.as_object_mut().unwrap().remove("parent");
    let (set_id, _) = create(&steward, "set", set.clone()).await;
    let mut data = author_copy(&common::unique("kept-author")).await;
    data["sets"] = json!([set_id]);
    let (b, _) = create(&steward, "author", data.clone()).await;

    data["note"] = json!("a keeper's review");
    let (sid, _) = propose(
        &plain,
        "change in a kept set",
        &[Put::change(&b, data.clone())],
    )
    .await;
    approve(&outsider, sid).await.expect_error(403, "forbidden");
    let m = approve(&keeper, sid).await.expect(200).json();
    assert_eq!(m["status"], "merged");
    assert_eq!(item(&anon, &b).await["data"], data);

    // A set itself is for stewards only, even to its keepers.
    let mut renamed = set.clone();
    renamed["name"] = json!({ "he": "שם אחר", "en": "another name" });
    let (sid, _) = propose(
        &plain,
        "rename a kept set",
        &[Put::change(&set_id, renamed)],
    )
    .await;
    approve(&keeper, sid).await.expect_error(403, "forbidden");
    still_open(&anon, sid).await;
    assert_eq!(item(&anon, &set_id).await["data"], set);
    approve(&steward, sid).await.expect(200);
}

#[tokio::test]
async fn a_quick_fix_is_one_open_suggestion_with_checks() {
    let anon = s().anon();
    let steward = s().steward();
    let (a, _) = create(
        &steward,
        "author",
        author_copy(&common::unique("quick")).await,
    )
    .await;
    let mut data = item(&anon, &a).await["data"].clone();
    data["note"] = json!("fixed quickly");
    let r = s()
        .token("plain")
        .post("/v1/suggestions/quick", &json!({ "entityId": a, "data": data, "title": "quick fix", "note": "seen in the printed edition" }))
        .await
        .expect_ok()
        .json();
    assert_eq!(r["status"], "open", "{r}");
    let checks = r["checks"]
        .as_array()
        .unwrap_or_else(|| panic!("quick fix without checks: {r}"));
    assert!(
        checks
            .iter()
            .any(|c| c["check"] == "schema" && c["status"] == "pass"),
        "{r}"
    );
    let sid = r["id"].as_u64().expect("suggestion id");
    assert_ne!(
        item(&anon, &a).await["data"],
        data,
        "a quick fix went live before approval"
    );
    approve(&steward, sid).await.expect(200);
    assert_eq!(item(&anon, &a).await["data"], data);
}

#[tokio::test]
async fn approving_an_item_that_fails_its_schema_is_invalid() {
    let anon = s().anon();
    let steward = s().steward();
    let event = first_of(&anon, "event").await["id"].clone();
    for (title, ty, data, pointer) in [
        (
            "a broken event",
            "event",
            json!({ "title": 12345, "date": "not a date" }),
            "/date",
        ),
        // A recording is something to hear: a file or a url.
        (
            "a recording of nothing",
            "recording",
            json!({ "event": event }),
            "/file",
        ),
        // Texts take the spec's four licences; none given means CC-BY-SA.
        (
            "a text under a fifth licence",
            "text",
            json!({ "kind": "original", "language": "he", "licence": "cc-by-sa" }),
            "/licence",
        ),
    ] {
        let sid = common::flow::draft(&steward, title).await;
        put(&steward, sid, &Put::new(ty, data)).await.expect_ok();
        let open = submit(&steward, sid).await.expect(200).json();
        let checks = open["checks"]
            .as_array()
            .unwrap_or_else(|| panic!("no checks: {open}"));
        let schema = checks
            .iter()
            .find(|c| c["check"] == "schema" && c["status"] == "fail")
            .unwrap_or_else(|| panic!("{title}: the schema check passed: {open}"));
        assert!(schema.to_string().contains(pointer), "{title}: {schema}");
        let r = approve(&steward, sid).await;
        r.expect_error(422, "invalid");
        assert!(
            r.json().get("detail").is_some(),
            "422 without detail: {}",
            r.text()
        );
        still_open(&anon, sid).await;
    }
}

/// A refused approval leaves the suggestion open and unmerged.
async fn still_open(anon: &Api, sid: u64) {
    let v = anon.get_json(&format!("/v1/suggestions/{sid}")).await;
    assert_eq!(v["status"], "open", "{v}");
    assert!(v["merged_commit"].is_null(), "{v}");
}

#[tokio::test]
async fn an_item_changed_after_it_was_put_conflicts() {
    let anon = s().anon();
    let steward = s().steward();
    let (a, _) = create(
        &steward,
        "author",
        author_copy(&common::unique("clash")).await,
    )
    .await;
    let base = item(&anon, &a).await["data"].clone();
    let mut ours = base.clone();
    ours["name"] = json!({ "he": "שם שלנו", "en": "ours" });
    let (sid, _) = propose(&s().token("plain"), "ours", &[Put::change(&a, ours)]).await;
    let mut theirs = base.clone();
    theirs["name"] = json!({ "he": "שם שלהם", "en": "theirs" });
    change(&steward, &a, theirs.clone()).await;

    let r = approve(&steward, sid).await;
    r.expect_error(409, "conflict");
    let v = r.json();
    let conflicts = v["conflicts"]
        .as_array()
        .unwrap_or_else(|| panic!("409 without conflicts: {v}"));
    assert!(
        conflicts.iter().any(|c| c["id"] == a.as_str()),
        "conflicts do not name {a}: {v}"
    );
    still_open(&anon, sid).await;
    assert_eq!(item(&anon, &a).await["data"], theirs);
}

#[tokio::test]
async fn the_session_manages_tokens_and_a_revoked_token_stops_at_once() {
    let anon = s().anon();
    let me = s().extra["signer"].clone();
    anon.post(
        "/v1/auth/login",
        &json!({ "handle": me, "password": "wrong" }),
    )
    .await
    .expect_error(401, "unauthorized");
    let r = anon
        .post(
            "/v1/auth/login",
            &json!({ "handle": me, "password": PASSWORD }),
        )
        .await
        .expect(204);
    let (session, attrs) = session_cookie(&r).expect("session cookie");
    let attrs = attrs.to_lowercase();
    for a in ["httponly", "secure", "samesite=lax", "path=/"] {
        assert!(attrs.contains(a), "session cookie without {a}: {attrs}");
    }
    let site = anon.with_auth(Some(Auth::Session(session)));

    // Make a write token through the session.
    let name = common::unique("laptop");
    let made = site
        .post(
            "/v1/tokens",
            &json!({ "name": name, "scopes": ["read", "write"], "expiresInDays": 30 }),
        )
        .await
        .expect_ok();
    assert!(
        made.header("cache-control")
            .is_some_and(|c| c.contains("no-store"))
    );
    let made = made.json();
    let mut strings = Vec::new();
    collect_strings(&made, &mut strings);
    let token = strings
        .into_iter()
        .find(|t| t.starts_with("catp_"))
        .unwrap_or_else(|| panic!("no token in {made}"));
    assert_eq!(
        token.len(),
        5 + 43,
        "token {token} is not catp_ + 43 characters"
    );
    let token_id = find_token(&made, &name)
        .map(|t| t["id"].clone())
        .unwrap_or_else(|| made["id"].clone());

    let mine = anon.with_auth(Some(Auth::Bearer(token.clone())));
    mine.get("/v1/stats").await.expect(200);
    let sid = common::flow::draft(&mine, "written with a site-made token").await;
    assert!(sid > 0);
    mine.get("/v1/tokens").await.expect_error(403, "forbidden");

    // The list shows the prefix, never the token.
    let list = site.get("/v1/tokens").await.expect(200);
    assert!(
        !list.text().contains(&token),
        "the token list shows a whole token"
    );
    let listed = list.json();
    let entry = find_token(&listed, &name)
        .unwrap_or_else(|| panic!("new token not listed: {}", list.text()));
    let prefix = entry["prefix"].as_str().expect("prefix");
    assert!(
        token.contains(prefix) && prefix.len() < token.len(),
        "prefix {prefix}"
    );
    assert!(entry["revokedAt"].is_null());

    // Bad requests for tokens.
    site.post("/v1/tokens", &json!({ "name": "" }))
        .await
        .expect_error(400, "bad-request");
    site.post("/v1/tokens", &json!({ "name": "x", "expiresInDays": 0 }))
        .await
        .expect_error(400, "bad-request");
    site.post("/v1/tokens", &json!({ "name": "x", "expiresInDays": 3651 }))
        .await
        .expect_error(400, "bad-request");
    site.post("/v1/tokens", &json!({ "name": "x".repeat(81) }))
        .await
        .expect_error(400, "bad-request");

    // A token made without scopes reads only.
    let ro = site
        .post("/v1/tokens", &json!({ "name": common::unique("ro") }))
        .await
        .expect_ok()
        .json();
    let mut strings = Vec::new();
    collect_strings(&ro, &mut strings);
    let ro = strings
        .into_iter()
        .find(|t| t.starts_with("catp_"))
        .expect("token value");
    let ro = anon.with_auth(Some(Auth::Bearer(ro)));
    ro.get("/v1/stats").await.expect(200);
    ro.post("/v1/suggestions", &json!({ "title": "t" }))
        .await
        .expect_error(403, "forbidden");

    // Revoke: it stops working at once and the list marks it.
    let tid = match &token_id {
        Value::String(t) => t.clone(),
        Value::Number(n) => n.to_string(),
        other => panic!("token id {other}"),
    };
    site.delete(&format!("/v1/tokens/{tid}")).await.expect_ok();
    mine.get("/v1/stats")
        .await
        .expect_error(401, "unauthorized");
    let list = site.get_json("/v1/tokens").await;
    let entry = find_token(&list, &name).expect("revoked token still listed");
    assert!(
        entry["revokedAt"].is_string(),
        "revoked token not marked: {entry}"
    );

    // Logout ends the session.
    site.post_empty("/v1/auth/logout").await.expect(204);
    site.get("/v1/tokens")
        .await
        .expect_error(401, "unauthorized");
}

fn collect_strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}

/// The token record with this name anywhere in an answer.
fn find_token<'a>(v: &'a Value, name: &str) -> Option<&'a Value> {
    match v {
        Value::Object(o) if o.get("name").and_then(Value::as_str) == Some(name) => Some(v),
        Value::Object(o) => o.values().find_map(|x| find_token(x, name)),
        Value::Array(a) => a.iter().find_map(|x| find_token(x, name)),
        _ => None,
    }
}

#[tokio::test]
async fn several_merges_in_a_row_get_consecutive_commits() {
    let anon = s().anon();
    let steward = s().steward();
    let plain = s().token("plain");
    let mut seen = Vec::new();
    for i in 0..3 {
        let Merged { commit, ids, .. } = merge_by(
            &plain,
            &steward,
            &format!("author {i}"),
            &[Put::new(
                "author",
                author_copy(&common::unique("row")).await,
            )],
        )
        .await;
        assert_eq!(
            commit_at(&anon, commit).await["changes"][0]["id"],
            ids[0].as_str()
        );
        seen.push(commit);
    }
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
}

/// A unit's path is made from its work's slug: an ordinary suggestion that renames a work takes
/// the work's units along (data unchanged), and their old paths redirect.
#[tokio::test]
async fn renaming_a_work_moves_its_units_paths_and_old_ones_redirect() {
    let steward = s().steward();
    let anon = s().anon();
    let template = first_of(&anon, "unit").await;
    let slug = common::unique("moving-work");
    let work_data = fresh_copy(
        &item(&anon, template["data"]["work"].as_str().unwrap()).await["data"],
        &slug,
    );
    let (work, _) = create(&steward, "work", work_data.clone()).await;
    let mut units = Vec::new();
    for n in 1..=2 {
        let mut d = new_unit(&template, n);
        d["work"] = json!(work);
        d.as_object_mut().unwrap().remove("sets");
        units.push(create(&steward, "unit", d).await.0);
    }
    let mut old_paths = Vec::new();
    for u in &units {
        let p = item(&anon, u).await["path"].as_str().unwrap().to_string();
        assert!(p.starts_with(&format!("/{slug}/")), "{p}");
        old_paths.push(p);
    }

    let mut renamed = work_data.clone();
    renamed["slug"] = json!(format!("{slug}-renamed"));
    let seq = change(&steward, &work, renamed).await;

    let commit = commit_at(&anon, seq).await;
    let changed: Vec<&str> = commit["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    for u in &units {
        assert!(
            changed.contains(&u.as_str()),
            "unit {u} not carried: {commit}"
        );
        let now = item(&anon, u).await;
        assert!(
            now["path"]
                .as_str()
                .unwrap()
                .starts_with(&format!("/{slug}-renamed/")),
            "{now}"
        );
    }
    for (u, old) in units.iter().zip(&old_paths) {
        let r = anon
            .get_json(&format!("/v1/resolve?path={}", enc(old)))
            .await;
        assert_eq!(r["id"].as_str(), Some(u.as_str()), "{r}");
        assert_eq!(r["redirected"], true, "{r}");
    }
}

//! The MCP server at `/mcp` end to end, driven as an agent's client would drive it: the official
//! MCP Python SDK (`mcp` from PyPI, in a virtualenv the test makes) runs `tests/mcp/client.py`,
//! which initializes, lists the tools and calls them, and prints what it got. Every tool's
//! answer must equal, as JSON, what its REST route answers to the same question, errors
//! included (a tool error carrying the route's error JSON); the write tool is refused without a
//! token and with a read-only one, exactly as the route refuses, and with a write token opens a
//! suggestion that the REST API then shows; a mirror refuses it as its REST API refuses writes.
//! Raw requests check the transport itself: stateless
//! (no session id), one rate-limit unit a request (a server of its own with a small budget), the body limit, `GET` refused, a bad token
//! refused before any tool runs, CORS for browser clients.

mod common;

use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use common::flow::{first_of, head};
use common::http::{Api, enc};
use common::tools::{python_with, run};
use common::{DataDir, Shared, eventually, unique};
use serde_json::{Value, json};

fn s() -> &'static Shared {
    static S: OnceLock<Shared> = OnceLock::new();
    S.get_or_init(|| {
        Shared::start_demo_with(|dir, extra| {
            dir.add_people(extra, &["writer"]);
            dir.add_reader(extra);
        })
    })
}

/// The tools the server lists, in name order.
const TOOLS: [&str; 9] = [
    "get_file",
    "get_item",
    "list_backlinks",
    "list_children",
    "list_commits",
    "parse_date",
    "search",
    "search_words",
    "suggest_fix",
];

/// A virtualenv with the official MCP Python SDK, made once per machine. Version 2 (its client
/// is `streamable_http_client` over `httpx2`; 1.x named it `streamablehttp_client`). Made once
/// per test binary too: tests running at once would otherwise make the same virtualenv together.
fn python() -> &'static str {
    static PYTHON: OnceLock<String> = OnceLock::new();
    PYTHON.get_or_init(|| python_with("catalog-mcp-venv", &["'mcp>=2.3,<3'"], "mcp, httpx2"))
}

/// Runs `tests/mcp/client.py` with `plan` (`{ sessions: [{ token, calls }] }`) and returns what
/// it printed: per session `{ init, tools, results: [{ isError, texts, structured }] }`.
fn drive(base: &str, plan: &Value) -> Vec<Value> {
    let file = tempfile::NamedTempFile::new().expect("plan file");
    std::fs::write(file.path(), plan.to_string()).expect("write plan");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let url = format!("{base}/mcp");
    let out = run(
        python(),
        &[
            &script.to_string_lossy(),
            &url,
            &file.path().to_string_lossy(),
        ],
        None,
    );
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    v["sessions"].as_array().expect("sessions").clone()
}

/// Waits until the search index holds every commit of the log.
async fn caught_up(api: &Api) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let stats = api.get_json("/v1/stats").await;
        if stats["search"]["lag"] == json!(0) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "search index did not catch up: {stats}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One tool call and the REST request asking the same question.
struct Case {
    tool: &'static str,
    arguments: Value,
    /// `GET` path and query, or a `POST` path with its body.
    rest: Rest,
}

enum Rest {
    Get(String),
    Post(&'static str, Value),
}

fn case(tool: &'static str, arguments: Value, rest: Rest) -> Case {
    Case {
        tool,
        arguments,
        rest,
    }
}

fn calls(cases: &[Case]) -> Value {
    cases
        .iter()
        .map(|c| json!({ "name": c.tool, "arguments": c.arguments }))
        .collect()
}

/// Asserts that a tool's result is the REST answer: the same JSON as its one text block (and
/// as its structured content, for an object), a tool error exactly when the route answered an
/// error.
async fn same_as_rest(api: &Api, case: &Case, result: &Value) {
    let reply = match &case.rest {
        Rest::Get(path) => api.get(path).await,
        Rest::Post(path, body) => api.post(path, body).await,
    };
    let rest = reply.json();
    let texts = result["texts"].as_array().expect("texts");
    assert_eq!(texts.len(), 1, "{}: one text block: {result}", case.tool);
    let text: Value = serde_json::from_str(texts[0].as_str().expect("text"))
        .unwrap_or_else(|e| panic!("{}: text is not JSON ({e}): {result}", case.tool));
    assert_eq!(
        text, rest,
        "{} {}: the tool answered otherwise than the route ({})",
        case.tool, case.arguments, reply.status
    );
    let failed = !(200..300).contains(&reply.status);
    assert_eq!(
        result["isError"],
        json!(failed),
        "{} {}: isError against the route's {}: {rest}",
        case.tool,
        case.arguments,
        reply.status
    );
    if rest.is_object() {
        assert_eq!(
            result["structured"], rest,
            "{}: structured content",
            case.tool
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_tool_answers_what_its_route_answers() {
    let anon = s().anon();
    caught_up(&anon).await;
    let work = first_of(&anon, "work").await;
    let w = work["id"].as_str().expect("work id").to_owned();
    let first_units = anon
        .get(&format!(
            "/v1/entities/{w}/children?field=work&type=unit&limit=2"
        ))
        .await
        .expect(200);
    let cursor = first_units
        .next_cursor()
        .expect("the demo work has more than two units");
    let first_backlinks = anon
        .get_json(&format!("/v1/entities/{w}/backlinks?limit=2"))
        .await;
    let backlinks_cursor = first_backlinks["next"]
        .as_str()
        .expect("the demo work has more than two backlinks")
        .to_owned();
    let seq = head(&anon).await;
    let phrase = "\"פורצת גדר\"";
    let scan = first_of(&anon, "scan").await;
    let file = scan["data"]["file"]
        .as_str()
        .expect("the demo scan names its file")
        .to_owned();

    let cases = [
        // Names and dates, with and without a kind; a limit past the route's range.
        case(
            "search",
            json!({ "q": "Sample Talks" }),
            Rest::Get("/v1/search?q=Sample%20Talks".into()),
        ),
        case(
            "search",
            json!({ "q": "11 Shevat 5783", "type": "event", "limit": 3 }),
            Rest::Get(format!(
                "/v1/search?q={}&type=event&limit=3",
                enc("11 Shevat 5783")
            )),
        ),
        case(
            "search",
            json!({ "q": "שיחות", "limit": 1000 }),
            Rest::Get(format!("/v1/search?q={}&limit=1000", enc("שיחות"))),
        ),
        // Words inside texts: a phrase in quotes (a line of the demo's text page), a word of a
        // transcript's paragraph.
        case(
            "search_words",
            json!({ "q": phrase }),
            Rest::Get(format!("/v1/search/moments?q={}", enc(phrase))),
        ),
        case(
            "search_words",
            json!({ "q": "מוסיפים", "limit": 5 }),
            Rest::Get(format!("/v1/search/moments?q={}&limit=5", enc("מוסיפים"))),
        ),
        // An item now and as of commits; one that does not exist; one that did not exist yet;
        // an id that tries to reach another route.
        case(
            "get_item",
            json!({ "id": w }),
            Rest::Get(format!("/v1/entities/{w}")),
        ),
        case(
            "get_item",
            json!({ "id": w, "at": seq }),
            Rest::Get(format!("/v1/entities/{w}?at={seq}")),
        ),
        case(
            "get_item",
            json!({ "id": w, "at": 1 }),
            Rest::Get(format!("/v1/entities/{w}?at=1")),
        ),
        case(
            "get_item",
            json!({ "id": "cat-zzzzzzzz" }),
            Rest::Get("/v1/entities/cat-zzzzzzzz".into()),
        ),
        case(
            "get_item",
            json!({ "id": format!("{w}/children") }),
            Rest::Get(format!("/v1/entities/{}", enc(&format!("{w}/children")))),
        ),
        // A work's units, a page and the next; a field name the route refuses.
        case(
            "list_children",
            json!({ "id": w, "field": "work", "type": "unit", "limit": 2 }),
            Rest::Get(format!(
                "/v1/entities/{w}/children?field=work&type=unit&limit=2"
            )),
        ),
        case(
            "list_children",
            json!({ "id": w, "field": "work", "type": "unit", "limit": 2, "cursor": cursor }),
            Rest::Get(format!(
                "/v1/entities/{w}/children?field=work&type=unit&limit=2&cursor={}",
                enc(&cursor)
            )),
        ),
        case(
            "list_children",
            json!({ "id": w, "field": "Work!", "type": "unit" }),
            Rest::Get(format!(
                "/v1/entities/{w}/children?field={}&type=unit",
                enc("Work!")
            )),
        ),
        // What points at the work: all of it, by field and kind, the next page.
        case(
            "list_backlinks",
            json!({ "id": w }),
            Rest::Get(format!("/v1/entities/{w}/backlinks")),
        ),
        case(
            "list_backlinks",
            json!({ "id": w, "field": "work", "type": "unit", "limit": 3 }),
            Rest::Get(format!(
                "/v1/entities/{w}/backlinks?field=work&type=unit&limit=3"
            )),
        ),
        case(
            "list_backlinks",
            json!({ "id": w, "limit": 2, "cursor": backlinks_cursor }),
            Rest::Get(format!(
                "/v1/entities/{w}/backlinks?limit=2&cursor={}",
                enc(&backlinks_cursor)
            )),
        ),
        // The feed from the start, after a seq, and with a cursor that was never handed out.
        case("list_commits", json!({}), Rest::Get("/v1/commits".into())),
        case(
            "list_commits",
            json!({ "since": 1, "limit": 2 }),
            Rest::Get("/v1/commits?since=1&limit=2".into()),
        ),
        case(
            "list_commits",
            json!({ "cursor": "not-a-cursor" }),
            Rest::Get("/v1/commits?cursor=not-a-cursor".into()),
        ),
        // A file the demo's scan holds (its bytes not held), one no item holds, and no hash.
        case(
            "get_file",
            json!({ "sha256": file }),
            Rest::Get(format!("/v1/files/{file}/about")),
        ),
        case(
            "get_file",
            json!({ "sha256": "0".repeat(64) }),
            Rest::Get(format!("/v1/files/{}/about", "0".repeat(64))),
        ),
        case(
            "get_file",
            json!({ "sha256": "not-a-hash" }),
            Rest::Get("/v1/files/not-a-hash/about".into()),
        ),
        // Dates as people write them, and one that is no date.
        case(
            "parse_date",
            json!({ "q": "19 Kislev 5749" }),
            Rest::Get(format!("/v1/dates/parse?q={}", enc("19 Kislev 5749"))),
        ),
        case(
            "parse_date",
            json!({ "q": "י״ט כסלו תשמ״ט" }),
            Rest::Get(format!("/v1/dates/parse?q={}", enc("י״ט כסלו תשמ״ט"))),
        ),
        case(
            "parse_date",
            json!({ "q": "30 Adar II 5783" }),
            Rest::Get(format!("/v1/dates/parse?q={}", enc("30 Adar II 5783"))),
        ),
    ];
    // The write tool without a token: the route's 401, and nothing opened.
    let author = first_of(&anon, "author").await;
    let mut fixed = author["data"].clone();
    fixed["note"] = json!(unique("fixed through mcp"));
    let fix = json!({
        "entityId": author["id"], "data": fixed,
        "title": "Note from an agent", "note": "seen in the printed edition"
    });
    let mut anonymous = cases.into_iter().collect::<Vec<_>>();
    anonymous.push(case(
        "suggest_fix",
        fix.clone(),
        Rest::Post("/v1/suggestions/quick", fix.clone()),
    ));
    let as_reader = [
        case(
            "get_item",
            json!({ "id": w }),
            Rest::Get(format!("/v1/entities/{w}")),
        ),
        case(
            "suggest_fix",
            fix.clone(),
            Rest::Post("/v1/suggestions/quick", fix.clone()),
        ),
    ];
    let reader = s().extra["reader"].clone();
    let writer = s().extra["writer"].clone();
    let sessions = drive(
        &s().server.base,
        &json!({ "sessions": [
        { "token": null, "calls": calls(&anonymous) },
        { "token": reader, "calls": calls(&as_reader) },
        { "token": writer, "calls": [{ "name": "suggest_fix", "arguments": fix }] },
    ] }),
    );

    // Initialize and the tool list, the same for every caller.
    for session in &sessions {
        let init = &session["init"];
        assert_eq!(init["serverInfo"]["name"], "catalog", "{init}");
        assert!(
            init["instructions"]
                .as_str()
                .is_some_and(|t| t.contains("cat-7k2m9q4x")),
            "{init}"
        );
        assert!(init["capabilities"]["tools"].is_object(), "{init}");
        let tools = session["tools"].as_array().expect("tools");
        let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, TOOLS, "the tools listed");
        for tool in tools {
            let description = tool["description"].as_str().unwrap_or_default();
            assert!(description.len() > 100, "a short description: {tool}");
            assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
            assert!(tool["inputSchema"]["properties"].is_object(), "{tool}");
            let read_only = tool["name"] != "suggest_fix";
            assert_eq!(
                tool["annotations"]["readOnlyHint"],
                json!(read_only),
                "{tool}"
            );
        }
    }

    // Every answer is the route's, anonymous and as a reader.
    let results = sessions[0]["results"].as_array().expect("results");
    assert_eq!(results.len(), anonymous.len());
    for (case, result) in anonymous.iter().zip(results) {
        same_as_rest(&anon, case, result).await;
    }
    let errors: Vec<&str> = results
        .iter()
        .filter(|r| r["isError"] == json!(true))
        .filter_map(|r| r["structured"]["error"].as_str())
        .collect();
    assert_eq!(
        errors,
        [
            "bad-request",
            "not-found",
            "not-found",
            "bad-request",
            "bad-request",
            "bad-request",
            // get_file: no item holds the file; no hash.
            "not-found",
            "bad-request",
            "bad-request",
            "unauthorized"
        ],
        "the errors the cases provoke"
    );
    let reader_api = s().token("reader");
    let results = sessions[1]["results"].as_array().expect("results");
    for (case, result) in as_reader.iter().zip(results) {
        same_as_rest(&reader_api, case, result).await;
    }
    assert_eq!(results[1]["structured"]["error"], "forbidden");

    // With write, the suggestion is open and the REST API shows it.
    let opened = &sessions[2]["results"][0];
    assert_eq!(opened["isError"], json!(false), "{opened}");
    let suggestion = &opened["structured"];
    assert_eq!(suggestion["status"], "open", "{opened}");
    let id = suggestion["id"].as_u64().expect("suggestion id");
    let shown = anon.get_json(&format!("/v1/suggestions/{id}")).await;
    assert_eq!(shown["id"], json!(id), "{shown}");
    assert_eq!(shown["status"], "open", "{shown}");
    assert_eq!(shown["title"], "Note from an agent", "{shown}");
    assert_eq!(
        anon.get_json(&format!("/v1/entities/{}", author["id"].as_str().unwrap()))
            .await["data"],
        author["data"],
        "the fix went live before review"
    );
}

/// One JSON-RPC message posted to the shared server's `/mcp` as a client would, with `token`.
async fn post_mcp(token: Option<&str>, body: &Value) -> reqwest::Response {
    post_mcp_to(&s().server.base, token, body).await
}

async fn post_mcp_to(base: &str, token: Option<&str>, body: &Value) -> reqwest::Response {
    let mut req = reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string());
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    req.send().await.expect("post /mcp")
}

fn call(id: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": "parse_date", "arguments": { "q": "5749" } } })
}

fn initialize() -> Value {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "catalog-e2e", "version": "1" } } })
}

/// What is left of the caller's budget, from the `RateLimit` header.
fn remaining(res: &reqwest::Response) -> u64 {
    let value = res
        .headers()
        .get("ratelimit")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no RateLimit header: {:?}", res.headers()));
    value
        .split(',')
        .find_map(|p| p.trim().strip_prefix("remaining="))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("RateLimit without remaining: {value}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn the_transport_is_stateless_and_bounded() {
    // Stateless: an answer in JSON, and no session to carry.
    let res = post_mcp(None, &initialize()).await;
    assert_eq!(res.status(), 200);
    assert!(res.headers().get("mcp-session-id").is_none());
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let init: Value = res.json().await.unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "catalog", "{init}");
    // A tool call stands alone: nothing of the initialize before it is kept or needed.
    let res = post_mcp(None, &call(2)).await;
    assert_eq!(res.status(), 200);
    let answer: Value = res.json().await.unwrap();
    assert_eq!(
        answer["result"]["structuredContent"]["key"], "5749",
        "{answer}"
    );

    // A token that does not authenticate is refused before any tool runs, as REST refuses it.
    let res = post_mcp(Some("catp_not_a_token"), &call(5)).await;
    assert_eq!(res.status(), 401);
    let body: Value = res.json().await.unwrap();
    let rest = s()
        .server
        .with_token("catp_not_a_token")
        .get("/v1/dates/parse?q=5749")
        .await;
    assert_eq!(rest.status, 401);
    assert_eq!(body, rest.json());

    // A body past the limit is refused unread; GET (a server-sent stream) is not offered.
    let big = json!({ "jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {
        "name": "parse_date", "arguments": { "q": "x".repeat(2 << 20) } } });
    assert_eq!(post_mcp(None, &big).await.status(), 413);
    let res = reqwest::Client::new()
        .get(format!("{}/mcp", s().server.base))
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 405);

    // A browser client on another origin may send MCP's headers.
    let res = reqwest::Client::new()
        .request(reqwest::Method::OPTIONS, format!("{}/mcp", s().server.base))
        .header("origin", "https://agent.example")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization, content-type, mcp-protocol-version",
        )
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success(), "{}", res.status());
    let allowed = res.headers()["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_lowercase();
    assert!(allowed.contains("mcp-protocol-version"), "{allowed}");
    assert_eq!(res.headers()["access-control-allow-origin"], "*");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_mirror_answers_reads_and_refuses_the_write_as_rest_does() {
    let primary = s().anon();
    let dir = DataDir::new();
    let mirror = dir.start_mirror(&s().server.base, &["--poll-ms", "100"]);
    let want = head(&primary).await;
    let api = mirror.anon();
    eventually(
        "the mirror to catch up",
        Duration::from_secs(120),
        || async {
            let stats = api.get_json("/v1/stats").await;
            (stats["head"].as_u64() >= Some(want) && stats["projector"]["lag"] == json!(0))
                .then_some(())
        },
    )
    .await;
    let author = first_of(&api, "author").await;
    let id = author["id"].as_str().expect("author id").to_owned();
    let fix = json!({
        "entityId": id, "data": author["data"], "title": "From a mirror", "note": "a test"
    });
    let cases = [
        case(
            "get_item",
            json!({ "id": id }),
            Rest::Get(format!("/v1/entities/{id}")),
        ),
        case(
            "suggest_fix",
            fix.clone(),
            Rest::Post("/v1/suggestions/quick", fix),
        ),
    ];
    let sessions = drive(
        &mirror.base,
        &json!({ "sessions": [{ "token": null, "calls": calls(&cases) }] }),
    );
    let results = sessions[0]["results"].as_array().expect("results");
    for (case, result) in cases.iter().zip(results) {
        same_as_rest(&api, case, result).await;
    }
    assert_eq!(
        results[1]["structured"]["error"], "forbidden",
        "{}",
        results[1]
    );
    let message = results[1]["structured"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("read-only mirror"), "{message}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_call_costs_one_request() {
    // A budget of 4 requests a minute for a signed-in caller (twice the flag), refilled one every
    // 15 s: far slower than these requests.
    let dir = DataDir::new();
    let token = dir.person(&unique("counted"), false);
    let server = dir.start(&["--rate-limit-per-minute", "2"]);
    let post = |body: Value| {
        let (base, token) = (server.base.clone(), token.clone());
        async move { post_mcp_to(&base, Some(&token), &body).await }
    };
    // Each `/mcp` request is one unit, tool call or not: the REST request a tool makes is not
    // counted again.
    let mut left = Vec::new();
    for body in [call(1), call(2), initialize(), call(3)] {
        let res = post(body).await;
        assert_eq!(res.status(), 200);
        left.push(remaining(&res));
    }
    assert_eq!(
        left,
        [3, 2, 1, 0],
        "what is left of the budget after each request"
    );
    // Past it, the REST API's own 429.
    let res = post(call(4)).await;
    assert_eq!(res.status(), 429);
    assert!(res.headers().contains_key("retry-after"));
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"], "rate-limited", "{body}");
}

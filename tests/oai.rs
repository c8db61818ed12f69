//! OAI-PMH end to end, harvested the way a library would: `sickle` from PyPI (in a virtualenv
//! the test makes) takes everything through resumption tokens, by GET and by POST, by set and by
//! `from`/`until`; a harvest goes on from its token after a server restart; deleted records are
//! seen; every answer is validated against the OAI-PMH and oai_dc XML schemas vendored in
//! `tests/oai/` (with Python's `lxml`); each protocol error is provoked.

mod common;

use std::path::Path;
use std::time::Duration;

use common::flow::{Put, create, first_of, fresh_copy, head, merge, remove};
use common::tools::{python_with, run};
use common::{DataDir, GENEROUS_RATE, Server, eventually, unique};
use serde_json::{Value, json};

/// Records a page in this test: small, so the demo catalog takes several pages.
const PAGE: &str = "7";

/// A virtualenv with `sickle` and `lxml`, made once per machine.
fn python() -> String {
    python_with("catalog-oai-venv", &["sickle", "lxml"], "sickle, lxml")
}

/// `harvest BASE XSD ARGS`: every page of a list through sickle, each page validated; prints the
/// records. `check BASE XSD REQUESTS`: one request each, validated; prints each error code (or
/// "ok"). Both first make sure the schema refuses a broken answer, so validation is not vacuous.
const HARVESTER: &str = r#"
import json, sys
from lxml import etree
from sickle import Sickle
from sickle.iterator import OAIResponseIterator

mode, base, xsd, args = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
schema = etree.XMLSchema(etree.parse(xsd))
OAI = "{http://www.openarchives.org/OAI/2.0/}"

def check(raw):
    doc = etree.fromstring(raw)
    if not schema.validate(doc):
        sys.exit("answer not valid: %s\n%s" % (schema.error_log, raw[:3000]))
    broken = etree.fromstring(raw)
    broken.remove(broken.find(OAI + "responseDate"))
    if schema.validate(broken):
        sys.exit("the schema accepts an answer without responseDate")
    return doc

if mode == "harvest":
    method = args.pop("_method", "GET")
    verb = args.pop("verb")
    pages = 0
    for response in getattr(Sickle(base, http_method=method, iterator=OAIResponseIterator), verb)(**args):
        check(response.raw.encode())
        pages += 1
    out = []
    for item in getattr(Sickle(base, http_method=method), verb)(ignore_deleted=False, **args):
        header = item.header if verb == "ListRecords" else item
        titles = item.metadata.get("title", []) if verb == "ListRecords" and not header.deleted else []
        out.append({"id": header.identifier.rsplit("/", 1)[1], "deleted": header.deleted,
                    "datestamp": header.datestamp, "sets": header.setSpecs, "titles": titles})
    print(json.dumps({"pages": pages, "records": out}))
else:
    codes = []
    for request in args:
        raw = Sickle(base).harvest(**request).raw.encode()
        doc = check(raw)
        error = doc.find(OAI + "error")
        codes.append("ok" if error is None else error.get("code"))
    print(json.dumps(codes))
"#;

struct Harvester {
    python: String,
    script: tempfile::NamedTempFile,
    xsd: String,
}

impl Harvester {
    fn new() -> Harvester {
        let script = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(script.path(), HARVESTER).unwrap();
        let xsd = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oai/all.xsd");
        Harvester {
            python: python(),
            script,
            xsd: xsd.to_string_lossy().into_owned(),
        }
    }

    fn call(&self, mode: &str, server: &Server, args: &Value) -> Value {
        let base = format!("{}/oai", server.base);
        let out = run(
            &self.python,
            &[
                &self.script.path().to_string_lossy(),
                mode,
                &base,
                &self.xsd,
                &args.to_string(),
            ],
            None,
        );
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
    }

    /// Every record of a list: `(pages, records)`.
    fn harvest(&self, server: &Server, args: Value) -> (u64, Vec<Value>) {
        let v = self.call("harvest", server, &args);
        (
            v["pages"].as_u64().unwrap(),
            v["records"].as_array().unwrap().clone(),
        )
    }

    /// The error code (or "ok") each request earns.
    fn codes(&self, server: &Server, requests: Value) -> Vec<String> {
        let v = self.call("check", server, &requests);
        v.as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_owned())
            .collect()
    }
}

fn start(dir: &DataDir, extra: &[&str]) -> Server {
    let mut args = vec!["--rate-limit-per-minute", GENEROUS_RATE];
    args.extend_from_slice(extra);
    dir.start(&args)
}

fn ids(records: &[Value]) -> Vec<String> {
    let mut ids: Vec<String> = records
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

fn live_count(stats: &Value, ty: Option<&str>) -> usize {
    let counts = stats["counts"].as_object().unwrap();
    let n: u64 = match ty {
        Some(ty) => counts[ty].as_u64().unwrap(),
        None => counts.values().map(|n| n.as_u64().unwrap()).sum(),
    };
    usize::try_from(n).unwrap()
}

/// The text between `<tag...>` and `</tag>` in an answer.
fn element<'a>(xml: &'a str, tag: &str) -> Option<&'a str> {
    let start = xml.find(&format!("<{tag}"))?;
    let open_end = start + xml[start..].find('>')? + 1;
    let close = xml[open_end..].find(&format!("</{tag}>"))?;
    Some(&xml[open_end..open_end + close])
}

#[tokio::test(flavor = "multi_thread")]
async fn a_library_harvests_the_catalog() {
    let dir = DataDir::new();
    let steward_token = dir.person(&unique("steward"), true);
    let mut server = start(&dir, &["--demo", "--oai", "--oai-page-size", PAGE]);
    let api = server.anon();
    let steward = server.with_token(&steward_token);
    // Our changes fall in later seconds than the demo catalog's, so from/until can tell them apart.
    let before_ours = time_now();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let sample = first_of(&api, "work").await;
    let (changed, _) = create(
        &steward,
        "work",
        fresh_copy(&sample["data"], &unique("oai")),
    )
    .await;
    let (gone, _) = create(
        &steward,
        "work",
        fresh_copy(&sample["data"], &unique("oai")),
    )
    .await;
    let renamed = unique("renamed");
    merge(
        &steward,
        "rename",
        &[Put::change(&changed, fresh_copy(&sample["data"], &renamed))],
    )
    .await;
    remove(&steward, &gone).await;
    let stats = api.get_json("/v1/stats").await;
    let oai = Harvester::new();

    // Everything, through resumption tokens: each live item once and the deleted one.
    let (pages, all) = oai.harvest(
        &server,
        json!({"verb": "ListRecords", "metadataPrefix": "oai_dc"}),
    );
    let total = live_count(&stats, None);
    assert!(pages >= 3, "{pages} pages");
    let mut unique_ids = ids(&all);
    unique_ids.dedup();
    assert_eq!(unique_ids.len(), all.len(), "every item once");
    let live: Vec<&Value> = all.iter().filter(|r| r["deleted"] == false).collect();
    assert_eq!(live.len(), total, "every live item");
    let deleted: Vec<&Value> = all.iter().filter(|r| r["deleted"] == true).collect();
    assert!(
        deleted.iter().any(|r| r["id"] == gone.as_str()),
        "the deletion is reported"
    );
    let renamed_record = all.iter().find(|r| r["id"] == changed.as_str()).unwrap();
    assert!(
        renamed_record["titles"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == renamed.as_str()),
        "the latest version: {renamed_record}"
    );
    // The same by POST, and headers only.
    let (_, by_post) = oai.harvest(
        &server,
        json!({"verb": "ListIdentifiers", "metadataPrefix": "oai_dc", "_method": "POST"}),
    );
    assert_eq!(ids(&by_post), ids(&all));

    // By set.
    let (_, works) = oai.harvest(
        &server,
        json!({"verb": "ListIdentifiers", "metadataPrefix": "oai_dc", "set": "work"}),
    );
    assert!(works.iter().all(|r| r["sets"] == json!(["work"])));
    assert_eq!(
        works.iter().filter(|r| r["deleted"] == false).count(),
        live_count(&stats, Some("work"))
    );

    // By time, to the second and to the day.
    let (_, ours) = oai.harvest(
        &server,
        json!({"verb": "ListIdentifiers", "metadataPrefix": "oai_dc", "from": format!("{}Z", next_second(&before_ours))}),
    );
    assert_eq!(ids(&ours), {
        let mut v = vec![changed.clone(), gone.clone()];
        v.sort();
        v
    });
    let (_, theirs) = oai.harvest(
        &server,
        json!({"verb": "ListIdentifiers", "metadataPrefix": "oai_dc", "until": format!("{before_ours}Z")}),
    );
    assert_eq!(theirs.len(), all.len() - 2);
    assert!(
        theirs
            .iter()
            .all(|r| r["datestamp"].as_str().unwrap() <= format!("{before_ours}Z").as_str())
    );
    let today = &before_ours[..10];
    let (_, whole_day) = oai.harvest(
        &server,
        json!({"verb": "ListIdentifiers", "metadataPrefix": "oai_dc", "from": today, "until": today}),
    );
    assert_eq!(whole_day.len(), all.len());

    // A harvest goes on from its token after a restart (at another port).
    let first = api
        .get("/oai?verb=ListRecords&metadataPrefix=oai_dc")
        .await
        .expect_ok();
    assert_eq!(
        first.header("content-type").as_deref(),
        Some("text/xml; charset=utf-8")
    );
    let first = first.text();
    let token = element(&first, "resumptionToken").unwrap().to_owned();
    let first_ids: Vec<String> = first
        .match_indices("/v1/entities/")
        .map(|(i, _)| first[i + 13..].split('<').next().unwrap().to_owned())
        .collect();
    assert!(server.stop(), "server did not stop");
    server = start(&dir, &["--oai", "--oai-page-size", PAGE]);
    let (_, rest) = oai.harvest(
        &server,
        json!({"verb": "ListRecords", "resumptionToken": token}),
    );
    let mut resumed = ids(&rest);
    resumed.extend(first_ids);
    resumed.sort();
    resumed.dedup();
    assert_eq!(
        resumed,
        ids(&all),
        "the first page and the rest are the whole list"
    );

    // Every protocol error the repository can give (noSetHierarchy cannot arise: sets are
    // supported), and the answers that are not errors.
    let site = server.base.clone();
    let codes = oai.codes(
        &server,
        json!([
            {"verb": "Identify"},
            {"verb": "ListSets"},
            {"verb": "ListMetadataFormats"},
            {"verb": "ListMetadataFormats", "identifier": format!("{site}/v1/entities/{changed}")},
            {"verb": "GetRecord", "metadataPrefix": "oai_dc", "identifier": format!("{site}/v1/entities/{changed}")},
            {"verb": "GetRecord", "metadataPrefix": "oai_dc", "identifier": format!("{site}/v1/entities/{gone}")},
            {"verb": "Nonsense"},
            {},
            {"verb": "Identify", "extra": "1"},
            {"verb": "ListRecords"},
            {"verb": "ListRecords", "metadataPrefix": "oai_dc", "from": "2026-01-01", "until": "2026-12-31T00:00:00Z"},
            {"verb": "ListRecords", "metadataPrefix": "oai_dc", "from": "yesterday"},
            {"verb": "ListRecords", "metadataPrefix": "oai_dc", "set": "not a set"},
            {"verb": "ListRecords", "resumptionToken": "not-a-token"},
            {"verb": "ListIdentifiers", "resumptionToken": token},
            {"verb": "ListSets", "resumptionToken": "x"},
            {"verb": "ListRecords", "metadataPrefix": "marc21"},
            {"verb": "GetRecord", "metadataPrefix": "oai_dc", "identifier": "oai:elsewhere:1"},
            {"verb": "GetRecord", "metadataPrefix": "oai_dc", "identifier": format!("{site}/v1/entities/cat-aaaaaaaa")},
            {"verb": "ListRecords", "metadataPrefix": "oai_dc", "from": "2999-01-01"},
            {"verb": "ListIdentifiers", "metadataPrefix": "oai_dc", "set": "no-such-set"},
            {"verb": "ListMetadataFormats", "identifier": format!("{site}/v1/entities/{gone}")},
        ]),
    );
    let expected = [
        "ok",
        "ok",
        "ok",
        "ok",
        "ok",
        "ok",
        "badVerb",
        "badVerb",
        "badArgument",
        "badArgument",
        "badArgument",
        "badArgument",
        "badArgument",
        "badResumptionToken",
        "badResumptionToken",
        "badResumptionToken",
        "cannotDisseminateFormat",
        "idDoesNotExist",
        "idDoesNotExist",
        "noRecordsMatch",
        "noRecordsMatch",
        "noMetadataFormats",
    ];
    assert_eq!(codes, expected);

    // Repeated arguments, which sickle cannot send; errors of the request echo no arguments.
    let api = server.anon();
    let repeated = api
        .get("/oai?verb=Identify&verb=Identify")
        .await
        .expect_ok()
        .text();
    assert!(repeated.contains(r#"<error code="badVerb">"#), "{repeated}");
    assert!(repeated.contains("<request>"), "{repeated}");
    let twice = api
        .get("/oai?verb=ListRecords&metadataPrefix=oai_dc&set=work&set=author")
        .await
        .expect_ok()
        .text();
    assert!(twice.contains(r#"<error code="badArgument">"#), "{twice}");
    let record = api
        .get(&format!(
            "/oai?verb=GetRecord&metadataPrefix=oai_dc&identifier={site}/v1/entities/{gone}"
        ))
        .await
        .text();
    assert!(record.contains(r#"<header status="deleted">"#), "{record}");

    // Off unless asked for.
    assert!(server.stop(), "server did not stop");
    let server = start(&dir, &[]);
    server
        .anon()
        .get("/oai?verb=Identify")
        .await
        .expect_error(404, "not-found");
}

/// UTC now as `YYYY-MM-DDThh:mm:ss`.
fn time_now() -> String {
    let out = run("date", &["-u", "+%Y-%m-%dT%H:%M:%S"], None);
    out.trim().to_owned()
}

/// The second after `stamp` (`YYYY-MM-DDThh:mm:ss`).
fn next_second(stamp: &str) -> String {
    let out = run(
        "date",
        &[
            "-u",
            "-d",
            &format!("{stamp}Z + 1 second"),
            "+%Y-%m-%dT%H:%M:%S",
        ],
        None,
    );
    out.trim().to_owned()
}

/// A mirror serves OAI-PMH too, by POST as well (it refuses every other POST), names the
/// operator's public address in its answers, and lists exactly what its primary lists.
#[tokio::test(flavor = "multi_thread")]
async fn a_mirror_is_harvested_like_its_primary() {
    let primary_dir = DataDir::new();
    let primary = start(&primary_dir, &["--demo", "--oai", "--oai-page-size", PAGE]);
    let primary_head = head(&primary.anon()).await;
    let dir = DataDir::new();
    let mirror = dir.start_mirror(
        &primary.base,
        &[
            "--poll-ms",
            "100",
            "--oai",
            "--oai-page-size",
            PAGE,
            "--oai-public-url",
            "https://catalog.example/",
        ],
    );
    let api = mirror.anon();
    eventually("the mirror to catch up", Duration::from_secs(60), || {
        let api = api.clone();
        async move { (head(&api).await == primary_head).then_some(()) }
    })
    .await;
    let oai = Harvester::new();
    let list = json!({"verb": "ListIdentifiers", "metadataPrefix": "oai_dc"});
    let (_, from_primary) = oai.harvest(&primary, list.clone());
    let mut by_post = list;
    by_post["_method"] = json!("POST");
    let (pages, from_mirror) = oai.harvest(&mirror, by_post);
    assert!(pages >= 3, "{pages} pages");
    assert_eq!(ids(&from_mirror), ids(&from_primary));
    let identify = api
        .post_raw(
            "/oai",
            "application/x-www-form-urlencoded",
            b"verb=Identify".to_vec(),
        )
        .await
        .expect_ok()
        .text();
    assert!(
        identify.contains("<baseURL>https://catalog.example/oai</baseURL>"),
        "{identify}"
    );
    api.post_raw("/oai", "application/json", b"{}".to_vec())
        .await
        .expect_error(400, "bad-request");
}

//! The tools, each one REST route: its arguments (with descriptions written for an agent) and
//! the [`Call`] they make. What a tool answers is the route's JSON, as [`Relay`] passes it on.

use axum::http::request::Parts;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::Extension;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::relay::{Call, Relay, segment};

/// What an agent reads first, on `initialize`.
const INSTRUCTIONS: &str = "catalog is an open, community-edited index of Torah works and media \
(sefarim and series, sichos, maamarim, letters, farbrengens and other events, printings, scans, \
recordings, texts). Every tool answers with the JSON of the catalog's REST API (see /llms.txt and \
/openapi.json); an error is `{ error, message, detail? }`, and `message` says what to change. \
Ids look like `cat-7k2m9q4x` and never change. Dates are Hebrew-calendar keys: `5785`, \
`5785-07`, `5785-07-15` (months count from Tishrei; `06A`/`06B` are the two Adars of a leap \
year). Lists come a page at a time: pass an answer's `next` back as `cursor`. Reading needs no \
account; suggesting a change needs `Authorization: Bearer catp_...` with a token that has the \
write scope, and every change is reviewed by people before it is merged.";

/// The server one `/mcp` request talks to: the tools, and the way to the REST routes.
#[derive(Clone)]
pub(crate) struct Catalog {
    relay: Relay,
    tool_router: ToolRouter<Catalog>,
}

impl Catalog {
    /// The tool list is built once; each request's server is a clone of this one.
    pub(crate) fn new(relay: Relay) -> Catalog {
        Catalog {
            relay,
            tool_router: Self::tool_router(),
        }
    }
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchArgs {
    /// What to look for, at most 200 characters: a name or title in Hebrew (with or without
    /// niqqud, prefixes, or acronyms in gershayim) or in English, or a Hebrew date such as
    /// `19 Kislev 5749` or `י״ט כסלו תשמ״ט`.
    q: String,
    /// Only items of this kind: `work`, `unit`, `event`, `author`, `set`, `publication`,
    /// `recording`, `text`, `person`, `place`, `topic`, ... (`GET /v1/types` lists every kind).
    #[serde(rename = "type")]
    ty: Option<String>,
    /// How many results, 1-100 (default 20).
    limit: Option<u32>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WordsArgs {
    /// The words to find, at most 200 characters, Hebrew or English. In double quotes, a phrase:
    /// the words as written, in order and next to each other (`"ויאמר משה"`).
    q: String,
    /// How many places, 1-100 (default 20).
    limit: Option<u32>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ItemArgs {
    /// The item's id, like `cat-7k2m9q4x`.
    id: String,
    /// A commit's seq (0 or more): the item as it was right after that commit. Leave it out for
    /// the item as it is now.
    at: Option<u64>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ChildrenArgs {
    /// The parent's id, like `cat-7k2m9q4x`.
    id: String,
    /// The children's field that points at the parent: `work` for a work's units (with type
    /// `unit`), `parent` for a set's sets, `text` for a text's segments, `event` for an event's
    /// recordings, `publication` for a printing's scans.
    field: String,
    /// The children's kind: `unit`, `set`, `segment`, `recording`, `scan`, ...
    #[serde(rename = "type")]
    ty: String,
    /// How many children, 1-1000 (default 100).
    limit: Option<u32>,
    /// The `next` of the previous page, to read the page after it.
    cursor: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct BacklinksArgs {
    /// The id of the item pointed at, like `cat-7k2m9q4x`.
    id: String,
    /// Only links through this field of the linking items (`work`, `authors`, `event`, ...).
    field: Option<String>,
    /// Only linking items of this kind.
    #[serde(rename = "type")]
    ty: Option<String>,
    /// How many links, 1-200 (default 100).
    limit: Option<u32>,
    /// The `next` of the previous page, to read the page after it.
    cursor: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CommitsArgs {
    /// Start after this commit's seq; 0 (the default) is from the first commit. The newest seq is
    /// `head` in `GET /v1`.
    since: Option<u64>,
    /// How many commits, 1-100 (default 50).
    limit: Option<u32>,
    /// The `next` of the previous page (takes the place of `since`).
    cursor: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DateArgs {
    /// The date as written, at most 200 characters: `י״ט כסלו תשמ״ט`, `19 Kislev 5749`,
    /// `Kislev 5749`, `5749`, `December 17, 1988`, `1988-12-17`.
    q: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct FileArgs {
    /// The file's sha256: 64 hex characters, as a scan's or recording's `file` gives it.
    sha256: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct QuickFixArgs {
    /// The id of the item to change, like `cat-7k2m9q4x`.
    entity_id: String,
    /// The item's whole new `data`: read it with `get_item`, change what is wrong, and send all
    /// of it (fields left out are removed).
    data: Map<String, Value>,
    /// A short title for the reviewers, 1-200 characters: what the change is.
    title: String,
    /// Where the change comes from: the printed edition and page, the recording, the archive.
    note: String,
}

/// Each tool's arguments as its REST request: the whole of what a tool does of its own.
impl SearchArgs {
    fn call(self) -> Call {
        Call::get("/v1/search")
            .param("q", Some(self.q))
            .param("type", self.ty)
            .param("limit", self.limit)
    }
}

impl WordsArgs {
    fn call(self) -> Call {
        Call::get("/v1/search/moments")
            .param("q", Some(self.q))
            .param("limit", self.limit)
    }
}

impl ItemArgs {
    fn call(self) -> Call {
        Call::get(format!("/v1/entities/{}", segment(&self.id))).param("at", self.at)
    }
}

impl ChildrenArgs {
    fn call(self) -> Call {
        Call::get(format!("/v1/entities/{}/children", segment(&self.id)))
            .param("field", Some(self.field))
            .param("type", Some(self.ty))
            .param("limit", self.limit)
            .param("cursor", self.cursor)
    }
}

impl BacklinksArgs {
    fn call(self) -> Call {
        Call::get(format!("/v1/entities/{}/backlinks", segment(&self.id)))
            .param("field", self.field)
            .param("type", self.ty)
            .param("limit", self.limit)
            .param("cursor", self.cursor)
    }
}

impl CommitsArgs {
    fn call(self) -> Call {
        Call::get("/v1/commits")
            .param("since", self.since)
            .param("limit", self.limit)
            .param("cursor", self.cursor)
    }
}

impl DateArgs {
    fn call(self) -> Call {
        Call::get("/v1/dates/parse").param("q", Some(self.q))
    }
}

impl FileArgs {
    fn call(self) -> Call {
        Call::get(format!("/v1/files/{}/about", segment(&self.sha256)))
    }
}

impl QuickFixArgs {
    fn call(self) -> Call {
        Call::post(
            "/v1/suggestions/quick",
            json!({
                "entityId": self.entity_id,
                "data": self.data,
                "title": self.title,
                "note": self.note,
            }),
        )
    }
}

#[tool_router]
impl Catalog {
    /// Find items by their names and titles, in Hebrew or English, or by a Hebrew date. Use it to
    /// get from a name ("Likkutei Sichos", "תניא") or a date ("19 Kislev 5749") to ids. Answers
    /// `{ results: [{ id, type, path, name: { he, en }, date?, match, score? }], date? }`, best
    /// first: the events of the date the query names (`match: "date"`, and `date: { key, he,
    /// en }` says which date it read), then exact titles, then titles starting with the query,
    /// then titles holding all its words. It searches names only; to find words inside texts
    /// use `search_words`.
    #[tool(annotations(title = "Search names and dates", read_only_hint = true))]
    async fn search(
        &self,
        Parameters(a): Parameters<SearchArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        self.relay.call("search", &parts, a.call()).await
    }

    /// Find where words occur inside texts: lines of scanned pages (OCR, marked `machine: true`
    /// until someone checks them) and paragraphs (segments) of texts and transcripts. Use it to
    /// find a quotation or a phrase. Answers `{ results: [{ item, type, path, kind, line?, page?,
    /// segment?, version?, text, machine, startMs?, highlight: { fragment, marks }, score }] }`,
    /// best match first: `item` is the id of the text page or text holding the words, `kind` is
    /// `line` or `segment`, `startMs` where a recording says them.
    #[tool(annotations(title = "Search inside texts", read_only_hint = true))]
    async fn search_words(
        &self,
        Parameters(a): Parameters<WordsArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        self.relay.call("search_words", &parts, a.call()).await
    }

    /// Read one item by its id: `{ id, type, path, rev, data }`, where `data` holds its fields
    /// (names, dates, references to other items by id) as its kind's JSON Schema describes them.
    /// With `at`, the item as it was at that commit. An item merged into another answers a
    /// `not-found` error whose `detail.mergedInto` is the id to read instead.
    #[tool(annotations(title = "Get an item", read_only_hint = true))]
    async fn get_item(
        &self,
        Parameters(a): Parameters<ItemArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        self.relay.call("get_item", &parts, a.call()).await
    }

    /// List the items under an item, in their own order: a work's units (sichos, maamarim,
    /// letters), a set's sets, a text's segments. Answers `{ items: [{ id, type, path, rev,
    /// data }], next }`; when `next` is not null, pass it as `cursor` for the next page.
    #[tool(annotations(title = "List an item's children", read_only_hint = true))]
    async fn list_children(
        &self,
        Parameters(a): Parameters<ChildrenArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        self.relay.call("list_children", &parts, a.call()).await
    }

    /// List the items that point at an item: the units of a work, the works of an author, the
    /// recordings of an event, and so on, by field, then kind, then id. Answers `{ backlinks:
    /// [{ from, type, field, path }], next }`: `from` is the linking item's id; when `next` is
    /// not null, pass it as `cursor` for the next page.
    #[tool(annotations(title = "List backlinks", read_only_hint = true))]
    async fn list_backlinks(
        &self,
        Parameters(a): Parameters<BacklinksArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        self.relay.call("list_backlinks", &parts, a.call()).await
    }

    /// Read the catalog's history: every merged change in order, oldest first. Use it to see
    /// what changed since a commit you know. Answers `{ commits: [{ seq, at, message, mergedBy,
    /// author, changes: [...], suggestion?, hash }], next }`: `message` is the suggestion's
    /// title, each change names an item and its new data. When `next` is not null, pass it as
    /// `cursor` for the next page; a null `next` means this is the newest page.
    #[tool(annotations(title = "Read the commit feed", read_only_hint = true))]
    async fn list_commits(
        &self,
        Parameters(a): Parameters<CommitsArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        self.relay.call("list_commits", &parts, a.call()).await
    }

    /// Read a date as people write it (Hebrew letters, English, a Gregorian day) into the
    /// catalog's Hebrew date key. Use it before looking things up by date. Answers `{ key, he,
    /// en }`: `key` like `5749-03-19` (day), `5749-03` (month) or `5749` (year); `he` and `en`
    /// the date written out. A Gregorian day is answered as the Hebrew day it falls on.
    #[tool(annotations(title = "Parse a Hebrew date", read_only_hint = true))]
    async fn parse_date(
        &self,
        Parameters(a): Parameters<DateArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        self.relay.call("parse_date", &parts, a.call()).await
    }

    /// Read what the catalog knows of a file (a scan's PDF, a recording's audio) by its sha256:
    /// `{ sha256, bytes, mime, rights, credit, url, derivations, pageImages, origin, measured,
    /// covers, usedBy: { total, first } }`. `rights` is open, credit, link or preserved; `url` is
    /// where its bytes are served (`/objects/<sha256>`), null while its rights or a takedown keep
    /// them back (`withheld` says why). Page images of a PDF are listed by
    /// `GET /v1/scans/{id}/pages`; a scan as IIIF at `/manifests/iiif/<scan id>.json`.
    #[tool(annotations(title = "Get a file's facts", read_only_hint = true))]
    async fn get_file(
        &self,
        Parameters(a): Parameters<FileArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        self.relay.call("get_file", &parts, a.call()).await
    }

    /// Propose a corrected version of one item, for people to review: it opens a suggestion at
    /// once (nothing changes in the catalog until a reviewer approves it). Needs the MCP
    /// connection to send `Authorization: Bearer catp_...` with a token that has the `write`
    /// scope; without one it answers an `unauthorized` or `forbidden` error. Answers the
    /// suggestion `{ id, number, status: "open", checks: [...], ... }`; read it later at
    /// `GET /v1/suggestions/{id}`. Say in `note` where the correction comes from.
    #[tool(annotations(
        title = "Suggest a fix to an item",
        read_only_hint = false,
        destructive_hint = false,
        idempotent_hint = false,
        open_world_hint = false
    ))]
    async fn suggest_fix(
        &self,
        Parameters(a): Parameters<QuickFixArgs>,
        Extension(parts): Extension<Parts>,
    ) -> CallToolResult {
        self.relay.call("suggest_fix", &parts, a.call()).await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Catalog {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("catalog", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}

#[cfg(test)]
mod tests {
    use serde::de::DeserializeOwned;

    use super::*;

    /// The arguments as an agent sends them.
    fn args<T: DeserializeOwned>(v: Value) -> T {
        serde_json::from_value(v).expect("arguments")
    }

    #[test]
    fn each_tool_asks_its_route_leaving_out_what_was_left_out() {
        let target = |c: Call| c.target();
        assert_eq!(
            target(args::<SearchArgs>(json!({ "q": "Sample Talks" })).call()),
            "/v1/search?q=Sample%20Talks"
        );
        assert_eq!(
            target(args::<SearchArgs>(json!({ "q": "x", "type": "event", "limit": 3 })).call()),
            "/v1/search?q=x&type=event&limit=3"
        );
        assert_eq!(
            target(args::<WordsArgs>(json!({ "q": "\"a b\"" })).call()),
            "/v1/search/moments?q=%22a%20b%22"
        );
        assert_eq!(
            target(args::<ItemArgs>(json!({ "id": "cat-7k2m9q4x" })).call()),
            "/v1/entities/cat-7k2m9q4x"
        );
        assert_eq!(
            target(args::<ItemArgs>(json!({ "id": "cat-7k2m9q4x", "at": 0 })).call()),
            "/v1/entities/cat-7k2m9q4x?at=0"
        );
        assert_eq!(
            target(
                args::<ChildrenArgs>(json!({
                    "id": "cat-7k2m9q4x", "field": "work", "type": "unit", "cursor": "a+b/c="
                }))
                .call()
            ),
            "/v1/entities/cat-7k2m9q4x/children?field=work&type=unit&cursor=a%2Bb%2Fc%3D"
        );
        assert_eq!(
            target(args::<BacklinksArgs>(json!({ "id": "cat-7k2m9q4x" })).call()),
            "/v1/entities/cat-7k2m9q4x/backlinks"
        );
        assert_eq!(
            target(
                args::<BacklinksArgs>(json!({ "id": "cat-7k2m9q4x", "type": "unit", "limit": 5 }))
                    .call()
            ),
            "/v1/entities/cat-7k2m9q4x/backlinks?type=unit&limit=5"
        );
        assert_eq!(target(args::<CommitsArgs>(json!({})).call()), "/v1/commits");
        assert_eq!(
            target(args::<CommitsArgs>(json!({ "since": 7, "limit": 2 })).call()),
            "/v1/commits?since=7&limit=2"
        );
        assert_eq!(
            target(args::<DateArgs>(json!({ "q": "י״ט כסלו" })).call()),
            "/v1/dates/parse?q=%D7%99%D7%B4%D7%98%20%D7%9B%D7%A1%D7%9C%D7%95"
        );
    }

    #[test]
    fn the_quick_fix_posts_the_routes_body() {
        let call = args::<QuickFixArgs>(json!({
            "entityId": "cat-7k2m9q4x", "data": { "name": { "en": "x" } },
            "title": "t", "note": "n"
        }))
        .call();
        assert_eq!(
            call,
            Call::post(
                "/v1/suggestions/quick",
                json!({
                    "entityId": "cat-7k2m9q4x", "data": { "name": { "en": "x" } },
                    "title": "t", "note": "n"
                })
            )
        );
    }

    #[test]
    fn unknown_arguments_are_refused_not_dropped() {
        let err = serde_json::from_value::<ItemArgs>(json!({ "id": "cat-7k2m9q4x", "rev": 2 }))
            .expect_err("an unknown argument");
        assert!(err.to_string().contains("rev"), "{err}");
    }

    #[test]
    fn every_tool_is_listed_with_a_description_and_a_schema() {
        let tools = Catalog::tool_router().list_all();
        let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "get_file",
                "get_item",
                "list_backlinks",
                "list_children",
                "list_commits",
                "parse_date",
                "search",
                "search_words",
                "suggest_fix"
            ]
        );
        for tool in &tools {
            assert!(
                tool.description.as_deref().is_some_and(|d| d.len() > 100),
                "{tool:?}"
            );
            assert_eq!(
                tool.input_schema.get("type"),
                Some(&json!("object")),
                "{tool:?}"
            );
        }
    }
}

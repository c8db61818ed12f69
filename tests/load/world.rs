//! What the clients work on, found through the API before the run: the demo items with their
//! ETags, the types to list, words to search for, and a few "hot" authors that many clients
//! edit at once.

use serde_json::{Value, json};

use crate::common::flow::{all_of, create, fresh_copy, head};
use crate::common::http::Api;
use crate::common::unique;

const TYPES: &[&str] = &[
    "author",
    "work",
    "unit",
    "event",
    "topic",
    "place",
    "publication",
    "set",
];
/// Authors that every client may rename: their merges race, and the loser's clash is expected.
const HOT: usize = 4;

pub struct World {
    /// Items nobody edits during the run, with the ETag each answered with before it.
    pub stable: Vec<(String, String)>,
    pub types: Vec<&'static str>,
    pub words: Vec<String>,
    pub hot: Vec<(String, Value)>,
    /// Data to copy for new authors.
    pub template: Value,
    pub head: u64,
}

impl World {
    pub async fn discover(anon: &Api, steward: &Api) -> World {
        let mut stable = Vec::new();
        let mut types = Vec::new();
        let mut words = Vec::new();
        for ty in TYPES {
            let items = all_of(anon, ty).await;
            if !items.is_empty() {
                types.push(*ty);
            }
            for item in items {
                let id = item["id"].as_str().expect("item id").to_string();
                let r = anon.get(&format!("/v1/entities/{id}")).await.expect(200);
                let etag = r.header("etag").expect("an item answers with an ETag");
                stable.push((id, etag));
                words.extend(first_word(&item["data"]));
            }
        }
        assert!(
            !stable.is_empty() && !words.is_empty(),
            "the demo catalog is empty"
        );
        let template = all_of(anon, "author").await[0]["data"].clone();
        let mut hot = Vec::new();
        for _ in 0..HOT {
            let data = fresh_copy(&template, &unique("hot"));
            let (id, _) = create(steward, "author", data.clone()).await;
            hot.push((id, data));
        }
        World {
            stable,
            types,
            words,
            hot,
            template,
            head: head(anon).await,
        }
    }
}

/// The first word of an item's English (else Hebrew) name or title, for a search.
fn first_word(data: &Value) -> Option<String> {
    ["name", "title"]
        .iter()
        .flat_map(|k| ["en", "he"].map(|lang| &data[k][lang]))
        .find_map(Value::as_str)
        .and_then(|s| s.split_whitespace().find(|w| w.chars().count() >= 3))
        .map(str::to_string)
}

/// A hot author's data with a new name.
pub fn renamed(data: &Value, name: &str) -> Value {
    let mut d = data.clone();
    d["name"] = json!({ "he": format!("שם {name}"), "en": name });
    d
}

//! What the served OpenAPI document says: that routes are described, and their parameters.

use std::collections::BTreeMap;

use serde_json::Value;

use super::http::Api;

/// `/openapi.json`, checked to describe every `(path, method)` of `routes`.
pub async fn documented(api: &Api, routes: &[(&str, &str)]) -> Value {
    let doc = api.get_json("/openapi.json").await;
    for (path, method) in routes {
        assert!(
            doc["paths"][path][method].is_object(),
            "{method} {path} is not documented"
        );
    }
    doc
}

/// The parameters of one operation by name, checked to hold each of `names`.
pub fn parameters<'a>(
    doc: &'a Value,
    path: &str,
    method: &str,
    names: &[&str],
) -> BTreeMap<&'a str, &'a Value> {
    let found: BTreeMap<&str, &Value> = doc["paths"][path][method]["parameters"]
        .as_array()
        .unwrap_or_else(|| panic!("{method} {path} has no parameters"))
        .iter()
        .filter_map(|p| Some((p["name"].as_str()?, p)))
        .collect();
    for name in names {
        assert!(
            found.contains_key(name),
            "{name} missing from the parameters of {method} {path}: {:?}",
            found.keys()
        );
    }
    found
}

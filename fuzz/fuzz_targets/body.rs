//! Structured bodies (and the run lists of segments): any JSON is a body or a refusal, and a
//! body that is read writes back as JSON that reads as the same body.
#![no_main]

use catalog_schemas::body::{Body, parse_content, parse_runs, runs_to_value};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let value = match serde_json::from_slice::<Value>(data) {
        Ok(value) => value,
        Err(_) => match std::str::from_utf8(data) {
            // Plain text reaches bodies too: a legacy body is a string.
            Ok(text) => Value::String(text.to_owned()),
            Err(_) => return,
        },
    };
    if let Ok(body) = Body::from_value(&value) {
        let written = body.to_value();
        let again = Body::from_value(&written).expect("a written body reads back");
        assert_eq!(again, body);
        let _ = (body.plain_text(), body.hrefs());
    }
    if let Ok(runs) = parse_runs(&value) {
        assert_eq!(parse_runs(&runs_to_value(&runs)).ok(), Some(runs));
    }
    let _ = parse_content(&value);
    if let Some(text) = value.as_str() {
        let body = Body::from_plain(text);
        assert_eq!(Body::from_value(&body.to_value()).ok(), Some(body));
    }
});

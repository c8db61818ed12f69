//! Route tests: the real router over a real temporary store, driven with `oneshot`.
//! `reads` covers the conventions of every route and the read routes; `writes` covers
//! credentials, the write path and the feed it produces; `snapshots` pins whole answers.

mod openapi;
mod reads;
mod snapshots;
mod writes;

use std::num::NonZeroU32;

use axum::body::{Body, to_bytes};
use axum::http::{Request, header};
use axum::response::Response;
use catalog_log_core::{Log, Store};
use catalog_projector::{Projector, ReadModels};
use catalog_workflow::{Handle, NewAccount, Scopes, Workflow};
use serde_json::Value;
use tower::ServiceExt as _;

use crate::{AppState, Settings, router};

pub(super) struct Harness {
    _dir: tempfile::TempDir,
    pub(super) state: AppState,
    app: crate::App,
}

pub(super) fn harness(per_minute: u32) -> Harness {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut cfs = catalog_projector::column_families();
    cfs.extend(catalog_workflow::column_families());
    cfs.extend(catalog_hooks::column_families());
    let store = Store::open(dir.path(), &cfs).expect("store");
    let log = Log::open(&store).expect("log");
    let projector = Projector::start(&store, &log).expect("projector");
    let read_models = ReadModels::new(&store);
    let workflow = Workflow::open(&store, &log, &projector, &read_models).expect("workflow");
    let search =
        catalog_search::SearchProjection::start(&dir.path().join("search"), &log).expect("search");
    let settings = Settings {
        rate_limit_per_minute: NonZeroU32::new(per_minute).expect("positive"),
        ..Settings::default()
    };
    let state = AppState::new(log, read_models, projector, workflow, search, settings);
    let app = router(state.clone());
    Harness {
        _dir: dir,
        state,
        app,
    }
}

impl Harness {
    /// An account and a token for it.
    pub(super) fn person(&self, handle: &str, steward: bool, scopes: Scopes) -> String {
        let wf = &self.state.workflow;
        let handle = Handle::parse(handle).expect("handle");
        wf.identity()
            .add_account(NewAccount {
                handle: handle.clone(),
                name: handle.as_str().to_owned(),
                steward,
                trusted: false,
                password: Some("a long enough password".into()),
            })
            .expect("account");
        wf.identity()
            .create_token(&handle, "test", scopes, None)
            .expect("token")
            .1
    }

    pub(super) async fn send(&self, req: Request<Body>) -> (Response<()>, Vec<u8>) {
        let res = self.app.clone().oneshot(req).await.expect("infallible");
        let (parts, body) = res.into_parts();
        let bytes = to_bytes(body, 1 << 24).await.expect("body").to_vec();
        (Response::from_parts(parts, ()), bytes)
    }

    pub(super) async fn get(&self, uri: &str, token: Option<&str>) -> (Response<()>, Vec<u8>) {
        let mut req = Request::get(uri);
        if let Some(t) = token {
            req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
        }
        self.send(req.body(Body::empty()).expect("request")).await
    }

    pub(super) async fn post(
        &self,
        uri: &str,
        token: Option<&str>,
        body: &Value,
    ) -> (Response<()>, Vec<u8>) {
        let mut req = Request::post(uri).header(header::CONTENT_TYPE, "application/json");
        if let Some(t) = token {
            req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
        }
        self.send(req.body(Body::from(body.to_string())).expect("request"))
            .await
    }
}

pub(super) fn json_of(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("not json ({e}): {}", String::from_utf8_lossy(bytes)))
}

pub(super) fn error_code(bytes: &[u8]) -> String {
    json_of(bytes)["error"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

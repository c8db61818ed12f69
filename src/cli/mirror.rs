//! `catalog mirror --from URL`: a read replica. The primary's commits are copied into this data
//! directory's log as they are (`catalog_replay::mirror`), folded by the same projector and
//! search index as any log, and served read-only until SIGTERM, or until the primary's chain
//! disagrees with the mirror's, which stops it with an error naming the commit.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use catalog_api::{AppState, MirrorStatus, Settings};
use catalog_replay::Progress;
use catalog_replay::mirror::{self, HttpFeed, Pace};

use super::args::MirrorArgs;
use super::serve::{cursor_key, run, runtime};
use super::store;

pub fn mirror(data: &Path, a: MirrorArgs) -> anyhow::Result<()> {
    let from = a.from.trim_end_matches('/').to_owned();
    anyhow::ensure!(
        from.starts_with("http://") || from.starts_with("https://"),
        "--from {from:?}: the primary's address starts with http:// or https://"
    );
    let services = store::services(data)?;
    store::mark_mirror(data, &from)?;
    let status = Arc::new(MirrorStatus::new(from.clone()));
    let settings = Settings {
        rate_limit_per_minute: a.rate_limit_per_minute,
        trusted_proxy: a.trusted_proxy,
        cursor_key: Some(cursor_key(data)?),
        ..Settings::default()
    };
    let log = services.log.clone();
    let git = super::serve::git_mirror(data, &a.git, &log)?;
    let store = services.store;
    let state = AppState::new(
        services.log,
        services.read_models,
        services.projector,
        services.workflow,
        services.search,
        settings,
    )
    .mirror_of(status.clone());
    let state = match git {
        Some(git) => state.with_git(git),
        None => state,
    };
    let state = a.oai.apply(state);

    let token = match &a.token_file {
        Some(path) => Some(
            std::fs::read_to_string(path)
                .with_context(|| format!("cannot read the token file {}", path.display()))?
                .trim()
                .to_owned(),
        ),
        None => None,
    };
    let mut feed = HttpFeed::new(&from, usize::from(a.page_size))
        .context("cannot make a client for the primary")?
        .with_token(token);
    let pace = Pace {
        poll: Duration::from_millis(a.poll_ms.get()),
        ..Pace::default()
    };
    let (stopped_tx, stopped) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("mirror".into())
        .spawn(move || {
            let outcome = mirror::follow(&log, &mut feed, Progress::Auto, pace, |contact| {
                status.contacted(contact.primary_head, contact.own_head);
            });
            let err = match outcome {
                Err(err) => anyhow::Error::new(err),
                Ok(()) => anyhow::anyhow!("the mirror's follower stopped"),
            };
            let _ = stopped_tx.send(err);
        })
        .context("cannot start the mirror's follower")?;
    let failed = async move {
        stopped
            .await
            .unwrap_or_else(|_| anyhow::anyhow!("the mirror's follower is gone"))
    };

    let runtime = runtime(a.blocking_threads)?;
    runtime
        .block_on(async {
            // A mirror is backed up like a primary: what it holds beyond the log is its own.
            let control = super::control::Context {
                store,
                editions: None,
            };
            super::control::listen(data, control);
            run(state, &a.addr, failed).await
        })
        .with_context(|| format!("mirror of {from} stopped"))
}

//! `catalog serve`: open the store, start the projector, optionally load the demo catalog, and
//! serve until SIGTERM or SIGINT.

use std::io::Write as _;
use std::net::SocketAddr;
use std::num::NonZeroUsize;
use std::path::Path;

use std::time::Duration;

use anyhow::Context as _;
use catalog_api::{AppState, CursorKey, PublicKey, Settings};
use catalog_log_core::Seq;

use super::args::{EditionSchedule, ServeArgs};
use super::store;

pub fn serve(data: &Path, a: ServeArgs) -> anyhow::Result<()> {
    store::refuse_mirror(data)?;
    let services = store::services(data)?;
    if a.demo {
        // Only an empty store gets the sample: a restart with --demo must not add it twice.
        if services.log.head() == Seq(0) {
            let report = catalog_workflow::demo::load(&services.workflow)
                .context("cannot load the demo catalog")?;
            tracing::info!(items = report.items, head = %report.head, "demo catalog loaded");
        } else {
            tracing::info!("store already has commits; --demo leaves it as it is");
        }
    }
    services
        .workflow
        .set_merge_wait(Duration::from_millis(a.merge_wait_ms));
    services.workflow.set_max_draft_items(a.max_draft_items);
    let settings = Settings {
        rate_limit_per_minute: a.rate_limit_per_minute,
        login_per_minute: a.login_attempts_per_minute,
        trusted_proxy: a.trusted_proxy,
        request_timeout: Duration::from_secs(a.request_timeout_secs.get()),
        max_in_flight: a.max_concurrent_requests.get(),
        cursor_key: Some(cursor_key(data)?),
    };
    let store = services.store;
    // Made (or read) at start so /v1/mirrors always lists the key editions are signed with.
    let key = super::editions::signing_key(data, a.signing_key.as_ref())?;
    let shelf = catalog_snapshots::Shelf::in_data_dir(data);
    let public = PublicKey {
        key_id: key.key_id(),
        public_base64: key.public_base64(),
    };
    let maker = super::editions::Maker {
        read_models: services.read_models.clone(),
        log: services.log.clone(),
        shelf: shelf.clone(),
        key: std::sync::Arc::new(key),
        one_at_a_time: std::sync::Arc::default(),
    };
    if a.editions == Some(EditionSchedule::Weekly) {
        super::editions::spawn_weekly(maker.clone())?;
    }
    let git = git_mirror(data, &a.git, &services.log)?;
    let blobs = catalog_blobs::Blobs::open(data, a.objects.as_deref())
        .context("cannot open the file store")?;
    let state = AppState::new(
        services.log,
        services.read_models,
        services.projector,
        services.workflow,
        services.search,
        settings,
    )
    .with_editions(shelf, public)
    .with_blobs(blobs.clone());
    let hooks = catalog_hooks::Hooks::new(
        &state.log,
        std::sync::Arc::new(catalog_workflow::SystemClock),
        catalog_hooks::Policy {
            allow_http: a.allow_http_webhooks,
        },
    );
    if a.allow_http_webhooks {
        tracing::warn!("webhooks may post to http:// and loopback addresses (local tests only)");
    }
    let state = state.with_hooks(hooks.clone());
    let state = match git {
        Some(git) => state.with_git(git),
        None => state,
    };
    let state = a.oai.apply(state);
    let state = match (&a.captcha_verify_url, &a.captcha_secret_file) {
        (Some(url), Some(file)) => {
            let secret = std::fs::read_to_string(file)
                .with_context(|| format!("cannot read the captcha secret {}", file.display()))?;
            let verifier = catalog_api::captcha::CaptchaVerifier::new(url, &secret)
                .map_err(anyhow::Error::msg)?;
            state.with_captcha(verifier)
        }
        _ => {
            tracing::warn!(
                "no captcha verifier (--captcha-verify-url): any non-empty captcha is taken"
            );
            state
        }
    };
    let runtime = runtime(a.blocking_threads)?;
    runtime.block_on(async {
        let control = super::control::Context {
            store,
            editions: Some(maker),
        };
        super::control::listen(data, control);
        // Uploads cut off by a crash left temporaries; a day old is old enough to be sure.
        match blobs.sweep_temporaries(Duration::from_secs(86_400)).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(removed = n, "abandoned upload temporaries removed"),
            Err(e) => tracing::warn!(error = %e, "cannot sweep upload temporaries"),
        }
        // The deliverer starts with the server and stops with its runtime; what it had not yet
        // recorded as delivered is delivered again after a restart.
        catalog_hooks::spawn(
            hooks,
            catalog_hooks::Schedule::scaled(a.webhook_retry_scale),
        )
        .context("cannot start the webhook deliverer")?;
        run(state, &a.addr, std::future::pending()).await
    })
}

/// The git mirror in DATA/git, started when asked for: it catches up on a thread of its own,
/// so the server answers at once however far behind the repository is.
pub(super) fn git_mirror(
    data: &Path,
    args: &super::args::GitArgs,
    log: &catalog_log_core::Log,
) -> anyhow::Result<Option<catalog_snapshots::GitMirror>> {
    if !args.git_mirror {
        return Ok(None);
    }
    let root = catalog_snapshots::git::git_root(data);
    let git = catalog_snapshots::GitMirror::start(&root, log, args.git_batch)
        .with_context(|| format!("cannot keep the git mirror in {}", root.display()))?;
    Ok(Some(git))
}

/// The file in the data directory that keeps the cursor key.
const CURSOR_KEY_FILE: &str = "cursor.key";

/// The key of cursor checksums: read from the data directory, or made from the system's random
/// source on the first start (readable by the owner only).
pub(super) fn cursor_key(data: &Path) -> anyhow::Result<CursorKey> {
    use std::io::Read as _;
    use std::os::unix::fs::OpenOptionsExt as _;

    let path = data.join(CURSOR_KEY_FILE);
    match std::fs::read(&path) {
        Ok(bytes) => {
            let key: [u8; 32] = bytes.as_slice().try_into().map_err(|_| {
                anyhow::anyhow!(
                    "{} is not 32 bytes: delete it to make a new key (open cursors stop working)",
                    path.display()
                )
            })?;
            return Ok(CursorKey(key));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
    let mut key = [0u8; 32];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut key))
        .context("cannot read the system's random source")?;
    let tmp = data.join(format!("{CURSOR_KEY_FILE}.tmp"));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    file.write_all(&key)?;
    file.sync_all()?;
    std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
    tracing::info!(path = %path.display(), "cursor key made");
    Ok(CursorKey(key))
}

/// The runtime a server (`serve` or `mirror`) answers on. Its blocking pool, where requests' store
/// work runs, is bounded: each of its threads keeps allocator pages of its own.
pub(super) fn runtime(blocking_threads: NonZeroUsize) -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(blocking_threads.get())
        .build()
        .context("cannot start the async runtime")
}

/// Serves `state` on `addr` until SIGTERM or SIGINT, or until `failed` gives an error (a mirror's
/// follower stopping), which is then returned once the server has stopped.
pub(super) async fn run(
    state: AppState,
    addr: &str,
    failed: impl Future<Output = anyhow::Error> + Send + 'static,
) -> anyhow::Result<()> {
    // Watched before the address is announced: whoever starts the server may stop it as soon as
    // it says it listens, and a SIGTERM that came before the watch would kill it ungracefully.
    let signal = shutdown_signal()?;
    let (failure_tx, mut failure) = tokio::sync::oneshot::channel();
    let stop = async move {
        tokio::select! {
            () = signal => {}
            err = failed => {
                tracing::error!(error = %format!("{err:#}"), "stopping");
                let _ = failure_tx.send(err);
            }
        }
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr()?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "listening on http://{local}")?;
    out.flush()?;
    drop(out);
    tracing::info!(%local, "serving");
    let app = catalog_api::router(state);
    axum::serve(
        listener,
        axum::ServiceExt::<axum::extract::Request>::into_make_service_with_connect_info::<
            SocketAddr,
        >(app),
    )
    .with_graceful_shutdown(stop)
    .await
    .context("server failed")?;
    if let Ok(err) = failure.try_recv() {
        return Err(err);
    }
    tracing::info!("stopped");
    Ok(())
}

/// SIGTERM or SIGINT (Ctrl-C), watched from the moment this is called. axum polls the future it
/// is given on a task of its own, possibly after the first requests: a signal watched only from
/// that first poll could arrive unwatched and kill the process.
fn shutdown_signal() -> anyhow::Result<impl Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).context("cannot watch for SIGTERM")?;
    let mut interrupt = signal(SignalKind::interrupt()).context("cannot watch for SIGINT")?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => {},
            _ = interrupt.recv() => {},
        }
        tracing::info!("shutting down");
    })
}

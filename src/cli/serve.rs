//! `catalog serve`: open the store, start the projector, optionally load the demo catalog, and
//! serve until SIGTERM or SIGINT.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::Path;

use anyhow::Context as _;
use catalog_api::{AppState, Settings};
use catalog_log_core::Seq;

use super::args::ServeArgs;
use super::store;

pub fn serve(data: &Path, a: ServeArgs) -> anyhow::Result<()> {
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
    let state = AppState::new(
        services.log,
        services.read_models,
        services.projector,
        services.workflow,
        services.search,
        Settings {
            rate_limit_per_minute: a.rate_limit_per_minute,
        },
    );
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(run(state, &a.addr))
}

async fn run(state: AppState, addr: &str) -> anyhow::Result<()> {
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
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown_signal())
    .await
    .context("server failed")?;
    tracing::info!("stopped");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("shutting down");
}

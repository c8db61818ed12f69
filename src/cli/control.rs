//! The control socket: how an operator command reaches the server holding the store.
//!
//! A running server holds the database's lock, so `catalog backup` cannot open the store beside
//! it. Instead the server listens on `<data>/control.sock`, a Unix socket only the data
//! directory's owner may open (mode 0600, no token, never on the network), for one JSON line
//! asking for an operation and answers one JSON line. Only operations that are safe while the
//! server runs are offered (a backup; an edition, one at a time with the weekly ones); each runs
//! on a blocking thread, never on the request path.

use std::io::{BufRead as _, BufReader, Write as _};
use std::os::unix::fs::PermissionsExt as _;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use catalog_log_core::Store;
use catalog_snapshots::edition::Tag;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _};

use super::editions::Maker;

const SOCKET: &str = "control.sock";
/// The longest request line read; a request names an operation and a path.
const MAX_REQUEST_BYTES: u64 = 16 * 1024;

pub fn socket_path(data: &Path) -> PathBuf {
    data.join(SOCKET)
}

/// What an operator asks the server for.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum Request {
    /// A backup into `out` (absolute: the server's working directory is not the caller's).
    Backup { out: PathBuf },
    /// An edition, with this tag or the next free one of this week.
    Edition { tag: Option<String> },
}

/// An edition the server made, as the command line reports it.
#[derive(Debug, Serialize, Deserialize)]
pub struct EditionMade {
    pub tag: String,
    pub commit_seq: u64,
    pub items: u64,
    pub dir: PathBuf,
}

/// The server's answer: the operation's report, or why it failed.
#[derive(Debug, Serialize, Deserialize)]
pub struct Response {
    pub ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<catalog_snapshots::BackupInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edition: Option<EditionMade>,
}

/// What the operations run against: the store, and the server's edition maker when it makes
/// editions (a mirror does not).
#[derive(Clone)]
pub struct Context {
    pub store: Store,
    pub editions: Option<Maker>,
}

/// Listens on the data directory's control socket until the runtime stops. A server whose
/// socket cannot be made (a path too long for a Unix socket, say) serves on without it: only
/// operator commands against the running server are lost, and it says so.
pub fn listen(data: &Path, context: Context) {
    let path = socket_path(data);
    // The server holds the store's lock, so a socket file here is one a dead server left.
    let _ = std::fs::remove_file(&path);
    let listener = match tokio::net::UnixListener::bind(&path) {
        Ok(listener) => listener,
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e,
                "no control socket: `catalog backup` cannot reach this server");
            return;
        }
    };
    if let Err(e) = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)) {
        tracing::warn!(path = %path.display(), error = %e, "control socket left unopened");
        drop(listener);
        let _ = std::fs::remove_file(&path);
        return;
    }
    let data = data.to_path_buf();
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let context = context.clone();
            let data = data.clone();
            tokio::spawn(async move {
                if let Err(e) = answer(stream, context, data).await {
                    tracing::warn!(error = %e, "control request failed");
                }
            });
        }
    });
}

async fn answer(
    stream: tokio::net::UnixStream,
    context: Context,
    data: PathBuf,
) -> anyhow::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut line = String::new();
    tokio::io::BufReader::new(read.take(MAX_REQUEST_BYTES))
        .read_line(&mut line)
        .await?;
    let response = match serde_json::from_str::<Request>(&line) {
        Ok(request) => {
            tracing::info!(?request, "control request");
            tokio::task::spawn_blocking(move || run(request, &context, &data)).await?
        }
        Err(e) => refused(format!("not a control request: {e}")),
    };
    let mut bytes = serde_json::to_vec(&response)?;
    bytes.push(b'\n');
    write.write_all(&bytes).await?;
    Ok(())
}

fn run(request: Request, context: &Context, data: &Path) -> Response {
    match request {
        Request::Backup { out } if !out.is_absolute() => {
            refused(format!("{}: give an absolute path", out.display()))
        }
        Request::Backup { out } => match catalog_snapshots::backup(&context.store, data, &out) {
            Ok(info) => Response {
                backup: Some(info),
                ..done()
            },
            Err(e) => refused(e.to_string()),
        },
        Request::Edition { tag } => {
            let Some(maker) = &context.editions else {
                return refused("this server makes no editions (a mirror)".into());
            };
            let tag = match tag.as_deref().map(str::parse::<Tag>).transpose() {
                Ok(tag) => tag,
                Err(e) => return refused(format!("--tag: {e}")),
            };
            match maker.make(tag) {
                Ok(made) => Response {
                    edition: Some(EditionMade {
                        tag: made.tag.to_string(),
                        commit_seq: made.manifest.commit_seq,
                        items: made.items,
                        dir: made.dir,
                    }),
                    ..done()
                },
                Err(e) => refused(e.to_string()),
            }
        }
    }
}

fn done() -> Response {
    Response {
        ok: true,
        error: None,
        backup: None,
        edition: None,
    }
}

fn refused(error: String) -> Response {
    Response {
        ok: false,
        error: Some(error),
        ..done()
    }
}

/// Asks the server holding `data` to carry out `request`, waiting as long as it takes.
pub fn ask(data: &Path, request: &Request) -> anyhow::Result<Response> {
    let path = socket_path(data);
    let mut stream = UnixStream::connect(&path).with_context(|| {
        format!(
            "a server holds {} but its control socket {} does not answer",
            data.display(),
            path.display()
        )
    })?;
    let mut bytes = serde_json::to_vec(request)?;
    bytes.push(b'\n');
    stream.write_all(&bytes)?;
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line)?;
    serde_json::from_str(&line).with_context(|| format!("the server answered {line:?}"))
}

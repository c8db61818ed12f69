// The harness signals the servers it starts and asks the kernel to end them with it (libc).
#![allow(unsafe_code)]

//! Harness shared by the end-to-end tests: a temporary data directory, the
//! operator commands run against it, and `catalog serve` started on port 0.
//!
//! Every server is spawned by one long-lived thread with `PR_SET_PDEATHSIG`,
//! so a server shared through a `static` (never dropped) still dies with the
//! test binary instead of outliving it.
//!
//! Layout:
//! - `mod.rs` — data directories, operator commands, server processes.
//! - `http.rs` — a small HTTP client over reqwest that keeps status, headers and bytes.
//! - `conformance.rs` — checks every JSON answer against the served OpenAPI document.
//! - `flow.rs` — suggestion helpers (draft, put, submit, approve) and demo-catalog discovery.
//! - `openapi.rs` — checks that routes and their parameters are in the OpenAPI document.
//! - `measure.rs` — knobs from the environment, a seeded random source, latencies, RSS samples.
//! - `tools.rs` — other programs run and checked, and Python with packages from PyPI.

#![allow(dead_code)] // each test file uses a different part of the harness

pub mod conformance;
pub mod flow;
pub mod http;
pub mod measure;
pub mod openapi;
pub mod tools;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use http::Api;

/// How long a server may take to print its address (the demo catalog is
/// loaded through real, fsynced merges before that).
const START_DEADLINE: Duration = Duration::from_secs(120);
/// How long a graceful stop may take before the server is killed.
const STOP_DEADLINE: Duration = Duration::from_secs(30);

/// A rate limit high enough that a whole test file never meets it.
pub const GENEROUS_RATE: &str = "1000000";

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_catalog")
}

/// A name no other test in this run uses (lowercase, fit for slugs and handles).
pub fn unique(prefix: &str) -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{prefix}-{}-{n}-{:x}", std::process::id(), nanos % 0xffff)
}

/// A temporary directory holding the store (`data/`) and the server logs.
pub struct DataDir {
    root: tempfile::TempDir,
    starts: AtomicU64,
}

impl Default for DataDir {
    fn default() -> Self {
        Self::new()
    }
}

impl DataDir {
    pub fn new() -> Self {
        let root = tempfile::Builder::new()
            .prefix("catalog-e2e-")
            .tempdir()
            .expect("temp dir");
        Self {
            root,
            starts: AtomicU64::new(0),
        }
    }

    /// The store directory handed to `--data` (not created: the binary makes it).
    pub fn path(&self) -> PathBuf {
        self.root.path().join("data")
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(bin());
        cmd.args(args)
            .arg("--data")
            .arg(self.path())
            .env("CATALOG_DATA", self.path())
            .env("RUST_LOG", "warn")
            .env("NO_COLOR", "1");
        cmd
    }

    /// Runs `catalog <args> --data DIR` to completion.
    pub fn cli(&self, args: &[&str]) -> Output {
        self.cli_stdin(args, None)
    }

    pub fn cli_stdin(&self, args: &[&str], stdin: Option<&str>) -> Output {
        let mut cmd = self.command(args);
        cmd.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn catalog");
        if let Some(text) = stdin {
            let mut pipe = child.stdin.take().expect("stdin pipe");
            pipe.write_all(text.as_bytes()).expect("write stdin");
        }
        child.wait_with_output().expect("wait for catalog")
    }

    /// Runs a command that must succeed and returns its stdout.
    pub fn cli_ok(&self, args: &[&str], stdin: Option<&str>) -> String {
        let out = self.cli_stdin(args, stdin);
        assert!(
            out.status.success(),
            "catalog {args:?} failed with {}:\nstdout: {}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8 stdout")
    }

    /// `catalog account add HANDLE [--steward] [--trusted] [--password-stdin]`.
    pub fn add_account(&self, handle: &str, steward: bool, trusted: bool, password: Option<&str>) {
        let mut args = vec!["account", "add", handle, "--name", handle];
        if steward {
            args.push("--steward");
        }
        if trusted {
            args.push("--trusted");
        }
        if password.is_some() {
            args.push("--password-stdin");
        }
        let stdin = password.map(|p| format!("{p}\n"));
        self.cli_ok(&args, stdin.as_deref());
    }

    /// `catalog token add HANDLE --scopes SCOPES`; the token printed alone on stdout.
    pub fn add_token(&self, handle: &str, scopes: &str) -> String {
        self.add_named_token(handle, scopes, &unique("e2e"))
    }

    /// A read+write token named `bot:import`: what the service treats as a bot's (imports may
    /// hold more items).
    pub fn add_bot_token(&self, handle: &str) -> String {
        self.add_named_token(handle, "read,write", "bot:import")
    }

    fn add_named_token(&self, handle: &str, scopes: &str, name: &str) -> String {
        let out = self.cli_ok(
            &["token", "add", handle, "--scopes", scopes, "--name", name],
            None,
        );
        let token = out.trim().to_string();
        assert!(
            token.starts_with("catp_") && !token.contains(char::is_whitespace),
            "token add printed more than a token: {out:?}"
        );
        token
    }

    /// An account with the given roles and a read+write token for it.
    pub fn person(&self, handle: &str, steward: bool) -> String {
        self.add_account(handle, steward, false, None);
        self.add_token(handle, "read,write")
    }

    /// For each role a plain person (neither steward nor trusted) with a unique handle and a
    /// read+write token: the token under `role`, the handle under `role-handle`.
    pub fn add_people(&self, extra: &mut BTreeMap<String, String>, roles: &[&str]) {
        for role in roles {
            let handle = unique(role);
            extra.insert(role.to_string(), self.person(&handle, false));
            extra.insert(format!("{role}-handle"), handle);
        }
    }

    /// A trusted person (their line fixes in open sets go live) with a read+write token: the
    /// token under `role`, the handle under `role-handle`.
    pub fn add_trusted(&self, extra: &mut BTreeMap<String, String>, role: &str) {
        let handle = unique(role);
        self.add_account(&handle, false, true, None);
        extra.insert(role.to_string(), self.add_token(&handle, "read,write"));
        extra.insert(format!("{role}-handle"), handle);
    }

    /// A person whose only token may read, under `reader`.
    pub fn add_reader(&self, extra: &mut BTreeMap<String, String>) {
        let reader = unique("reader");
        self.add_account(&reader, false, false, None);
        extra.insert("reader".into(), self.add_token(&reader, "read"));
    }

    /// Starts `catalog serve --data DIR --addr 127.0.0.1:0 <extra>` and waits
    /// for the `listening on` line.
    pub fn start(&self, extra: &[&str]) -> Server {
        self.start_env(extra, &[])
    }

    /// Like `start`, with these variables in the server's environment (the S3 settings).
    pub fn start_env(&self, extra: &[&str], env: &[(&str, &str)]) -> Server {
        let mut args: Vec<String> = vec!["serve".into(), "--addr".into(), "127.0.0.1:0".into()];
        args.extend(extra.iter().map(|s| s.to_string()));
        self.launch_env(args, env)
    }

    /// Starts `catalog mirror --from FROM --data DIR --addr 127.0.0.1:0 <extra>` and waits for
    /// the `listening on` line.
    pub fn start_mirror(&self, from: &str, extra: &[&str]) -> Server {
        let mut args: Vec<String> = vec![
            "mirror".into(),
            "--from".into(),
            from.into(),
            "--addr".into(),
            "127.0.0.1:0".into(),
            "--rate-limit-per-minute".into(),
            GENEROUS_RATE.into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        self.launch(args)
    }

    fn launch(&self, args: Vec<String>) -> Server {
        self.launch_env(args, &[])
    }

    fn launch_env(&self, args: Vec<String>, env: &[(&str, &str)]) -> Server {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let n = self.starts.fetch_add(1, Ordering::Relaxed);
        let log = self.root.path().join(format!("server-{n}.log"));
        let data = self.path();
        let log_file = log.clone();
        let mut child = spawn_detached(Box::new(move || {
            let stderr = std::fs::File::create(&log_file)?;
            let mut cmd = Command::new(bin());
            cmd.args(&args)
                .arg("--data")
                .arg(&data)
                .env("CATALOG_DATA", &data)
                .env("RUST_LOG", "info")
                .env("NO_COLOR", "1")
                .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::from(stderr));
            // SAFETY: prctl is async-signal-safe and touches no memory of ours.
            unsafe {
                cmd.pre_exec(|| {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                    Ok(())
                });
            }
            cmd.spawn()
        }))
        .expect("spawn catalog serve");

        let stdout = child.stdout.take().expect("stdout pipe");
        let (tx, rx) = mpsc::channel::<String>();
        std::thread::spawn(move || {
            // Keep draining after the first line so the server never blocks on a full pipe.
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + START_DEADLINE;
        let base = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    if let Some(rest) = line.trim().strip_prefix("listening on ") {
                        break rest.trim().trim_end_matches('/').to_string();
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!(
                        "catalog serve did not print `listening on` (log {}):\n{}",
                        log.display(),
                        tail(&log)
                    );
                }
            }
        };
        assert!(
            base.starts_with("http://127.0.0.1:"),
            "server announced a non-loopback address: {base}"
        );
        Server {
            child: Mutex::new(Some(child)),
            base,
            log,
        }
    }
}

type SpawnJob = Box<dyn FnOnce() -> std::io::Result<Child> + Send>;

/// Spawns on a thread that lives as long as the test binary, so that the
/// parent-death signal fires only when the whole binary goes away.
fn spawn_detached(job: SpawnJob) -> std::io::Result<Child> {
    type Request = (SpawnJob, mpsc::Sender<std::io::Result<Child>>);
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<Request>>> = OnceLock::new();
    let spawner = SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Request>();
        std::thread::spawn(move || {
            while let Ok((job, reply)) = rx.recv() {
                let _ = reply.send(job());
            }
        });
        Mutex::new(tx)
    });
    let (reply_tx, reply_rx) = mpsc::channel();
    spawner
        .lock()
        .expect("spawner lock")
        .send((job, reply_tx))
        .expect("spawner alive");
    reply_rx.recv().expect("spawner answered")
}

/// The last lines of a server log, for failure messages.
pub fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

/// A running `catalog serve`; killed when dropped.
pub struct Server {
    child: Mutex<Option<Child>>,
    pub base: String,
    pub log: PathBuf,
}

impl Server {
    pub fn anon(&self) -> Api {
        Api::new(&self.base, None)
    }

    pub fn with_token(&self, token: &str) -> Api {
        Api::new(&self.base, Some(http::Auth::Bearer(token.to_string())))
    }

    pub fn pid(&self) -> Option<i32> {
        self.child
            .lock()
            .expect("child lock")
            .as_ref()
            .map(|c| c.id() as i32)
    }

    /// SIGTERM, then wait for a clean exit (SIGKILL after the deadline).
    /// Returns whether the server exited successfully on its own.
    pub fn stop(&self) -> bool {
        let Some(mut child) = self.child.lock().expect("child lock").take() else {
            return true;
        };
        // SAFETY: signalling our own child by its pid.
        unsafe {
            libc::kill(child.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + STOP_DEADLINE;
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return status.success(),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return false;
                }
            }
        }
    }

    /// Waits up to `timeout` for the server to exit on its own; its status, or `None` when it
    /// still runs.
    pub fn wait_exit(&self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            let mut guard = self.child.lock().expect("child lock");
            let child = guard.as_mut()?;
            if let Ok(Some(status)) = child.try_wait() {
                guard.take();
                return Some(status);
            }
            drop(guard);
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGKILL: no chance to flush anything that was not already durable.
    pub fn kill(&self) {
        if let Some(mut child) = self.child.lock().expect("child lock").take() {
            // SAFETY: signalling our own child by its pid.
            unsafe {
                libc::kill(child.id() as i32, libc::SIGKILL);
            }
            let _ = child.wait();
        }
    }

    pub fn log_tail(&self) -> String {
        tail(&self.log)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A demo server shared by the tests of one file, with a steward's token.
pub struct Shared {
    pub dir: DataDir,
    pub server: Server,
    pub steward_handle: String,
    pub steward: String,
    /// Whatever `prepare` made before the start (tokens, handles), by name.
    pub extra: BTreeMap<String, String>,
}

impl Shared {
    /// Makes a steward, starts `serve --demo` with a generous rate limit.
    pub fn start_demo() -> Shared {
        Self::start_demo_with(|_, _| {})
    }

    /// Like `start_demo`, letting `prepare` make accounts and tokens first.
    pub fn start_demo_with(
        prepare: impl FnOnce(&DataDir, &mut BTreeMap<String, String>),
    ) -> Shared {
        Self::start_demo_flags(&[], prepare)
    }

    /// Like `start_demo_with`, with more flags for `serve`.
    pub fn start_demo_flags(
        flags: &[&str],
        prepare: impl FnOnce(&DataDir, &mut BTreeMap<String, String>),
    ) -> Shared {
        let dir = DataDir::new();
        let steward_handle = unique("steward");
        let steward = dir.person(&steward_handle, true);
        let mut extra = BTreeMap::new();
        prepare(&dir, &mut extra);
        let mut args = vec!["--demo", "--rate-limit-per-minute", GENEROUS_RATE];
        args.extend_from_slice(flags);
        let server = dir.start(&args);
        clean_at_exit(server.pid(), dir.root.path());
        Shared {
            dir,
            server,
            steward_handle,
            steward,
            extra,
        }
    }

    pub fn token(&self, name: &str) -> Api {
        let t = self
            .extra
            .get(name)
            .unwrap_or_else(|| panic!("no token named {name} was prepared"));
        self.server.with_token(t)
    }

    pub fn anon(&self) -> Api {
        self.server.anon()
    }

    /// The handle `prepare` stored under `role-handle` (see [`DataDir::add_people`]).
    pub fn handle(&self, role: &str) -> String {
        self.extra
            .get(&format!("{role}-handle"))
            .unwrap_or_else(|| panic!("no handle for {role} was prepared"))
            .clone()
    }

    pub fn steward(&self) -> Api {
        self.server.with_token(&self.steward)
    }
}

/// A `static` is never dropped: kill its server and remove its directory when
/// the test binary exits.
fn clean_at_exit(pid: Option<i32>, dir: &Path) {
    static LEFT: Mutex<Vec<(Option<i32>, PathBuf)>> = Mutex::new(Vec::new());
    extern "C" fn clean() {
        if let Ok(mut left) = LEFT.lock() {
            for (pid, dir) in left.drain(..) {
                if let Some(pid) = pid {
                    // SAFETY: signalling our own child by its pid.
                    unsafe {
                        libc::kill(pid, libc::SIGKILL);
                        libc::waitpid(pid, std::ptr::null_mut(), 0);
                    }
                }
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }
    let mut left = LEFT.lock().expect("cleanup list");
    if left.is_empty() {
        // SAFETY: registers a plain function with no captured state.
        unsafe {
            libc::atexit(clean);
        }
    }
    left.push((pid, dir.to_path_buf()));
}

/// Polls `probe` until it returns `Some` or the deadline passes.
pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = probe().await {
            return v;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

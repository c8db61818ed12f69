//! A store held by another process: opening it must fail fast with `Error::Locked`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use catalog_log_core::{Error, Store};

const HOLD_ENV: &str = "LOG_CORE_TEST_HOLD_DIR";

/// Child side: when started by the parent test, opens the store and holds it until its stdin
/// closes. Without the environment variable it does nothing.
#[test]
fn hold_store_child() {
    let Ok(dir) = std::env::var(HOLD_ENV) else {
        return;
    };
    let _store = Store::open(dir.as_ref(), &[]).expect("child opens the store");
    println!("holding");
    std::io::stdout().flush().unwrap();
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
}

#[test]
fn a_store_held_by_another_process_is_locked() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "hold_store_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(HOLD_ENV, dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while !line.contains("holding") {
        line.clear();
        assert!(out.read_line(&mut line).unwrap() > 0, "child exited early");
    }

    let result = Store::open(dir.path(), &[]);
    drop(child.stdin.take());
    child.wait().unwrap();
    match result {
        Err(Error::Locked(message)) => {
            assert!(
                message.contains(&dir.path().display().to_string()),
                "{message}"
            );
        }
        Err(other) => panic!("expected Locked, got {other}"),
        Ok(_) => panic!("opened a store another process holds"),
    }
    // Once the other process is gone the store opens.
    Store::open(dir.path(), &[]).unwrap();
}

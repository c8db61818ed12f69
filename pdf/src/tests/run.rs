//! Running a program: a missing one, a failing one, one past its time limit.

use std::time::{Duration, Instant};

use crate::Error;
use crate::run::run;

#[test]
fn a_program_not_installed_says_how_to_install_poppler() {
    let error = run("catalog-pdf-no-such-program", &[], Duration::from_secs(5)).unwrap_err();
    assert!(matches!(
        error,
        Error::Missing {
            program: "catalog-pdf-no-such-program"
        }
    ));
    assert_eq!(
        error.to_string(),
        "catalog-pdf-no-such-program is not installed: apt-get install poppler-utils"
    );
}

#[test]
fn a_program_past_its_limit_is_killed() {
    let started = Instant::now();
    let args = ["30".into()];
    let error = run("sleep", &args, Duration::from_millis(200)).unwrap_err();
    assert!(
        matches!(
            error,
            Error::TimedOut {
                program: "sleep",
                ..
            }
        ),
        "{error:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        error.to_string(),
        "sleep took longer than 0.2s and was stopped"
    );
}

#[test]
fn exit_status_one_is_a_pdf_poppler_cannot_open_and_others_are_the_tools() {
    let args = [
        "-c".into(),
        "echo first >&2; echo 'Syntax Error: no trailer' >&2; exit 1".into(),
    ];
    let error = run("sh", &args, Duration::from_secs(5)).unwrap_err();
    assert!(
        matches!(&error, Error::NotPdf { reason } if reason == "sh: Syntax Error: no trailer"),
        "{error:?}"
    );
    let args = ["-c".into(), "echo out of memory >&2; exit 99".into()];
    let error = run("sh", &args, Duration::from_secs(5)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "sh failed (exit status 99): out of memory"
    );
}

#[test]
fn a_large_output_on_both_pipes_does_not_block_the_child() {
    // 1 MiB on stdout and 1 MiB on stderr, far past a pipe's buffer.
    let args = [
        "-c".into(),
        "head -c 1048576 /dev/zero; head -c 1048576 /dev/zero >&2".into(),
    ];
    let out = run("sh", &args, Duration::from_secs(10)).unwrap();
    assert_eq!(out.stdout.len(), 1 << 20);
}

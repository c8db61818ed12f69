//! The programs the tests need, installed from Debian when missing (as the workspace's
//! `tests/common/tools.rs` does), and Python with a package from PyPI in a virtualenv.

use std::path::Path;
use std::process::Command;
use std::sync::Once;

/// Runs a program, failing the test with its output when it fails; answers its stdout.
pub fn run(program: &str, args: &[&str], dir: Option<&Path>) -> String {
    let mut cmd = Command::new(program);
    cmd.args(args);
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// poppler's programs, Pango's `pango-view` and a font with Hebrew: installed once per machine
/// (tests start together; one installs while the others wait on the lock).
pub fn poppler_and_pango() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        debian(
            &["poppler-utils", "pango1.0-tools", "fonts-dejavu-core"],
            &["pdfinfo", "pdftoppm", "pdfunite", "pango-view"],
        );
    });
}

/// Installs Debian's `packages` unless every program in `programs` is already on the machine.
fn debian(packages: &[&str], programs: &[&str]) {
    let script = format!(
        r#"set -e
exec 9>/tmp/catalog-apt.lock
flock 9
for p in {programs}; do command -v "$p" >/dev/null 2>&1 || missing=1; done
if [ -n "${{missing:-}}" ]; then
    sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd=sudo
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq {packages} >/dev/null
fi"#,
        programs = programs.join(" "),
        packages = packages.join(" "),
    );
    run("bash", &["-c", &script], None);
}

/// The Python of a virtualenv `~/.cache/<name>` holding `packages` (whose modules are
/// `modules`, comma separated), made once per machine; `python3-venv` is installed when missing.
pub fn python_with(name: &str, packages: &[&str], modules: &str) -> String {
    let venv = std::env::var("HOME")
        .map_or_else(|_| format!("/tmp/{name}"), |h| format!("{h}/.cache/{name}"));
    let packages = packages.join(" ");
    let script = format!(
        r#"set -e
venv={venv}
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if ! "$venv/bin/python" -c 'import {modules}' 2>/dev/null; then
    if ! python3 -m venv "$venv" 2>/dev/null; then
        (flock 8; apt-get update -qq && apt-get install -y -qq python3-venv) 8>/tmp/catalog-apt.lock
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install --quiet {packages}
fi"#
    );
    run("bash", &["-c", &script], None);
    format!("{venv}/bin/python")
}

//! Programs the tests run as a stranger would: any command, checked, and Python with packages
//! from PyPI in a virtualenv of its own.

use std::path::Path;
use std::process::Command;

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

/// The Python of a virtualenv `~/.cache/<name>` holding `packages` (whose modules are
/// `modules`, comma separated), made once per machine; `python3-venv` is installed when missing.
pub fn python_with(name: &str, packages: &[&str], modules: &str) -> String {
    let venv = std::env::var("HOME")
        .map_or_else(|_| format!("/tmp/{name}"), |h| format!("{h}/.cache/{name}"));
    let packages = packages.join(" ");
    let script = format!(
        r#"set -e
venv={venv}
# Tests of one binary start together: one makes the virtualenv while the others wait.
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if ! "$venv/bin/python" -c 'import {modules}' 2>/dev/null; then
    if ! python3 -m venv "$venv" 2>/dev/null; then
        apt-get update -qq && apt-get install -y -qq python3-venv
        python3 -m venv "$venv"
    fi
    "$venv/bin/pip" install --quiet {packages}
fi"#
    );
    run("bash", &["-c", &script], None);
    format!("{venv}/bin/python")
}

/// Installs Debian's `packages` unless every program in `programs` is already on the machine.
pub fn debian(packages: &[&str], programs: &[&str]) {
    let script = format!(
        r#"set -e
# Tests of one binary start together: one installs while the others wait.
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

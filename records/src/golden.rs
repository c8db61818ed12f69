//! Golden fixtures: a stored record's exact bytes, kept in a file beside the tests of the crate
//! that owns the record. The people-state families cannot be rebuilt from the log, so those bytes
//! are what existing databases hold; a fixture that stops matching means a stored format changed,
//! which needs a new record version with an upgrade, not an edited fixture.
//!
//! Fixtures are named `<column family>-v<version>-<case>.record` (or `<cf>-v<version>.record`)
//! and hold one value as written. `RECORDS_BLESS=1` writes them afresh: only when adding a new
//! record version, keeping the old files.

use std::path::{Path, PathBuf};

use crate::record::StoredRecord;

/// True when the fixtures are to be written rather than compared.
pub fn blessing() -> bool {
    std::env::var_os("RECORDS_BLESS").is_some()
}

/// The fixtures of the crate whose tests run now: `tests/fixtures` under the crate's directory as
/// cargo names it when running the test, else as it was when the test was compiled (`compiled`,
/// the crate's `env!("CARGO_MANIFEST_DIR")`). The build cache may hold a test binary compiled in
/// another checkout, whose compiled-in path names that checkout's fixtures.
pub fn fixtures_dir(compiled: &str) -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(compiled), PathBuf::from)
        .join("tests/fixtures")
}

/// Compares `record`'s stored bytes with fixture `name` in `dir`, then reads the fixture back and
/// writes it again, which must give the same record and the same bytes. Panics on any difference
/// (it is for tests).
pub fn check<R: StoredRecord + PartialEq + std::fmt::Debug>(dir: &Path, name: &str, record: &R) {
    assert!(
        name.starts_with(&format!("{}-v{}-", R::CF, R::VERSION))
            || name == format!("{}-v{}.record", R::CF, R::VERSION),
        "{name} is not named for {} version {}",
        R::CF,
        R::VERSION
    );
    let path = dir.join(name);
    let actual = record.encode().expect("a record encodes");
    if blessing() {
        std::fs::write(&path, &actual).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    }
    let expected = std::fs::read(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    assert!(
        expected == actual,
        "{name} changed:\nexpected {}\nactual   {}",
        String::from_utf8_lossy(&expected),
        String::from_utf8_lossy(&actual)
    );
    let read = R::decode(&expected).unwrap_or_else(|err| panic!("{name}: {err}"));
    assert_eq!(&read, record, "{name} reads back as another record");
    assert!(
        read.encode().expect("a record encodes") == expected,
        "{name} does not read back to the same bytes"
    );
}

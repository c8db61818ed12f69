use catalog_schemas::file_rights::FileRights;

use super::*;
use crate::suggestions::ThreadNumber;

fn info(rights: FileRights) -> FileInfo {
    FileInfo {
        sha256: [7; 32],
        users: 1,
        rights,
        credit: Some("Kehot".into()),
        bytes: Some(10),
        mime: Some("application/pdf".into()),
        first_users: Vec::new(),
    }
}

#[test]
fn bytes_are_served_only_under_open_or_credit_rights_and_no_hold() {
    assert!(matches!(
        decide(Some(info(FileRights::Open)), None, FileRights::serves_bytes),
        Served::Yes { credit: None, .. }
    ));
    match decide(
        Some(info(FileRights::Credit)),
        None,
        FileRights::serves_bytes,
    ) {
        Served::Yes { credit, .. } => assert_eq!(credit.as_deref(), Some("Kehot")),
        other => panic!("{other:?}"),
    }
    for rights in [FileRights::Link, FileRights::Preserved] {
        assert!(matches!(
            decide(Some(info(rights)), None, FileRights::serves_bytes),
            Served::No { .. }
        ));
    }
    assert!(matches!(
        decide(None, None, FileRights::serves_bytes),
        Served::No { info: None, .. }
    ));
    let hold = Hold {
        kind: HoldKind::Takedown,
        number: ThreadNumber(12),
        at: catalog_records::Timestamp::from_unix_millis(0),
    };
    match decide(
        Some(info(FileRights::Open)),
        Some(&hold),
        FileRights::serves_bytes,
    ) {
        Served::No { reason, .. } => assert!(reason.contains("#12"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_linked_files_cover_is_served_and_its_bytes_are_not() {
    assert!(matches!(
        decide(Some(info(FileRights::Link)), None, FileRights::serves_cover),
        Served::Yes { .. }
    ));
    assert!(matches!(
        decide(Some(info(FileRights::Link)), None, FileRights::serves_bytes),
        Served::No { .. }
    ));
    assert!(matches!(
        decide(
            Some(info(FileRights::Preserved)),
            None,
            FileRights::serves_cover
        ),
        Served::No { .. }
    ));
}

#[test]
fn sha256_is_read_in_any_case_and_answered_lowercase() {
    let upper = "AB".repeat(32);
    let (lower, bytes) = parse_sha256(&upper).unwrap();
    assert_eq!(lower, "ab".repeat(32));
    assert_eq!(bytes, [0xab; 32]);
    assert!(parse_sha256("ab").is_none());
    assert!(parse_sha256(&"zz".repeat(32)).is_none());
}

//! Paging cursors (`cursor=` on every list): any text is the position it was made from or a
//! `400`, never a panic; a cursor reads back on its own list only.
#![no_main]

use catalog_api::cursor::{ListKey, ListKind};
use libfuzzer_sys::fuzz_target;

const KINDS: [ListKind; 7] = [
    ListKind::Entities,
    ListKind::Children,
    ListKind::Linked,
    ListKind::Commits,
    ListKind::Suggestions,
    ListKind::Issues,
    ListKind::Inbox,
];

fuzz_target!(|input: (u8, &str, &[u8], &str)| {
    let (kind, params, position, text) = input;
    let key = ListKey::new(KINDS[usize::from(kind) % KINDS.len()], &[params]);
    let _ = key.decode(text);
    let _ = key.decode_number(text);
    let made = key.encode(position);
    // Positions the server makes are short keys; longer ones are refused as not ours.
    if position.len() <= 512 {
        assert_eq!(key.decode(&made).ok().as_deref(), Some(position));
    }
    let other = ListKey::new(
        KINDS[usize::from(kind.wrapping_add(1)) % KINDS.len()],
        &[params],
    );
    assert!(other.decode(&made).is_err());
});

use proptest::prelude::*;

use crate::Sha256;

#[test]
fn written_as_lowercase_hex_and_read_in_either_case() {
    let sha = Sha256::digest(b"abc");
    let hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    assert_eq!(sha.to_string(), hex);
    assert_eq!(hex.parse::<Sha256>().unwrap(), sha);
    assert_eq!(hex.to_uppercase().parse::<Sha256>().unwrap(), sha);
    assert_eq!(format!("{sha:?}"), format!("Sha256({hex})"));
    assert_eq!(serde_json::to_string(&sha).unwrap(), format!("\"{hex}\""));
    assert_eq!(
        serde_json::from_str::<Sha256>(&format!("\"{hex}\"")).unwrap(),
        sha
    );
    assert!(serde_json::from_str::<Sha256>("\"abc\"").is_err());
}

#[test]
fn refusals_name_the_value() {
    let error = "xyz".parse::<Sha256>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "sha256 \"xyz\": expected 64 hex characters"
    );
}

proptest! {
    #[test]
    fn round_trip(bytes in any::<[u8; 32]>()) {
        let sha = Sha256::from_bytes(bytes);
        let text = sha.to_string();
        prop_assert_eq!(text.len(), 64);
        prop_assert!(text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
        prop_assert_eq!(text.parse::<Sha256>().unwrap(), sha);
        prop_assert_eq!(text.to_uppercase().parse::<Sha256>().unwrap(), sha);
    }

    #[test]
    fn anything_but_64_hex_is_refused(text in any::<String>()) {
        let is_64_hex = text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit());
        prop_assert_eq!(text.parse::<Sha256>().is_ok(), is_64_hex);
    }

    #[test]
    fn near_misses_are_refused(bytes in any::<[u8; 32]>(), at in 0usize..64, bad in "[^0-9a-fA-F]") {
        let hex = Sha256::from_bytes(bytes).to_string();
        let mut wrong = hex.clone();
        wrong.replace_range(at..=at, &bad);
        prop_assert!(wrong.parse::<Sha256>().is_err());
        prop_assert!(hex[1..].parse::<Sha256>().is_err());
        let longer = format!("{hex}0");
        let spaced = format!(" {hex}");
        prop_assert!(longer.parse::<Sha256>().is_err());
        prop_assert!(spaced.parse::<Sha256>().is_err());
    }
}

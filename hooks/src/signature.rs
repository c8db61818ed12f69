//! The signature a receiver checks: `X-Catalog-Signature-256: sha256=<hex HMAC-SHA256(secret,
//! body)>` (decisions §9), keyed with the hook's secret as the text it was shown as, the way
//! GitHub's webhooks key theirs, so a receiver pastes the secret it was given and nothing more.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// The header's name.
pub const SIGNATURE_HEADER: &str = "X-Catalog-Signature-256";

/// The header's value for `body` signed with `secret`: `sha256=` and 64 lowercase hex digits.
pub fn sign(secret: &str, body: &[u8]) -> String {
    // HMAC takes a key of any length; this cannot fail.
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of every length"));
    mac.update(body);
    format!("sha256={}", hex::encode(mac.finalize().into_bytes()))
}

/// True when `header` is the signature of `body` under `secret`, compared in constant time
/// (what a receiver does; the tests' receivers use it).
pub fn verify(secret: &str, body: &[u8], header: &str) -> bool {
    let Some(hex_mac) = header.strip_prefix("sha256=") else {
        return false;
    };
    let Ok(tag) = hex::decode(hex_mac) else {
        return false;
    };
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of every length"));
    mac.update(body);
    mac.verify_slice(&tag).is_ok()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
    #[test]
    fn matches_the_rfc_4231_vector() {
        assert_eq!(
            sign("Jefe", b"what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_malformed_header_never_verifies() {
        for header in ["", "sha256=", "sha1=00", "sha256=zz", "5bdcc146"] {
            assert!(!verify("Jefe", b"x", header), "{header}");
        }
    }

    proptest! {
        #[test]
        fn a_signature_verifies_only_its_own_body_and_secret(
            secret in "[0-9a-f]{64}",
            body in proptest::collection::vec(any::<u8>(), 0..512),
            flip in any::<prop::sample::Index>(),
        ) {
            let header = sign(&secret, &body);
            prop_assert_eq!(header.len(), "sha256=".len() + 64);
            prop_assert!(verify(&secret, &body, &header));
            if !body.is_empty() {
                let mut other = body.clone();
                let i = flip.index(other.len());
                other[i] ^= 1;
                prop_assert!(!verify(&secret, &other, &header));
            }
            let mut other_secret = secret.clone();
            other_secret.push('0');
            prop_assert!(!verify(&other_secret, &body, &header));
        }
    }
}

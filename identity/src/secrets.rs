//! Random secrets, their hashes and password hashing.

use std::sync::OnceLock;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::TryRngCore;
use rand::rngs::OsRng;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// 32 bytes from the operating system's random source, written as 43 base64url characters.
pub fn random_secret() -> Result<String> {
    let mut bytes = [0u8; 32];
    OsRng
        .try_fill_bytes(&mut bytes)
        .map_err(|e| Error::Random(e.to_string()))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

pub fn sha256(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// True when `text` is exactly 43 base64url characters (how [`random_secret`] writes).
pub fn is_secret_shape(text: &str) -> bool {
    text.len() == 43
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn argon2() -> Argon2<'static> {
    Argon2::new(Algorithm::Argon2id, Version::V0x13, Params::default())
}

/// An argon2id PHC string for the password.
pub fn hash_password(password: &str) -> Result<String> {
    let mut salt = [0u8; 16];
    OsRng
        .try_fill_bytes(&mut salt)
        .map_err(|e| Error::Random(e.to_string()))?;
    let salt = SaltString::encode_b64(&salt).map_err(|e| Error::Hashing(e.to_string()))?;
    argon2()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| Error::Hashing(e.to_string()))
}

/// Checks a password against a stored hash. With no stored hash (unknown handle, or an account
/// without a password) a fixed hash is checked instead, so both answers take as long as a real one.
pub fn verify_password(password: &str, stored: Option<&str>) -> Result<bool> {
    static DUMMY: OnceLock<String> = OnceLock::new();
    let dummy = match DUMMY.get() {
        Some(h) => h,
        None => {
            let h = hash_password("no account has this password")?;
            DUMMY.get_or_init(|| h)
        }
    };
    let phc = stored.unwrap_or(dummy);
    let parsed = PasswordHash::new(phc).map_err(|e| Error::Hashing(e.to_string()))?;
    let matches = argon2()
        .verify_password(password.as_bytes(), &parsed)
        .is_ok();
    Ok(matches && stored.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_43_base64url_chars_and_differ() {
        let a = random_secret().unwrap();
        let b = random_secret().unwrap();
        assert!(is_secret_shape(&a), "{a}");
        assert_ne!(a, b);
    }

    #[test]
    fn passwords_verify_only_with_the_right_word() {
        let h = hash_password("hunter22").unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(verify_password("hunter22", Some(&h)).unwrap());
        assert!(!verify_password("hunter23", Some(&h)).unwrap());
        assert!(!verify_password("no account has this password", None).unwrap());
    }
}

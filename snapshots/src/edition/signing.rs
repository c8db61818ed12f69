//! The edition signing key: Ed25519, kept as PKCS#8 PEM (so `openssl genpkey -algorithm
//! ed25519` makes one too), made on first use with mode 0600. Its secret half is never printed.

use std::fmt;
use std::io::Write as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

use base64::Engine as _;
use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::pkcs8::{DecodePrivateKey as _, EncodePrivateKey as _};
use ed25519_dalek::{Signer as _, SigningKey};
use sha2::{Digest as _, Sha256};

use crate::Error;

/// The file name of the key made in the data directory.
pub const KEY_FILE: &str = "edition-signing.key";

pub struct EditionKey {
    signing: SigningKey,
}

impl fmt::Debug for EditionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EditionKey({})", self.key_id())
    }
}

impl EditionKey {
    /// Reads the key at `path`.
    pub fn load(path: &Path) -> Result<EditionKey, Error> {
        let pem = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        let signing = SigningKey::from_pkcs8_pem(&pem).map_err(|e| Error::BadKey {
            path: path.to_path_buf(),
            why: e.to_string(),
        })?;
        Ok(EditionKey { signing })
    }

    /// Reads the key at `path`, or makes one there (readable by the owner only) when there is
    /// none.
    pub fn load_or_create(path: &Path) -> Result<EditionKey, Error> {
        if path.exists() {
            return EditionKey::load(path);
        }
        let key = EditionKey {
            signing: SigningKey::from_bytes(&rand::random()),
        };
        let pem = key
            .signing
            .to_pkcs8_pem(LineEnding::LF)
            .map_err(|e| Error::BadKey {
                path: path.to_path_buf(),
                why: e.to_string(),
            })?;
        let tmp = path.with_extension("key.tmp");
        let write = || -> std::io::Result<()> {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(&tmp)?;
            file.write_all(pem.as_bytes())?;
            file.sync_all()?;
            std::fs::rename(&tmp, path)
        };
        write().map_err(|e| Error::io(path, e))?;
        tracing::info!(key_id = %key.key_id(), path = %path.display(), "edition signing key made");
        Ok(key)
    }

    /// The public key's 32 bytes.
    pub fn public_bytes(&self) -> [u8; 32] {
        self.signing.verifying_key().to_bytes()
    }

    /// The public key in standard base64, as `/v1/mirrors` lists it.
    pub fn public_base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(self.public_bytes())
    }

    /// The first 8 bytes of the public key's SHA-256 in hex: short enough to read, and it names
    /// the key a manifest was signed with without a registry of keys.
    pub fn key_id(&self) -> String {
        hex::encode(&Sha256::digest(self.public_bytes())[..8])
    }

    /// The detached signature of `bytes`.
    pub fn sign(&self, bytes: &[u8]) -> [u8; 64] {
        self.signing.sign(bytes).to_bytes()
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use ed25519_dalek::{Signature, Verifier as _, VerifyingKey};

    use super::*;

    #[test]
    fn made_once_private_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(KEY_FILE);
        let made = EditionKey::load_or_create(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let again = EditionKey::load_or_create(&path).unwrap();
        assert_eq!(made.public_bytes(), again.public_bytes());
        assert_eq!(made.key_id().len(), 16);
        assert!(!format!("{made:?}").contains("PRIVATE"));

        let sig = Signature::from_bytes(&made.sign(b"manifest"));
        let public = VerifyingKey::from_bytes(&made.public_bytes()).unwrap();
        assert!(public.verify(b"manifest", &sig).is_ok());
        assert!(public.verify(b"manifesT", &sig).is_err());
    }

    #[test]
    fn a_bad_key_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k");
        std::fs::write(&path, "not a key").unwrap();
        assert!(matches!(EditionKey::load(&path), Err(Error::BadKey { .. })));
    }
}

//! The stored-record format: a version byte followed by JSON.
//!
//! JSON because suggested item data is arbitrary JSON (which postcard cannot carry); the byte so a
//! later shape can be told apart from the one before and upgraded as it is read.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Error, Result};

/// A value of one `wf_*` column family. The type itself is the shape of [`Self::VERSION`];
/// values of older versions are read through [`Self::upgrade`].
pub trait StoredRecord: Serialize + DeserializeOwned {
    /// The column family the record lives in.
    const CF: &'static str;

    /// The version written now. Raise it when the shape changes, and teach
    /// [`Self::upgrade`] to read the one before (keeping that version's fixtures).
    const VERSION: u8 = 1;

    /// Reads the JSON of an older `version`. Every record is still at its first version, so
    /// there is nothing older to read yet.
    fn upgrade(version: u8, json: &[u8]) -> Result<Self> {
        let _ = json;
        Err(unknown_version(Self::CF, version))
    }

    fn encode(&self) -> Result<Vec<u8>> {
        let mut bytes = vec![Self::VERSION];
        serde_json::to_writer(&mut bytes, self).map_err(|e| Error::Corrupt {
            cf: Self::CF,
            reason: e.to_string(),
        })?;
        Ok(bytes)
    }

    fn decode(bytes: &[u8]) -> Result<Self> {
        match bytes.split_first() {
            Some((&version, json)) if version == Self::VERSION => read_json(Self::CF, json),
            Some((&version, json)) if version > 0 && version < Self::VERSION => {
                Self::upgrade(version, json)
            }
            Some((&version, _)) => Err(unknown_version(Self::CF, version)),
            None => Err(Error::Corrupt {
                cf: Self::CF,
                reason: "empty record".into(),
            }),
        }
    }
}

/// Reads the JSON of one version's shape (for [`StoredRecord::upgrade`] too).
pub fn read_json<T: DeserializeOwned>(cf: &'static str, json: &[u8]) -> Result<T> {
    serde_json::from_slice(json).map_err(|e| Error::Corrupt {
        cf,
        reason: e.to_string(),
    })
}

pub fn unknown_version(cf: &'static str, version: u8) -> Error {
    Error::Corrupt {
        cf,
        reason: format!("unknown record version {version}"),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    /// A record at version 2 whose version 1 named its one field differently.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Renamed {
        title: String,
    }

    impl StoredRecord for Renamed {
        const CF: &'static str = "wf_meta";
        const VERSION: u8 = 2;

        fn upgrade(version: u8, json: &[u8]) -> Result<Renamed> {
            #[derive(Deserialize)]
            struct V1 {
                name: String,
            }
            match version {
                1 => {
                    let v1: V1 = read_json(Self::CF, json)?;
                    Ok(Renamed { title: v1.name })
                }
                _ => Err(unknown_version(Self::CF, version)),
            }
        }
    }

    #[test]
    fn an_older_version_is_upgraded_and_the_current_one_written() {
        let old = Renamed::decode(b"\x01{\"name\":\"x\"}").unwrap();
        assert_eq!(old, Renamed { title: "x".into() });
        assert_eq!(old.encode().unwrap(), b"\x02{\"title\":\"x\"}");
        assert_eq!(Renamed::decode(&old.encode().unwrap()).unwrap(), old);
    }

    #[test]
    fn unknown_versions_and_empty_values_are_corrupt() {
        for bytes in [&b"\x03{}"[..], b"\x00{}"] {
            let err = Renamed::decode(bytes).unwrap_err();
            assert!(err.to_string().contains("unknown record version"), "{err}");
        }
        assert!(Renamed::decode(b"").is_err());
    }
}

//! Who is making a request, as workflow sees it.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::accounts::{Account, AccountId};
use crate::error::{BadInput, NotAllowed, Result};
use crate::handle::Handle;

/// One scope a token may carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Read,
    Write,
}

/// The scopes of a token (`read` alone by default). Serialized as a list such as `["read","write"]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Scopes {
    read: bool,
    write: bool,
}

impl Scopes {
    pub const READ: Scopes = Scopes {
        read: true,
        write: false,
    };
    pub const READ_WRITE: Scopes = Scopes {
        read: true,
        write: true,
    };

    pub fn from_list(list: &[Scope]) -> Result<Scopes> {
        if list.is_empty() {
            return Err(BadInput::NoScopes.into());
        }
        Ok(Scopes {
            read: list.contains(&Scope::Read),
            write: list.contains(&Scope::Write),
        })
    }

    /// Reads a comma separated list (`read,write`), as the command line takes it.
    pub fn parse(text: &str) -> Result<Scopes> {
        let list = text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| match s.to_ascii_lowercase().as_str() {
                "read" => Ok(Scope::Read),
                "write" => Ok(Scope::Write),
                _ => Err(BadInput::UnknownScope(catalog_schemas::quote(s).to_string()).into()),
            })
            .collect::<Result<Vec<_>>>()?;
        Scopes::from_list(&list)
    }

    pub fn list(self) -> Vec<Scope> {
        let mut out = Vec::new();
        if self.read {
            out.push(Scope::Read);
        }
        if self.write {
            out.push(Scope::Write);
        }
        out
    }

    /// Writing implies reading: a write-only token is still signed in for reading routes.
    pub fn can_read(self) -> bool {
        self.read || self.write
    }

    pub fn can_write(self) -> bool {
        self.write
    }
}

impl Default for Scopes {
    fn default() -> Self {
        Scopes::READ
    }
}

impl fmt::Display for Scopes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self
            .list()
            .into_iter()
            .map(|s| match s {
                Scope::Read => "read",
                Scope::Write => "write",
            })
            .collect();
        f.write_str(&names.join(","))
    }
}

impl Serialize for Scopes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.list().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Scopes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let list = Vec::<Scope>::deserialize(d)?;
        Scopes::from_list(&list).map_err(serde::de::Error::custom)
    }
}

/// How the principal signed in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Via {
    /// An API token; `bot` when its name starts with `bot:`.
    Token { name: String, bot: bool },
    /// The site's own session cookie.
    Session,
}

/// A signed-in person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Principal {
    pub account: AccountId,
    pub handle: Handle,
    pub name: String,
    pub steward: bool,
    pub trusted: bool,
    pub scopes: Scopes,
    pub via: Via,
    /// The handles the account held before; records written then still name them.
    #[serde(rename = "formerHandles", skip_serializing_if = "Vec::is_empty")]
    pub former_handles: Vec<Handle>,
}

impl Principal {
    /// The account acting, with what the credential it came with allows.
    pub fn of(account: Account, scopes: Scopes, via: Via) -> Principal {
        Principal {
            account: account.id,
            handle: account.handle,
            name: account.name,
            steward: account.steward,
            trusted: account.trusted,
            scopes,
            via,
            former_handles: account.former_handles,
        }
    }

    /// True when `handle` names this person: their handle now or one they held before (a
    /// record written before a rename keeps the handle of its day).
    pub fn answers_to(&self, handle: &Handle) -> bool {
        self.handle == *handle || self.former_handles.contains(handle)
    }

    pub fn can_write(&self) -> bool {
        self.scopes.can_write()
    }

    pub fn is_bot(&self) -> bool {
        matches!(self.via, Via::Token { bot: true, .. })
    }

    pub fn is_session(&self) -> bool {
        matches!(self.via, Via::Session)
    }

    /// Refuses a read-only token on a writing operation.
    pub fn require_write(&self) -> Result<()> {
        if self.can_write() {
            Ok(())
        } else {
            Err(NotAllowed::ReadOnly(self.handle.clone()).into())
        }
    }
}

/// Scopes are sent as a list of names, so the derived schema of a record holding them says so.
#[cfg(feature = "utoipa")]
mod schema {
    use utoipa::openapi::RefOr;
    use utoipa::openapi::schema::{ArrayBuilder, Schema};
    use utoipa::{PartialSchema, ToSchema};

    use super::{Scope, Scopes};

    impl PartialSchema for Scopes {
        fn schema() -> RefOr<Schema> {
            ArrayBuilder::new().items(Scope::schema()).into()
        }
    }

    impl ToSchema for Scopes {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parses_scope_lists() {
        assert_eq!(Scopes::parse("read").unwrap(), Scopes::READ);
        assert_eq!(Scopes::parse("write, READ").unwrap(), Scopes::READ_WRITE);
        assert!(Scopes::parse("").is_err());
        assert!(
            Scopes::parse("admin")
                .unwrap_err()
                .to_string()
                .contains("admin")
        );
        assert_eq!(
            serde_json::to_string(&Scopes::READ_WRITE).unwrap(),
            r#"["read","write"]"#
        );
    }

    proptest! {
        #[test]
        fn display_parses_back(read in any::<bool>(), write in any::<bool>()) {
            prop_assume!(read || write);
            let s = Scopes { read, write };
            prop_assert_eq!(Scopes::parse(&s.to_string()).unwrap(), s);
        }

        #[test]
        fn parse_never_panics(text in "\\PC{0,30}") {
            let _ = Scopes::parse(&text);
        }
    }
}

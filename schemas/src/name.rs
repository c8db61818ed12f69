//! [`Name`]: a Hebrew name with an optional English one.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::SchemaError;

/// `{ he, en? }`. Hebrew is always there (and never blank); English when known.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "utoipa", derive(utoipa::ToSchema))]
#[serde(try_from = "RawName")]
pub struct Name {
    pub he: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub en: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawName {
    he: String,
    #[serde(default)]
    en: Option<String>,
}

impl TryFrom<RawName> for Name {
    type Error = SchemaError;
    fn try_from(raw: RawName) -> Result<Self, Self::Error> {
        Name::new(raw.he, raw.en)
    }
}

impl Name {
    pub fn new(he: impl Into<String>, en: Option<String>) -> Result<Name, SchemaError> {
        let he = he.into();
        if he.trim().is_empty() {
            return Err(SchemaError::Name(format!(
                "he {he} is blank",
                he = crate::quote(&he)
            )));
        }
        Ok(Name { he, en })
    }

    /// Reads a name object out of item data.
    pub fn from_value(value: &Value) -> Result<Name, SchemaError> {
        let raw = RawName::deserialize(value).map_err(|e| SchemaError::Name(e.to_string()))?;
        Name::try_from(raw)
    }

    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The English name when there is one, else the Hebrew.
    pub fn display_en(&self) -> &str {
        self.en.as_deref().unwrap_or(&self.he)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_and_writes_name_objects() {
        let name =
            Name::from_value(&json!({"he": "לקוטי שיחות", "en": "Likkutei Sichos"})).unwrap();
        assert_eq!(name.display_en(), "Likkutei Sichos");
        assert_eq!(
            name.to_value(),
            json!({"he": "לקוטי שיחות", "en": "Likkutei Sichos"})
        );
        let he_only = Name::from_value(&json!({"he": "תניא"})).unwrap();
        assert_eq!(he_only.en, None);
        assert_eq!(he_only.display_en(), "תניא");
        assert_eq!(he_only.to_value(), json!({"he": "תניא"}));
    }

    #[test]
    fn refuses_blank_or_missing_hebrew_and_unknown_fields() {
        let err = Name::from_value(&json!({"he": "  "})).unwrap_err();
        assert_eq!(err.to_string(), r#"name: he "  " is blank"#);
        assert!(Name::from_value(&json!({"en": "Tanya"})).is_err());
        assert!(Name::from_value(&json!({"he": "תניא", "fr": "x"})).is_err());
        assert!(Name::from_value(&json!("תניא")).is_err());
        assert!(Name::new("", None).is_err());
    }
}

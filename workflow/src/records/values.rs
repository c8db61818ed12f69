//! The stored shapes of small values that answers show too, for use with `#[serde(with)]` on
//! record fields: the field keeps its domain type, and its bytes on disk are written here rather
//! than by the answer's `Serialize`, so changing the answer leaves them alone.

/// A [`Subject`](crate::subject::Subject) as `{"kind": …, "id": "…"}` (the id always as text).
/// Read without the checks a client's subject goes through, so a stricter rule for new subjects
/// never makes a stored one unreadable.
pub(crate) mod subject {
    use catalog_schemas::Id;
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::subject::Subject;
    use crate::suggestions::{SuggestionId, ThreadNumber};

    #[derive(Serialize, Deserialize)]
    struct V1 {
        kind: String,
        id: String,
    }

    pub(crate) fn serialize<S: Serializer>(subject: &Subject, s: S) -> Result<S::Ok, S::Error> {
        let (kind, id) = match subject {
            Subject::Changeset(id) => ("changeset", id.0.to_string()),
            Subject::Report(number) => ("report", number.0.to_string()),
            Subject::Entity(id) => ("entity", id.to_string()),
            Subject::Project(slug) => ("project", slug.clone()),
        };
        V1 {
            kind: kind.into(),
            id,
        }
        .serialize(s)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Subject, D::Error> {
        let v1 = V1::deserialize(d)?;
        let number = |text: &str| {
            text.parse::<u64>()
                .map_err(|_| D::Error::custom(format!("stored {} id {text:?}", v1.kind)))
        };
        match v1.kind.as_str() {
            "changeset" => Ok(Subject::Changeset(SuggestionId(number(&v1.id)?))),
            "report" => Ok(Subject::Report(ThreadNumber(number(&v1.id)?))),
            "entity" => Id::parse(&v1.id)
                .map(Subject::Entity)
                .map_err(D::Error::custom),
            "project" => Ok(Subject::Project(v1.id)),
            other => Err(D::Error::custom(format!("stored subject kind {other:?}"))),
        }
    }
}

/// An optional [`Anchor`](crate::conversation::Anchor) as `{"entity": …, "field": …}` or `null`.
pub(crate) mod anchor {
    use catalog_schemas::Id;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::conversation::Anchor;

    #[derive(Serialize, Deserialize)]
    struct V1 {
        entity: Id,
        field: String,
    }

    pub(crate) fn serialize<S: Serializer>(
        anchor: &Option<Anchor>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        anchor
            .as_ref()
            .map(|a| V1 {
                entity: a.entity,
                field: a.field.clone(),
            })
            .serialize(s)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Anchor>, D::Error> {
        Ok(Option::<V1>::deserialize(d)?.map(|v1| Anchor {
            entity: v1.entity,
            field: v1.field,
        }))
    }
}

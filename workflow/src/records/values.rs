//! The stored shapes of small values that answers show too, for use with `#[serde(with)]` on
//! record fields: the field keeps its domain type, and its bytes on disk are written here rather
//! than by the answer's `Serialize`, so changing the answer (a field, or how a value is spelled)
//! leaves them alone. Ids, handles, numbers and timestamps are not here: their text is the
//! domain's own (as in the log's commits), not an answer's choice.

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

/// An optional [`Anchor`](crate::discussion::conversation::Anchor) as `{"entity": …, "field": …}` or `null`.
pub(crate) mod anchor {
    use catalog_schemas::Id;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::discussion::conversation::Anchor;

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

/// A with-module for a value enum, from each variant and the text version 1 stored for it:
/// `plain` makes the module itself one for a field of the enum, `option` adds `option` inside
/// it for a field of `Option` of it.
macro_rules! stored_names {
    ($module:ident: $ty:path [$($form:ident),+] { $($variant:ident => $text:literal),+ $(,)? }) => {
        pub(crate) mod $module {
            use serde::de::Error as _;
            use serde::{Deserialize, Deserializer, Serializer};

            type Value = $ty;

            fn text(value: &Value) -> &'static str {
                match value {
                    $(Value::$variant => $text,)+
                }
            }

            fn read(text: &str) -> Result<Value, String> {
                match text {
                    $($text => Ok(Value::$variant),)+
                    other => Err(format!("stored {} {other:?}", stringify!($module))),
                }
            }

            $(stored_names!(@$form);)+
        }
    };
    (@plain) => {
        pub(crate) fn serialize<S: Serializer>(value: &Value, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(text(value))
        }

        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
            read(&String::deserialize(d)?).map_err(D::Error::custom)
        }
    };
    (@option) => {
        pub(crate) mod option {
            use super::*;

            pub(crate) fn serialize<S: Serializer>(
                value: &Option<Value>,
                s: S,
            ) -> Result<S::Ok, S::Error> {
                match value {
                    Some(v) => s.serialize_some(text(v)),
                    None => s.serialize_none(),
                }
            }

            pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
                d: D,
            ) -> Result<Option<Value>, D::Error> {
                Option::<String>::deserialize(d)?
                    .map(|t| read(&t).map_err(D::Error::custom))
                    .transpose()
            }
        }
    };
}

stored_names!(status: crate::suggestions::Status [plain] {
    Draft => "draft",
    Open => "open",
    Merged => "merged",
    SentBack => "sent_back",
    Withdrawn => "withdrawn",
});

stored_names!(kind: crate::suggestions::Kind [plain] {
    Edit => "edit",
    QuickFix => "quick-fix",
    Words => "words",
    ContentsMap => "contents-map",
    Organize => "organize",
    Revert => "revert",
    Restore => "restore",
    ScanText => "scan-text",
    Ocr => "ocr",
    Upload => "upload",
});

stored_names!(post_review: crate::suggestions::PostReview [option] {
    Pending => "pending",
    Done => "done",
});

stored_names!(check_name: crate::checks::CheckName [plain] {
    Schema => "schema",
    References => "references",
    Dates => "dates",
    Duplicates => "duplicates",
    Paths => "paths",
});

stored_names!(check_status: crate::checks::CheckStatus [plain] {
    Pass => "pass",
    Warn => "warn",
    Fail => "fail",
});

stored_names!(report_kind: crate::discussion::issues::ReportKind [plain] {
    WrongFact => "wrong-fact",
    MissingPage => "missing-page",
    BadScan => "bad-scan",
    AudioProblem => "audio-problem",
    WrongText => "wrong-text",
    Duplicate => "duplicate",
    Rights => "rights",
    Offensive => "offensive",
    Other => "other",
});

stored_names!(issue_state: crate::discussion::issues::IssueState [plain] {
    Open => "open",
    Closed => "closed",
});

stored_names!(state_reason: crate::discussion::issues::StateReason [plain, option] {
    Completed => "completed",
    NotPlanned => "not_planned",
});

stored_names!(verdict: crate::discussion::conversation::Verdict [plain] {
    Approve => "approve",
    RequestChanges => "request_changes",
    Comment => "comment",
});

stored_names!(inbox_reason: crate::discussion::inbox::Reason [plain] {
    Mention => "mention",
    ReviewRequested => "review_requested",
    Assigned => "assigned",
    Author => "author",
    Comment => "comment",
    Review => "review",
    State => "state",
    Followed => "followed",
});

stored_names!(thread_kind: crate::discussion::threads::ThreadKind [plain] {
    Suggestion => "suggestion",
    Issue => "issue",
});

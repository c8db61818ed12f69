//! The OpenAPI schemas of the values workflow serialises by hand (a subject as `{ kind, id }`) or
//! whose derived schema would be wrong (a thread's state), so the derived schemas of the records
//! that hold them say what is actually sent.

use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use crate::discussion::issues::IssueState;
use crate::discussion::threads::ThreadState;
use crate::subject::Subject;
use crate::suggestions::Status;

impl PartialSchema for Subject {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .property(
                "kind",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some(["changeset", "report", "entity", "project"])),
            )
            .required("kind")
            .property(
                "id",
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .description(Some(
                        "the suggestion id, the issue number, the item id or the project slug",
                    )),
            )
            .required("id")
            .description(Some("What a comment or an inbox line is about."))
            .into()
    }
}

impl ToSchema for Subject {}

/// A suggestion's status or an issue's state: one string from either list. Derived from the
/// untagged enum it would be `oneOf` the two lists, which `open` (in both) never satisfies.
impl PartialSchema for ThreadState {
    fn schema() -> RefOr<Schema> {
        let mut values: Vec<serde_json::Value> = Vec::new();
        for schema in [Status::schema(), IssueState::schema()] {
            if let RefOr::T(Schema::Object(object)) = schema {
                for value in object.enum_values.unwrap_or_default() {
                    if !values.contains(&value) {
                        values.push(value);
                    }
                }
            }
        }
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(values))
            .description(Some(
                "A suggestion's status (draft, open, merged, sent_back, withdrawn) or an issue's \
                 state (open, closed).",
            ))
            .into()
    }
}

impl ToSchema for ThreadState {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_state_is_any_status_or_issue_state_once() {
        let RefOr::T(Schema::Object(object)) = ThreadState::schema() else {
            panic!("a thread state is a string schema");
        };
        let values = object.enum_values.expect("an enum");
        let open = serde_json::json!("open");
        assert_eq!(values.iter().filter(|v| **v == open).count(), 1);
        for state in [
            ThreadState::Suggestion(Status::SentBack),
            ThreadState::Issue(IssueState::Closed),
        ] {
            let sent = serde_json::to_value(state).expect("serialises");
            assert!(values.contains(&sent), "{sent} missing from {values:?}");
        }
    }
}

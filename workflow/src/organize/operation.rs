//! The eight operations of an organize plan, and reading them from the JSON a client sends.
//!
//! Each operation is an object whose `op` names it. Fields are read one by one rather than
//! through serde's derive so that every refusal names the field at fault (the API puts it in
//! `detail.field`), and unknown fields are refused instead of silently ignored.

use catalog_schemas::{Id, Name};
use serde_json::{Map, Value};

/// At most this many ids in one operation's `items` (or `units`).
pub const MAX_ITEMS: usize = 500;
/// The longest `new:<key>` name.
const MAX_KEY_CHARS: usize = 40;

/// An item named by an operation: an existing id, or `new:<key>` for a set or sefer an earlier
/// operation of the same plan makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ref {
    Id(Id),
    New(String),
}

impl std::fmt::Display for Ref {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ref::Id(id) => id.fmt(f),
            Ref::New(key) => write!(f, "new:{key}"),
        }
    }
}

/// Where placed items go among the items beside them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    Start,
    End,
    After(Ref),
    Before(Ref),
}

/// The units a split takes: named one by one, or every unit from one to another in the
/// work's order (both ends included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    Units(Vec<Ref>),
    Range { from: Ref, to: Ref },
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    /// Into a set (membership, or a set under a set), or a unit to a work, a printing to a work,
    /// a scan to a printing, a recording to an event. `to: None` takes items out of `from`, or
    /// moves a set to the top.
    Move {
        items: Vec<Ref>,
        to: Option<Ref>,
        from: Option<Ref>,
        /// `mode: "only"`: the target becomes the item's one set.
        only: bool,
        position: Option<Placement>,
    },
    /// A set to its parent's parent; an item out of a set into that set's parent.
    MoveUp {
        items: Vec<Ref>,
        from: Option<Ref>,
    },
    Rename {
        item: Ref,
        name: Option<Name>,
        slug: Option<String>,
        path: Option<String>,
    },
    /// `parent`: absent = the items' own parent; `Some(None)` = the top level of sets.
    /// `position`: absent = the items keep the places they hold, in the order given.
    Reorder {
        items: Vec<Ref>,
        parent: Option<Option<Ref>>,
        position: Option<Placement>,
    },
    CreateSet {
        key: Option<String>,
        name: Name,
        slug: String,
        parent: Option<Ref>,
        items: Vec<Ref>,
    },
    DeleteSet {
        item: Ref,
    },
    Merge {
        from: Ref,
        into: Ref,
    },
    Split {
        work: Ref,
        units: Selection,
        title: Name,
        slug: String,
        key: Option<String>,
    },
}

/// Why one operation could not be read: the field at fault and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub op: &'static str,
    pub field: &'static str,
    pub message: String,
}

/// The names `op` takes, in the order the spec lists them.
pub const OPS: &[&str] = &[
    "move",
    "move-up",
    "rename",
    "reorder",
    "create-set",
    "delete-set",
    "merge",
    "split",
];

impl Operation {
    /// The name `op` gives it.
    pub fn name(&self) -> &'static str {
        match self {
            Operation::Move { .. } => "move",
            Operation::MoveUp { .. } => "move-up",
            Operation::Rename { .. } => "rename",
            Operation::Reorder { .. } => "reorder",
            Operation::CreateSet { .. } => "create-set",
            Operation::DeleteSet { .. } => "delete-set",
            Operation::Merge { .. } => "merge",
            Operation::Split { .. } => "split",
        }
    }

    /// Reads one operation.
    pub fn parse(value: &Value) -> Result<Operation, FieldError> {
        let Some(obj) = value.as_object() else {
            return Err(FieldError {
                op: "operation",
                field: "op",
                message: "an operation is an object with an op".into(),
            });
        };
        let op = match obj.get("op").and_then(Value::as_str) {
            Some(name) => OPS
                .iter()
                .copied()
                .find(|o| *o == name)
                .ok_or_else(|| FieldError {
                    op: "operation",
                    field: "op",
                    message: format!(
                        "{name} is not an operation: use one of {}",
                        OPS.join(", "),
                        name = catalog_schemas::quote(name)
                    ),
                })?,
            None => {
                return Err(FieldError {
                    op: "operation",
                    field: "op",
                    message: format!("op is required: one of {}", OPS.join(", ")),
                });
            }
        };
        let r = Reader { op, obj };
        match op {
            "move" => {
                r.only_fields(&["items", "to", "from", "mode", "position"])?;
                Ok(Operation::Move {
                    items: r.refs("items")?,
                    to: r.nullable_ref("to")?.ok_or_else(|| {
                        r.error("to", "to is required: a target, or null to take items out")
                    })?,
                    from: r.opt_ref("from")?,
                    only: r.mode()?,
                    position: r.placement("position")?,
                })
            }
            "move-up" => {
                r.only_fields(&["items", "from"])?;
                Ok(Operation::MoveUp {
                    items: r.refs("items")?,
                    from: r.opt_ref("from")?,
                })
            }
            "rename" => {
                r.only_fields(&["item", "name", "slug", "path"])?;
                let op = Operation::Rename {
                    item: r.req_ref("item")?,
                    name: r.opt_name("name")?,
                    slug: r.opt_text("slug")?,
                    path: r.opt_text("path")?,
                };
                if let Operation::Rename {
                    name: None,
                    slug: None,
                    path: None,
                    ..
                } = op
                {
                    return Err(r.error("name", "rename needs a name, a slug or a path"));
                }
                Ok(op)
            }
            "reorder" => {
                r.only_fields(&["items", "parent", "position"])?;
                Ok(Operation::Reorder {
                    items: r.refs("items")?,
                    parent: r.nullable_ref("parent")?,
                    position: r.placement("position")?,
                })
            }
            "create-set" => {
                r.only_fields(&["key", "name", "slug", "parent", "items"])?;
                Ok(Operation::CreateSet {
                    key: r.key("key")?,
                    name: r.req_name("name")?,
                    slug: r.req_text("slug")?,
                    parent: r.opt_ref("parent")?,
                    items: match obj.get("items") {
                        None | Some(Value::Null) => Vec::new(),
                        Some(_) => r.refs("items")?,
                    },
                })
            }
            "delete-set" => {
                r.only_fields(&["item"])?;
                Ok(Operation::DeleteSet {
                    item: r.req_ref("item")?,
                })
            }
            "merge" => {
                r.only_fields(&["from", "into"])?;
                Ok(Operation::Merge {
                    from: r.req_ref("from")?,
                    into: r.req_ref("into")?,
                })
            }
            _ => {
                r.only_fields(&["work", "units", "range", "title", "slug", "key"])?;
                let units = match (obj.get("units"), obj.get("range")) {
                    (Some(_), Some(_)) => {
                        return Err(r.error("range", "give units or range, not both"));
                    }
                    (Some(_), None) => Selection::Units(r.refs("units")?),
                    (None, Some(_)) => r.range("range")?,
                    (None, None) => {
                        return Err(r.error("units", "split needs units or a range"));
                    }
                };
                Ok(Operation::Split {
                    work: r.req_ref("work")?,
                    units,
                    title: r.req_name("title")?,
                    slug: r.req_text("slug")?,
                    key: r.key("key")?,
                })
            }
        }
    }
}

/// Reads the fields of one operation object.
struct Reader<'a> {
    op: &'static str,
    obj: &'a Map<String, Value>,
}

impl Reader<'_> {
    fn error(&self, field: &'static str, message: impl Into<String>) -> FieldError {
        FieldError {
            op: self.op,
            field,
            message: message.into(),
        }
    }

    fn only_fields(&self, allowed: &[&'static str]) -> Result<(), FieldError> {
        match self
            .obj
            .keys()
            .find(|k| k.as_str() != "op" && !allowed.contains(&k.as_str()))
        {
            Some(unknown) => Err(self.error(
                "op",
                format!(
                    "{unknown} is not a field of {}: it takes {}",
                    self.op,
                    allowed.join(", "),
                    unknown = catalog_schemas::quote(unknown)
                ),
            )),
            None => Ok(()),
        }
    }

    fn parse_ref(&self, field: &'static str, value: &Value) -> Result<Ref, FieldError> {
        let Some(text) = value.as_str() else {
            return Err(self.error(field, "an item is named by its id or new:<key>"));
        };
        match text.strip_prefix("new:") {
            Some(key) => Ok(Ref::New(self.check_key(field, key)?)),
            None => Id::parse(text)
                .map(Ref::Id)
                .map_err(|e| self.error(field, e.to_string())),
        }
    }

    fn check_key(&self, field: &'static str, key: &str) -> Result<String, FieldError> {
        let ok = !key.is_empty()
            && key.chars().count() <= MAX_KEY_CHARS
            && key.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
            && key
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
        if ok {
            Ok(key.to_string())
        } else {
            Err(self.error(
                field,
                format!(
                    "key {key}: 1-{MAX_KEY_CHARS} lowercase letters, digits, - and _, starting with a letter or digit", key = catalog_schemas::quote(key)),
            ))
        }
    }

    fn req_ref(&self, field: &'static str) -> Result<Ref, FieldError> {
        self.opt_ref(field)?
            .ok_or_else(|| self.error(field, format!("{field} is required")))
    }

    fn opt_ref(&self, field: &'static str) -> Result<Option<Ref>, FieldError> {
        match self.obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => self.parse_ref(field, v).map(Some),
        }
    }

    /// Absent → `None`; `null` → `Some(None)`; an item → `Some(Some(_))`.
    fn nullable_ref(&self, field: &'static str) -> Result<Option<Option<Ref>>, FieldError> {
        match self.obj.get(field) {
            None => Ok(None),
            Some(Value::Null) => Ok(Some(None)),
            Some(v) => self.parse_ref(field, v).map(|r| Some(Some(r))),
        }
    }

    fn refs(&self, field: &'static str) -> Result<Vec<Ref>, FieldError> {
        let list = match self.obj.get(field) {
            Some(Value::Array(list)) => list,
            None | Some(Value::Null) => {
                return Err(self.error(field, format!("{field} is required: a list of items")));
            }
            Some(_) => return Err(self.error(field, format!("{field} must be a list of items"))),
        };
        if list.is_empty() || list.len() > MAX_ITEMS {
            return Err(self.error(
                field,
                format!("{field}: give 1-{MAX_ITEMS} items, not {}", list.len()),
            ));
        }
        let mut out: Vec<Ref> = Vec::with_capacity(list.len());
        for value in list {
            let r = self.parse_ref(field, value)?;
            if out.contains(&r) {
                return Err(self.error(field, format!("{r} is named twice")));
            }
            out.push(r);
        }
        Ok(out)
    }

    fn opt_text(&self, field: &'static str) -> Result<Option<String>, FieldError> {
        match self.obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_string())),
            Some(_) => Err(self.error(field, format!("{field} must be a non-empty string"))),
        }
    }

    fn req_text(&self, field: &'static str) -> Result<String, FieldError> {
        self.opt_text(field)?
            .ok_or_else(|| self.error(field, format!("{field} is required")))
    }

    fn opt_name(&self, field: &'static str) -> Result<Option<Name>, FieldError> {
        match self.obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => serde_json::from_value::<Name>(v.clone())
                .map(Some)
                .map_err(|e| {
                    self.error(
                        field,
                        format!("{field} must be a name object {{ he, en? }}: {e}"),
                    )
                }),
        }
    }

    fn req_name(&self, field: &'static str) -> Result<Name, FieldError> {
        self.opt_name(field)?
            .ok_or_else(|| self.error(field, format!("{field} is required: {{ he, en? }}")))
    }

    fn key(&self, field: &'static str) -> Result<Option<String>, FieldError> {
        match self.obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => self.check_key(field, s).map(Some),
            Some(_) => Err(self.error(field, format!("{field} must be a string"))),
        }
    }

    fn mode(&self) -> Result<bool, FieldError> {
        match self.obj.get("mode") {
            None | Some(Value::Null) => Ok(false),
            Some(Value::String(s)) if s == "only" => Ok(true),
            Some(other) => Err(self.error(
                "mode",
                format!(
                    "mode {other}: the one mode is \"only\" (the target becomes the item's one set)"
                ),
            )),
        }
    }

    fn placement(&self, field: &'static str) -> Result<Option<Placement>, FieldError> {
        let bad = || {
            self.error(
                field,
                format!("{field} is \"start\", \"end\", {{ \"after\": <item> }} or {{ \"before\": <item> }}"),
            )
        };
        match self.obj.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s == "start" => Ok(Some(Placement::Start)),
            Some(Value::String(s)) if s == "end" => Ok(Some(Placement::End)),
            Some(Value::Object(o)) if o.len() == 1 => {
                if let Some(v) = o.get("after") {
                    Ok(Some(Placement::After(self.parse_ref(field, v)?)))
                } else if let Some(v) = o.get("before") {
                    Ok(Some(Placement::Before(self.parse_ref(field, v)?)))
                } else {
                    Err(bad())
                }
            }
            Some(_) => Err(bad()),
        }
    }

    fn range(&self, field: &'static str) -> Result<Selection, FieldError> {
        let bad = || {
            self.error(
                field,
                format!("{field} is {{ \"from\": <unit>, \"to\": <unit> }}"),
            )
        };
        let Some(o) = self.obj.get(field).and_then(Value::as_object) else {
            return Err(bad());
        };
        if o.len() != 2 {
            return Err(bad());
        }
        match (o.get("from"), o.get("to")) {
            (Some(from), Some(to)) => Ok(Selection::Range {
                from: self.parse_ref(field, from)?,
                to: self.parse_ref(field, to)?,
            }),
            _ => Err(bad()),
        }
    }
}

#[cfg(test)]
#[path = "operation_tests.rs"]
mod tests;

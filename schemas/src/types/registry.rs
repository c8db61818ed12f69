//! [`TypeRegistry`]: the kinds of item a catalog defines at one point of its log.
//!
//! A catalog starts with the 21 built-in kinds. Each `schema` item then either gives a built-in
//! kind a new JSON Schema (its references, paths and dates stay the code's: other code depends
//! on them) or defines a kind of its own, with its schema, key fields, reference fields, date
//! fields and path rule all read from the item. The registry is a pure function of the schema
//! items it was given: the projector folds them in log order, so a rebuild reaches the same one.
//!
//! A schema item's data:
//!
//! ```json
//! { "type": "niggun", "version": 1,
//!   "schema": { "properties": { "composer": { "$ref": "#/$defs/id" } }, "required": ["name"] },
//!   "keyFields": ["composer"],
//!   "refs": [{ "field": "composer", "targets": ["author"] }],
//!   "dateFields": [],
//!   "path": { "prefix": "niggunim", "field": "slug" },
//!   "words": true }
//! ```
//!
//! The schema may use the built-in definitions (`#/$defs/name`, `#/$defs/id`, `#/$defs/dateKey`,
//! ...); the fields every item may carry (`sets`, `sources`, `topics`, `note`, ...) are added to
//! it, and unknown fields are allowed unless it says otherwise.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use jsonschema::Validator;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{Violation, common, kinds};
use crate::paths::{RESERVED_TOP_LEVEL, is_step, path_for};
use crate::refs::{self, RefField, Reference};
use crate::{DateKey, Id, ItemType, SchemaError, intern};

/// Kinds a catalog may define beyond the built-ins.
pub const MAX_DEFINED_TYPES: usize = 100;
/// Reference, key and date fields one definition may list (each).
pub const MAX_DEFINITION_FIELDS: usize = 32;

/// How a kind's items get readable paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathRule {
    /// The code's rule for a built-in kind (`/sets/<slug>`, `/<work>/<steps>`, `/events/<date>`).
    BuiltIn,
    /// `/<prefix>/<the value of field>`.
    Field {
        prefix: &'static str,
        field: &'static str,
    },
    /// Items of the kind have no path.
    None,
}

/// Everything the catalog knows about one kind of item.
#[derive(Debug)]
pub struct TypeDef {
    pub ty: ItemType,
    /// The schema's version (the built-ins are [`super::VERSION`]).
    pub version: u32,
    /// The `schema` item that defines it; `None` for a built-in kind as the code ships it.
    pub item: Option<Id>,
    /// The JSON Schema as served and validated against.
    pub schema: Value,
    validator: Validator,
    pub ref_fields: &'static [RefField],
    /// The fields that, beside the name, tell two items apart (the `duplicates` check).
    pub key_fields: &'static [&'static str],
    pub date_fields: &'static [&'static str],
    pub path: PathRule,
    /// Whether items may carry words in `body`.
    pub body: bool,
}

impl TypeDef {
    fn built_in(ty: ItemType) -> TypeDef {
        let schema = super::build(ty);
        let validator = compile(&schema).expect("a built-in schema compiles (tested)");
        TypeDef {
            ty,
            version: super::VERSION,
            item: None,
            schema,
            validator,
            ref_fields: refs::ref_fields(ty),
            key_fields: kinds::key_fields(ty),
            date_fields: super::date_fields(ty),
            path: PathRule::BuiltIn,
            body: kinds::kind(ty).body,
        }
    }

    /// Checks item data against this kind (see [`super::validate`]).
    pub fn validate(&self, data: &Value) -> Result<(), Vec<Violation>> {
        super::validate_with(self.ty, &self.validator, data)
    }

    pub fn references(&self, data: &Value) -> Vec<Reference> {
        refs::references_in(self.ref_fields, data)
    }

    pub fn ref_field(&self, field: &str) -> Option<&'static RefField> {
        self.ref_fields.iter().find(|f| f.field == field)
    }

    pub fn dates(&self, data: &Value) -> Vec<(String, Result<DateKey, SchemaError>)> {
        super::dates_in(self.date_fields, data)
    }
}

/// What a `schema` item's data says (see the module docs).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Definition {
    #[serde(rename = "type")]
    ty: String,
    version: u32,
    schema: Map<String, Value>,
    key_fields: Option<Vec<String>>,
    refs: Option<Vec<RefDefinition>>,
    date_fields: Option<Vec<String>>,
    path: Option<PathDefinition>,
    /// Whether items carry words in `body` (not itself called `body`: every item's `body` is
    /// words, the schema item's own included).
    words: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RefDefinition {
    field: String,
    #[serde(default)]
    targets: Vec<String>,
    #[serde(default)]
    many: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PathDefinition {
    prefix: String,
    field: String,
}

/// Why a `schema` item cannot define its kind.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionError {
    #[error("{0}")]
    Shape(String),
    #[error("its schema does not compile: {0}")]
    Compile(String),
    #[error("{ty} is already defined by {by}")]
    Taken { ty: ItemType, by: Id },
    #[error("a catalog may define at most {MAX_DEFINED_TYPES} kinds beyond the built-in ones")]
    TooMany,
    #[error(
        "the reference fields of {0} cannot change once it is defined (the backlinks of its items \
         were counted by them); define a kind with another name instead"
    )]
    RefsFixed(ItemType),
}

fn shape(message: impl Into<String>) -> DefinitionError {
    DefinitionError::Shape(message.into())
}

fn compile(schema: &Value) -> Result<Validator, DefinitionError> {
    jsonschema::draft202012::options()
        .build(schema)
        .map_err(|e| DefinitionError::Compile(crate::clip(&e.to_string()).into_owned()))
}

/// The fields every item may carry, named in every kind's reference table first.
const SHARED_REFS: usize = 3;

fn field_name(text: &str, what: &str) -> Result<&'static str, DefinitionError> {
    let ok = !text.is_empty()
        && text.len() <= 64
        && text.starts_with(|c: char| c.is_ascii_alphabetic())
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(intern::str(text))
    } else {
        Err(shape(format!(
            "{what} {} is not a field name (letters, digits and _, starting with a letter)",
            crate::quote(text)
        )))
    }
}

fn field_list(list: Option<Vec<String>>, what: &str) -> Result<Vec<&'static str>, DefinitionError> {
    let list = list.unwrap_or_default();
    if list.len() > MAX_DEFINITION_FIELDS {
        return Err(shape(format!(
            "{what} lists {} fields; at most {MAX_DEFINITION_FIELDS}",
            list.len()
        )));
    }
    let mut out: Vec<&'static str> = Vec::with_capacity(list.len());
    for f in &list {
        let name = field_name(f, what)?;
        if out.contains(&name) {
            return Err(shape(format!("{what} names {name} twice")));
        }
        out.push(name);
    }
    Ok(out)
}

/// The schema a definition is validated against: its own, with the shared fields, the built-in
/// `$defs` and the catalog's `$id` and version added (its own properties and defs win).
fn effective_schema(ty: ItemType, version: u32, own: &Map<String, Value>, body: bool) -> Value {
    let mut schema = own.clone();
    let mut properties = common::shared_properties(body);
    if let Some(Value::Object(mine)) = own.get("properties") {
        properties.extend(mine.clone());
    }
    let mut defs = match common::defs() {
        Value::Object(defs) => defs,
        _ => Map::new(),
    };
    if let Some(Value::Object(mine)) = own.get("$defs") {
        defs.extend(mine.clone());
    }
    schema.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    schema.insert("$id".into(), json!(super::schema_id(ty)));
    schema.entry("title").or_insert_with(|| json!(ty.as_str()));
    schema.insert("x-catalog-version".into(), json!(version));
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    schema
        .entry("additionalProperties")
        .or_insert(Value::Bool(true));
    schema.insert("$defs".into(), Value::Object(defs));
    Value::Object(schema)
}

/// Reads a `schema` item's data into the kind it defines. Pure: whether the name is free and the
/// catalog's items still pass is for the caller (see [`TypeRegistry::define`]).
pub fn read_definition(item: Id, data: &Value) -> Result<TypeDef, DefinitionError> {
    let def: Definition = serde_json::from_value(data.clone())
        .map_err(|e| shape(crate::quote::clip_quoted(&e.to_string())))?;
    let ty = ItemType::parse(&def.ty).map_err(|e| shape(e.to_string()))?;
    if def.version == 0 {
        return Err(shape("version starts at 1"));
    }
    if ty == ItemType::Schema {
        return Err(shape(
            "the schema kind itself is the code's: a catalog cannot redefine it",
        ));
    }
    if ty.is_built_in() {
        let extra = [
            ("keyFields", def.key_fields.is_some()),
            ("refs", def.refs.is_some()),
            ("dateFields", def.date_fields.is_some()),
            ("path", def.path.is_some()),
            ("words", def.words.is_some()),
        ];
        if let Some((field, _)) = extra.iter().find(|(_, given)| *given) {
            return Err(shape(format!(
                "{ty} is built in: only its schema may change; its {field} are the code's"
            )));
        }
        let body = kinds::kind(ty).body;
        let schema = effective_schema(ty, def.version, &def.schema, body);
        let validator = compile(&schema)?;
        return Ok(TypeDef {
            version: def.version,
            item: Some(item),
            schema,
            validator,
            ..TypeDef::built_in(ty)
        });
    }
    let body = def.words.unwrap_or(false);
    let key_fields = field_list(def.key_fields, "keyFields")?;
    let date_fields = field_list(def.date_fields, "dateFields")?;
    let ref_defs = def.refs.unwrap_or_default();
    if ref_defs.len() > MAX_DEFINITION_FIELDS {
        return Err(shape(format!(
            "refs lists {} fields; at most {MAX_DEFINITION_FIELDS}",
            ref_defs.len()
        )));
    }
    let shared = &refs::ref_fields(ItemType::Person)[..SHARED_REFS];
    let mut ref_fields: Vec<RefField> = shared.to_vec();
    for r in ref_defs {
        let field = field_name(&r.field, "refs")?;
        if ref_fields.iter().any(|f| f.field == field) || matches!(field, "body" | "content") {
            return Err(shape(format!(
                "refs names {field}, which is already a reference field of every item or of the words"
            )));
        }
        if r.targets.len() > MAX_DEFINITION_FIELDS {
            return Err(shape(format!("refs.{field} lists too many targets")));
        }
        let mut targets = Vec::with_capacity(r.targets.len());
        for t in &r.targets {
            targets.push(ItemType::parse(t).map_err(|e| shape(format!("refs.{field}: {e}")))?);
        }
        ref_fields.push(RefField {
            field,
            targets: intern::types(&targets),
            many: r.many,
        });
    }
    if body {
        ref_fields.push(
            refs::ref_field(ItemType::Person, "body")
                .copied()
                .expect("people have words"),
        );
    }
    let path = match def.path {
        None => PathRule::None,
        Some(p) => {
            if !is_step(&p.prefix)
                || !p
                    .prefix
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
            {
                return Err(shape(format!(
                    "path.prefix {} is not one lowercase path step",
                    crate::quote(&p.prefix)
                )));
            }
            if RESERVED_TOP_LEVEL.contains(&p.prefix.as_str()) {
                return Err(shape(format!(
                    "path.prefix {} belongs to the site or a built-in kind",
                    crate::quote(&p.prefix)
                )));
            }
            PathRule::Field {
                prefix: intern::str(&p.prefix),
                field: field_name(&p.field, "path.field")?,
            }
        }
    };
    let schema = effective_schema(ty, def.version, &def.schema, body);
    let validator = compile(&schema)?;
    Ok(TypeDef {
        ty,
        version: def.version,
        item: Some(item),
        schema,
        validator,
        ref_fields: intern::ref_fields(&ref_fields),
        key_fields: intern::strs(&key_fields),
        date_fields: intern::strs(&date_fields),
        path,
        body,
    })
}

fn built_ins() -> &'static [Arc<TypeDef>] {
    static BUILT_INS: OnceLock<Vec<Arc<TypeDef>>> = OnceLock::new();
    BUILT_INS.get_or_init(|| {
        ItemType::BUILT_IN
            .into_iter()
            .map(|t| Arc::new(TypeDef::built_in(t)))
            .collect()
    })
}

/// The kinds of item defined at one point of the log. Cloning is cheap (definitions are shared).
#[derive(Debug, Clone)]
pub struct TypeRegistry {
    /// Built-ins in [`ItemType::BUILT_IN`] order, then defined kinds by name.
    defs: Vec<Arc<TypeDef>>,
    index: HashMap<ItemType, usize>,
    /// The reference fields of kinds once defined and now not: an item of one left behind keeps
    /// being read (and its backlinks undone) by the fields it was indexed by.
    retired: HashMap<ItemType, &'static [RefField]>,
}

impl Default for TypeRegistry {
    fn default() -> Self {
        TypeRegistry::built_in()
    }
}

impl TypeRegistry {
    /// A new catalog's kinds: the 21 built-ins as the code ships them.
    pub fn built_in() -> TypeRegistry {
        let defs = built_ins().to_vec();
        let index = defs.iter().enumerate().map(|(i, d)| (d.ty, i)).collect();
        TypeRegistry {
            defs,
            index,
            retired: HashMap::new(),
        }
    }

    pub fn get(&self, ty: ItemType) -> Option<&TypeDef> {
        self.index.get(&ty).map(|&i| &*self.defs[i])
    }

    pub fn is_defined(&self, ty: ItemType) -> bool {
        self.index.contains_key(&ty)
    }

    /// Every kind: the built-ins first, in their order, then the catalog's own by name.
    pub fn iter(&self) -> impl Iterator<Item = &TypeDef> {
        self.defs.iter().map(|d| &**d)
    }

    /// The kind `item` defines, if it defines one.
    pub fn defined_by(&self, item: Id) -> Option<&TypeDef> {
        self.iter().find(|d| d.item == Some(item))
    }

    /// Lets the `schema` item `item` define its kind (replacing what it defined before). Refuses a
    /// kind another schema item already defines, and more than [`MAX_DEFINED_TYPES`] kinds.
    pub fn define(&mut self, item: Id, data: &Value) -> Result<(), DefinitionError> {
        let def = read_definition(item, data)?;
        if let Some(other) = self.get(def.ty).and_then(|d| d.item)
            && other != item
        {
            return Err(DefinitionError::Taken {
                ty: def.ty,
                by: other,
            });
        }
        let fixed = self
            .get(def.ty)
            .map(|d| d.ref_fields)
            .or_else(|| self.retired.get(&def.ty).copied());
        if !def.ty.is_built_in() && fixed.is_some_and(|refs| refs != def.ref_fields) {
            return Err(DefinitionError::RefsFixed(def.ty));
        }
        let new_kind = !self.is_defined(def.ty);
        let defined = self.defs.len() - ItemType::BUILT_IN.len();
        if new_kind && self.defined_by(item).is_none() && defined >= MAX_DEFINED_TYPES {
            return Err(DefinitionError::TooMany);
        }
        self.forget(item);
        self.put(Arc::new(def));
        Ok(())
    }

    /// Folds a `schema` item's new version in: its data defines its kind, `None` (deleted or merged
    /// away) forgets what it defined. A version that cannot define its kind leaves what it
    /// defined before, and says why.
    pub fn apply(&mut self, item: Id, data: Option<&Value>) -> Result<(), DefinitionError> {
        match data {
            Some(data) => self.define(item, data),
            None => {
                self.forget(item);
                Ok(())
            }
        }
    }

    /// The `schema` item `item` is gone: a kind it defined is no more, and a built-in kind it
    /// gave a new schema has the code's again.
    pub fn forget(&mut self, item: Id) {
        let Some(ty) = self.defined_by(item).map(|d| d.ty) else {
            return;
        };
        let i = self.index[&ty];
        if ty.is_built_in() {
            self.defs[i] = built_ins()[i].clone();
        } else {
            let gone = self.defs.remove(i);
            self.retired.insert(ty, gone.ref_fields);
            self.reindex();
        }
    }

    fn put(&mut self, def: Arc<TypeDef>) {
        if let Some(&i) = self.index.get(&def.ty) {
            self.defs[i] = def;
            return;
        }
        let built = ItemType::BUILT_IN.len();
        let at = built + self.defs[built..].partition_point(|d| d.ty < def.ty);
        self.defs.insert(at, def);
        self.reindex();
    }

    fn reindex(&mut self) {
        self.index = self
            .defs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.ty, i))
            .collect();
    }

    /// Checks data against its kind; a kind the catalog does not define is one violation.
    pub fn validate(&self, ty: ItemType, data: &Value) -> Result<(), Vec<Violation>> {
        match self.get(ty) {
            Some(def) => def.validate(data),
            None => Err(vec![Violation {
                pointer: String::new(),
                message: undefined(ty),
            }]),
        }
    }

    /// The reference fields of a kind (those it had, for a kind no longer defined; none for a
    /// kind never defined).
    pub fn ref_fields(&self, ty: ItemType) -> &'static [RefField] {
        match self.get(ty) {
            Some(d) => d.ref_fields,
            None => self.retired.get(&ty).copied().unwrap_or(&[]),
        }
    }

    pub fn ref_field(&self, ty: ItemType, field: &str) -> Option<&'static RefField> {
        self.ref_fields(ty).iter().find(|f| f.field == field)
    }

    pub fn references(&self, ty: ItemType, data: &Value) -> Vec<Reference> {
        refs::references_in(self.ref_fields(ty), data)
    }

    pub fn has_body(&self, ty: ItemType) -> bool {
        self.get(ty).is_some_and(|d| d.body)
    }

    pub fn key_fields(&self, ty: ItemType) -> &'static [&'static str] {
        self.get(ty).map_or(&[], |d| d.key_fields)
    }

    pub fn dates(&self, ty: ItemType, data: &Value) -> Vec<(String, Result<DateKey, SchemaError>)> {
        self.get(ty).map(|d| d.dates(data)).unwrap_or_default()
    }

    /// The path an item of `ty` should have (see [`crate::paths::path_for`]). A work may not take
    /// a path whose first step is a defined kind's prefix.
    pub fn path_for(
        &self,
        ty: ItemType,
        data: &Value,
        lookup: &dyn Fn(Id) -> Option<(ItemType, Value)>,
    ) -> Option<String> {
        match &self.get(ty)?.path {
            PathRule::None => None,
            PathRule::Field { prefix, field } => {
                let value = data.get(*field)?.as_str().filter(|s| is_step(s))?;
                Some(format!("/{prefix}/{value}"))
            }
            PathRule::BuiltIn => {
                let path = path_for(ty, data, lookup)?;
                let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
                let taken = self.defs[ItemType::BUILT_IN.len()..]
                    .iter()
                    .any(|d| matches!(d.path, PathRule::Field { prefix, .. } if prefix == first));
                (!taken).then_some(path)
            }
        }
    }
}

/// The message for a kind no `schema` item defines.
pub fn undefined(ty: ItemType) -> String {
    format!("the catalog defines no kind of item named {ty} (see /v1/types)")
}

#[cfg(test)]
mod tests;

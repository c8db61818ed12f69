use serde_json::json;

use super::*;

fn id(n: u64) -> Id {
    Id::from_u64(n).unwrap()
}

fn niggun() -> Value {
    json!({
        "type": "niggun", "version": 1,
        "schema": {
            "properties": {
                "composer": { "$ref": "#/$defs/id" },
                "date": { "$ref": "#/$defs/dateKey" }
            },
            "required": ["name"]
        },
        "keyFields": ["composer"],
        "refs": [{ "field": "composer", "targets": ["author"] }],
        "dateFields": ["date"],
        "path": { "prefix": "niggunim", "field": "slug" },
        "words": true
    })
}

fn none(_: Id) -> Option<(ItemType, Value)> {
    None
}

#[test]
fn a_new_catalog_has_the_built_in_kinds_as_shipped() {
    let r = TypeRegistry::built_in();
    let names: Vec<ItemType> = r.iter().map(|d| d.ty).collect();
    assert_eq!(names, ItemType::BUILT_IN);
    assert!(
        r.iter()
            .all(|d| d.item.is_none() && d.version == super::super::VERSION)
    );
    let work = json!({"title": {"he": "תניא"}, "slug": "tanya"});
    assert!(r.validate(ItemType::Work, &work).is_ok());
    assert!(
        r.validate(ItemType::Work, &json!({"slug": "tanya"}))
            .is_err()
    );
}

#[test]
fn a_schema_item_defines_a_kind_with_its_fields_references_and_path() {
    let mut r = TypeRegistry::built_in();
    let ty: ItemType = "niggun".parse().unwrap();
    assert!(!r.is_defined(ty));
    assert_eq!(
        r.validate(ty, &json!({}))
            .unwrap_err()
            .first()
            .unwrap()
            .message,
        undefined(ty)
    );
    r.define(id(1), &niggun()).unwrap();
    let def = r.get(ty).unwrap();
    assert_eq!(def.item, Some(id(1)));
    assert_eq!(def.key_fields, ["composer"]);
    assert_eq!(def.schema["$id"], "urn:catalog:schema:niggun");
    let good = json!({
        "name": {"he": "ניגון"}, "slug": "daled-bavos", "composer": "cat-00000002",
        "sets": ["cat-00000003"], "date": "5784-06B-14"
    });
    assert!(r.validate(ty, &good).is_ok());
    let errs = r.validate(ty, &json!({"composer": "nope"})).unwrap_err();
    let pointers: Vec<&str> = errs.iter().map(|v| v.pointer.as_str()).collect();
    assert!(pointers.contains(&"/name"), "{errs:?}");
    assert!(pointers.contains(&"/composer"), "{errs:?}");
    let targets: Vec<(&str, u64)> = r
        .references(ty, &good)
        .iter()
        .map(|x| (x.field, x.target.as_u64()))
        .collect();
    assert_eq!(targets, [("sets", 3), ("composer", 2)]);
    assert_eq!(
        r.ref_field(ty, "composer").unwrap().targets,
        [ItemType::Author]
    );
    assert_eq!(
        r.path_for(ty, &good, &none).as_deref(),
        Some("/niggunim/daled-bavos")
    );
    assert_eq!(r.dates(ty, &good).len(), 1);
    // A work may no longer take the prefix as its slug.
    let work = json!({"title": {"he": "x"}, "slug": "niggunim"});
    assert_eq!(r.path_for(ItemType::Work, &work, &none), None);
    assert_eq!(
        TypeRegistry::built_in()
            .path_for(ItemType::Work, &work, &none)
            .as_deref(),
        Some("/niggunim")
    );
}

#[test]
fn one_kind_one_schema_item_and_forgetting_it_undoes_it() {
    let mut r = TypeRegistry::built_in();
    r.define(id(1), &niggun()).unwrap();
    let err = r.define(id(2), &niggun()).unwrap_err();
    assert_eq!(
        err,
        DefinitionError::Taken {
            ty: "niggun".parse().unwrap(),
            by: id(1)
        }
    );
    // The same item may define it again (a new version).
    let mut v2 = niggun();
    v2["version"] = json!(2);
    r.define(id(1), &v2).unwrap();
    assert_eq!(r.get("niggun".parse().unwrap()).unwrap().version, 2);
    r.forget(id(1));
    let ty: ItemType = "niggun".parse().unwrap();
    assert!(!r.is_defined(ty));
    assert_eq!(r.iter().count(), 21);
    // Its reference fields outlive it, and a new definition must keep them.
    assert!(r.ref_field(ty, "composer").is_some());
    let mut other_refs = niggun();
    other_refs["refs"] = json!([{ "field": "singer", "targets": ["person"] }]);
    assert_eq!(
        r.define(id(3), &other_refs).unwrap_err(),
        DefinitionError::RefsFixed(ty)
    );
    r.define(id(3), &niggun()).unwrap();
    assert_eq!(r.get(ty).unwrap().item, Some(id(3)));
}

#[test]
fn a_built_in_kind_takes_a_new_schema_but_keeps_its_behaviour() {
    let mut r = TypeRegistry::built_in();
    let mut schema = r.get(ItemType::Work).unwrap().schema.clone();
    schema["properties"]["pages"] = json!({"type": "integer", "minimum": 1});
    r.define(
        id(5),
        &json!({"type": "work", "version": 7, "schema": schema}),
    )
    .unwrap();
    let work = r.get(ItemType::Work).unwrap();
    assert_eq!((work.version, work.item), (7, Some(id(5))));
    assert_eq!(work.path, PathRule::BuiltIn);
    assert_eq!(work.ref_fields, refs::ref_fields(ItemType::Work));
    let data = json!({"title": {"he": "x"}, "slug": "x", "pages": 0});
    assert_eq!(
        r.validate(ItemType::Work, &data).unwrap_err()[0].pointer,
        "/pages"
    );
    r.forget(id(5));
    assert!(r.validate(ItemType::Work, &data).is_ok());
    let err = r
        .define(
            id(5),
            &json!({"type": "work", "version": 7, "schema": {}, "refs": []}),
        )
        .unwrap_err();
    assert!(
        err.to_string().contains("only its schema may change"),
        "{err}"
    );
    let err = r
        .define(
            id(6),
            &json!({"type": "schema", "version": 1, "schema": {}}),
        )
        .unwrap_err();
    assert!(err.to_string().contains("cannot redefine"), "{err}");
}

#[test]
fn definitions_that_cannot_work_are_refused() {
    let mut r = TypeRegistry::built_in();
    let cases = [
        (
            json!({"type": "Niggun", "version": 1, "schema": {}}),
            "unknown item type",
        ),
        (
            json!({"type": "niggun", "version": 0, "schema": {}}),
            "version",
        ),
        (
            json!({"type": "niggun", "version": 1, "schema": {"properties": {"x": {"type": 5}}}}),
            "does not compile",
        ),
        (
            json!({"type": "niggun", "version": 1, "schema": {"$ref": "https://example.com/s"}}),
            "does not compile",
        ),
        (
            json!({"type": "niggun", "version": 1, "schema": {}, "path": {"prefix": "sets", "field": "slug"}}),
            "belongs to the site",
        ),
        (
            json!({"type": "niggun", "version": 1, "schema": {}, "refs": [{"field": "sets"}]}),
            "already a reference field",
        ),
        (
            json!({"type": "niggun", "version": 1, "schema": {}, "keyFields": ["a b"]}),
            "not a field name",
        ),
        (
            json!({"type": "niggun", "version": 1, "schema": {}, "refs": [{"field": "x", "target": []}]}),
            "unknown field",
        ),
    ];
    for (data, want) in cases {
        let Err(err) = r.define(id(1), &data) else {
            panic!("{data} was accepted");
        };
        assert!(err.to_string().contains(want), "{data}: {err}");
    }
    assert_eq!(r.iter().count(), 21);
}

#[test]
fn the_number_of_kinds_is_capped() {
    let mut r = TypeRegistry::built_in();
    for n in 0..MAX_DEFINED_TYPES as u64 {
        let data = json!({"type": format!("kind-{n}"), "version": 1, "schema": {}});
        r.define(id(n + 1), &data).unwrap();
    }
    let one_more = json!({"type": "kind-last", "version": 1, "schema": {}});
    assert_eq!(
        r.define(id(1000), &one_more).unwrap_err(),
        DefinitionError::TooMany
    );
    // Redefining one already there is not one more.
    let again = json!({"type": "kind-0", "version": 2, "schema": {}});
    r.define(id(1), &again).unwrap();
    let names: Vec<&str> = r.iter().skip(21).take(3).map(|d| d.ty.as_str()).collect();
    assert_eq!(names, ["kind-0", "kind-1", "kind-10"]);
}

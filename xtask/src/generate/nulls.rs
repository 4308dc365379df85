//! Null is absence: how the generated Rust types read `null` in an
//! optional field.
//!
//! The documents mark every optional property `nullable: true` (rule 18 of
//! `docs/document-rules.md`), so the published schemas and the consumers in
//! other languages accept `null`. In Rust, an optional field is already an
//! `Option<T>` (where `null` is `None`) or, for lists, free-form objects and
//! fields with a default, a plain value with `#[serde(default)]`, which covers
//! a missing field but not a `null` one. So before generation the optional
//! properties lose their `nullable` (typify would otherwise wrap them in new
//! types), and after generation every defaulted field gets a
//! `deserialize_with` that reads `null` as the default.

use serde_json::{Map, Value};

/// Strips `nullable` from every optional property of every schema, and
/// unwraps the `allOf: [{$ref}]` that OpenAPI 3.0 needs to make a reference
/// nullable, so typify sees the plain property.
pub fn strip_optional_nullable(document: &mut Value) {
    walk_schemas(document, &mut |schema| {
        let required: Vec<String> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| {
                r.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let Some(Value::Object(properties)) = schema.get_mut("properties") else {
            return;
        };
        for (name, property) in properties.iter_mut() {
            if required.contains(name) {
                continue;
            }
            if let Value::Object(map) = property {
                if map.remove("nullable").is_some() {
                    unwrap_single_all_of(map);
                }
            }
        }
    });
}

/// `{allOf: [X], description}` -> `X` (the description is dropped with the
/// wrapper: typify documents the field by the referenced type).
fn unwrap_single_all_of(map: &mut Map<String, Value>) {
    let single = match map.get("allOf") {
        Some(Value::Array(items)) if items.len() == 1 => items[0].clone(),
        _ => return,
    };
    let description = map.remove("description");
    *map = match single {
        Value::Object(inner) => inner,
        _ => return,
    };
    if let (Some(description), false) = (description, map.contains_key("$ref")) {
        map.insert("description".to_owned(), description);
    }
}

/// Calls `visit` on every schema object of the document (components, inline
/// property schemas, items, compositions).
fn walk_schemas(value: &mut Value, visit: &mut impl FnMut(&mut Map<String, Value>)) {
    match value {
        Value::Object(map) => {
            if map.contains_key("properties") {
                visit(map);
            }
            for child in map.values_mut() {
                walk_schemas(child, visit);
            }
        }
        Value::Array(items) => {
            for item in items {
                walk_schemas(item, visit);
            }
        }
        _ => {}
    }
}

/// Adds `deserialize_with` to every field of the generated types that has a
/// `#[serde(default...)]`, so `null` reads as the default. A default this
/// function does not know is an error, not a silent gap.
pub fn read_null_as_default(file: &mut syn::File) -> Result<(), String> {
    let mut failure = None;
    for item in &mut file.items {
        if let syn::Item::Mod(module) = item {
            if let Some((_, items)) = &mut module.content {
                for item in items {
                    if let syn::Item::Struct(strukt) = item {
                        for field in strukt.fields.iter_mut() {
                            if let Err(error) = patch_field(field) {
                                failure.get_or_insert(format!("{}: {error}", strukt.ident));
                            }
                        }
                    }
                }
            }
        }
    }
    failure.map_or(Ok(()), Err)
}

fn patch_field(field: &mut syn::Field) -> Result<(), String> {
    for attr in &mut field.attrs {
        if !attr.path().is_ident("serde") {
            continue;
        }
        let items = attr
            .parse_args_with(
                syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            )
            .map_err(|e| format!("unreadable serde attribute: {e}"))?;
        let default = items.iter().find(|meta| meta.path().is_ident("default"));
        let already = items
            .iter()
            .any(|meta| meta.path().is_ident("deserialize_with") || meta.path().is_ident("with"));
        let reader = match default {
            None => continue,
            Some(_) if already => continue,
            Some(syn::Meta::Path(_)) => "::psi_runtime::nulls::or_default",
            Some(syn::Meta::NameValue(value))
                if quote::quote!(#value)
                    .to_string()
                    .contains("default_bool::<true>") =>
            {
                "::psi_runtime::nulls::or_true"
            }
            Some(other) => return Err(format!("no null reading for `{}`", quote::quote!(#other))),
        };
        let mut items = items;
        items.push(syn::parse_quote!(deserialize_with = #reader));
        *attr = syn::parse_quote!(#[serde(#items)]);
    }
    Ok(())
}

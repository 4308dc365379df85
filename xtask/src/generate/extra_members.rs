//! Every object type of a request body gets an `extra_members` field
//! (`psi_runtime::ExtraMembers`): members the document does not declare
//! yet, written after the declared ones as given and never checked, so a
//! merchant can send a field the provider adds before psi's documents know
//! it. typify writes no such field: `additionalProperties` with properties
//! gives either nothing (`true`) or a `#[serde(flatten)]` map that serde
//! fills by buffering every member of the object, which would read amounts
//! through `f64`.
//!
//! The field is written, never read (`skip_deserializing`), through a
//! function per type that refuses a member named like a declared one
//! (`ExtraMembers::serialize_beside`). The type's builder carries it too,
//! so a value taken through its builder and back keeps it.
//!
//! The request types are found from the document and the code together:
//! the schemas a `requestBody` names, then every type of this crate a
//! field or variant of one of them names, so inline objects and the
//! branches of a `oneOf` count too.

use quote::format_ident;
use serde_json::Value;
use std::collections::BTreeSet;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// The field's name in every request type and its builder.
const FIELD: &str = "extra_members";

/// The component schemas a `requestBody` of `document` names (through a
/// `$ref`, also one to `components/requestBodies`).
pub fn request_body_schemas(document: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (_, operation) in crate::lint::operation_pointers(document) {
        if let Some(body) = operation.get("requestBody") {
            collect_schema_refs(document, body, &mut names, 0);
        }
    }
    names
}

/// Schema names `$ref`ed from `value`, following other local references
/// (a shared request body) a few levels deep; the schemas' own references
/// are followed in the code instead.
fn collect_schema_refs(document: &Value, value: &Value, names: &mut BTreeSet<String>, depth: u8) {
    match value {
        Value::Object(map) => {
            for (key, member) in map {
                let reference = member.as_str().filter(|_| key == "$ref");
                match reference {
                    Some(target) => {
                        if let Some(name) = target.strip_prefix("#/components/schemas/") {
                            names.insert(name.to_owned());
                        } else if let (Some(pointer), true) = (target.strip_prefix('#'), depth < 4)
                        {
                            if let Some(resolved) = document.pointer(pointer) {
                                collect_schema_refs(document, resolved, names, depth + 1);
                            }
                        }
                    }
                    None => collect_schema_refs(document, member, names, depth),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                collect_schema_refs(document, item, names, depth);
            }
        }
        _ => {}
    }
}

/// Adds the field to every request type of `file`'s `types` module that
/// `roots` reaches, with its serialising function and its builder's part.
pub fn carry_extra_members(file: &mut syn::File, roots: &BTreeSet<String>) -> Result<(), String> {
    let types = super::items::module_items(&mut file.items, "types")
        .ok_or("generated code has no `types` module")?;
    let reached = reached_types(types, roots);
    let mut functions: Vec<syn::Item> = Vec::new();
    let mut extended = BTreeSet::new();
    for item in types.iter_mut() {
        let syn::Item::Struct(item) = item else {
            continue;
        };
        let name = item.ident.to_string();
        if !reached.contains(&name) || denies_unknown_members(&item.attrs) {
            continue;
        }
        let syn::Fields::Named(fields) = &mut item.fields else {
            continue;
        };
        if fields.named.iter().any(|field| is_named(field, FIELD)) {
            return Err(format!(
                "{name} declares a member `{FIELD}`: it would collide with the extra members \
                 (xtask/src/generate/extra_members.rs)"
            ));
        }
        let declared: Vec<String> = fields
            .named
            .iter()
            .filter_map(super::items::json_name)
            .collect();
        let function = format_ident!("{FIELD}_of_{}", snake_case(&name));
        let function_path = function.to_string();
        fields.named.push(syn::parse_quote! {
            /// Members the document does not declare (yet), written after
            /// the declared ones as given and never checked; a declared
            /// name is refused when the body is written. Not read from
            /// JSON. See [`::psi_runtime::ExtraMembers`].
            #[serde(
                flatten,
                skip_deserializing,
                serialize_with = #function_path
            )]
            #[cfg_attr(feature = "schemars", schemars(skip))]
            pub extra_members: ::psi_runtime::ExtraMembers
        });
        functions.push(syn::parse_quote! {
            #[inline]
            fn #function<S: ::serde::Serializer>(
                members: &::psi_runtime::ExtraMembers,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                members.serialize_beside(&[#(#declared),*], serializer)
            }
        });
        extended.insert(name);
    }
    // A type with defaults has its own `Default`, which builds `Self`.
    for item in types.iter_mut() {
        let syn::Item::Impl(block) = item else {
            continue;
        };
        let extends = last_ident(&block.self_ty).is_some_and(|name| extended.contains(&name));
        if extends && trait_name(block).as_deref() == Some("Default") {
            let mut completing = CompleteSelf {
                value: syn::parse_quote!(Default::default()),
                done: 0,
            };
            completing.visit_item_impl_mut(block);
        }
    }
    types.extend(functions);
    let builders = super::items::module_items(types, "builder").ok_or(
        "typify's `types::builder` module was not found: \
         check xtask/src/generate/extra_members.rs against the generated code",
    )?;
    extend_builders(builders, &extended)
}

/// `roots` and every type of `types` a field or variant of a reached type
/// names, until nothing new is reached.
fn reached_types(types: &[syn::Item], roots: &BTreeSet<String>) -> BTreeSet<String> {
    let mut reached: BTreeSet<String> = roots.clone();
    loop {
        let mut named = Names::default();
        for item in types {
            match item {
                syn::Item::Struct(item) if reached.contains(&item.ident.to_string()) => {
                    named.visit_fields(&item.fields);
                }
                syn::Item::Enum(item) if reached.contains(&item.ident.to_string()) => {
                    for variant in &item.variants {
                        named.visit_fields(&variant.fields);
                    }
                }
                _ => {}
            }
        }
        let before = reached.len();
        reached.extend(named.0);
        if reached.len() == before {
            return reached;
        }
    }
}

/// Every identifier in the paths of the types visited.
#[derive(Default)]
struct Names(BTreeSet<String>);

impl<'ast> Visit<'ast> for Names {
    fn visit_path_segment(&mut self, segment: &'ast syn::PathSegment) {
        self.0.insert(segment.ident.to_string());
        syn::visit::visit_path_segment(self, segment);
    }
}

fn denies_unknown_members(attributes: &[syn::Attribute]) -> bool {
    attributes.iter().any(|attribute| {
        attribute.path().is_ident("serde")
            && quote::ToTokens::to_token_stream(attribute)
                .to_string()
                .contains("deny_unknown_fields")
    })
}

fn is_named(field: &syn::Field, name: &str) -> bool {
    field.ident.as_ref().is_some_and(|ident| ident == name)
}

fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (index, character) in name.chars().enumerate() {
        if character.is_ascii_uppercase() {
            if index > 0 {
                out.push('_');
            }
            out.push(character.to_ascii_lowercase());
        } else {
            out.push(character);
        }
    }
    out
}

/// The builder of each extended type gets the field (`Ok` of no members
/// by default), a setter, and its place in both conversions.
fn extend_builders(builders: &mut [syn::Item], extended: &BTreeSet<String>) -> Result<(), String> {
    let mut seen = BTreeSet::new();
    for item in builders.iter_mut() {
        match item {
            syn::Item::Struct(item) if extended.contains(&item.ident.to_string()) => {
                let syn::Fields::Named(fields) = &mut item.fields else {
                    return Err(format!("the builder of {} has no named fields", item.ident));
                };
                fields.named.push(syn::parse_quote! {
                    extra_members: ::std::result::Result<
                        ::psi_runtime::ExtraMembers,
                        ::std::string::String,
                    >
                });
                seen.insert(item.ident.to_string());
            }
            syn::Item::Impl(block) => {
                let Some(name) = last_ident(&block.self_ty) else {
                    continue;
                };
                if !extended.contains(&name) {
                    continue;
                }
                let value: syn::Expr = match trait_name(block).as_deref() {
                    Some("Default") => syn::parse_quote!(Ok(Default::default())),
                    Some("TryFrom") => syn::parse_quote!(value.extra_members?),
                    Some("From") => syn::parse_quote!(Ok(value.extra_members)),
                    Some(_) => continue,
                    None => {
                        block.items.push(syn::parse_quote! {
                            /// Members the document does not declare (yet):
                            /// see [`::psi_runtime::ExtraMembers`].
                            pub fn extra_members(mut self, value: ::psi_runtime::ExtraMembers) -> Self {
                                self.extra_members = Ok(value);
                                self
                            }
                        });
                        continue;
                    }
                };
                let mut completing = CompleteSelf { value, done: 0 };
                completing.visit_item_impl_mut(block);
                if completing.done != 1 {
                    return Err(format!(
                        "the builder conversions of {name} build `Self` {} times, not once: \
                         check xtask/src/generate/extra_members.rs against the generated code",
                        completing.done
                    ));
                }
            }
            _ => {}
        }
    }
    if &seen != extended {
        return Err(format!(
            "no builder for {:?}: check xtask/src/generate/extra_members.rs",
            extended.difference(&seen).collect::<Vec<_>>()
        ));
    }
    Ok(())
}

fn last_ident(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(path) => path.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn trait_name(block: &syn::ItemImpl) -> Option<String> {
    let (_, path, _) = block.trait_.as_ref()?;
    path.segments
        .last()
        .map(|segment| segment.ident.to_string())
}

/// Adds `extra_members: <value>` to the `Self { .. }` literal of an impl.
struct CompleteSelf {
    value: syn::Expr,
    done: usize,
}

impl VisitMut for CompleteSelf {
    fn visit_expr_struct_mut(&mut self, expr: &mut syn::ExprStruct) {
        if expr.path.is_ident("Self") {
            let value = &self.value;
            expr.fields.push(syn::parse_quote!(extra_members: #value));
            self.done += 1;
        }
        syn::visit_mut::visit_expr_struct_mut(self, expr);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    #[test]
    fn the_request_body_schemas_are_found_through_shared_bodies() {
        let document = serde_json::json!({
            "paths": {
                "/a": {"post": {"operationId": "a", "requestBody": {"content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Order"}}}}}},
                "/b": {"put": {"operationId": "b", "requestBody": {"$ref": "#/components/requestBodies/Shop"}}},
                "/c": {"get": {"operationId": "c", "responses": {"200": {"content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Answer"}}}}}}}
            },
            "components": {"requestBodies": {"Shop": {"content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Shop"}}}}}}
        });
        let names: Vec<String> = request_body_schemas(&document).into_iter().collect();
        assert_eq!(names, ["Order", "Shop"]);
    }

    #[test]
    fn request_types_and_what_they_reach_carry_extra_members_answers_do_not() {
        let mut file: syn::File = syn::parse_quote! {
            pub mod types {
                #[derive(::serde::Serialize)]
                pub struct Order {
                    pub buyer: Option<Buyer>,
                    #[serde(rename = "pay_Later")]
                    pub pay_later: Option<String>,
                }
                pub enum Buyer { Company(Company) }
                pub struct Company { pub name: String }
                pub struct Answer { pub id: String }
                pub mod builder {
                    pub struct Order { buyer: Result<Option<super::Buyer>, String>, pay_later: Result<Option<String>, String> }
                    impl Default for Order {
                        fn default() -> Self { Self { buyer: Ok(Default::default()), pay_later: Ok(Default::default()) } }
                    }
                    impl Order {
                        pub fn buyer(mut self, value: Option<super::Buyer>) -> Self { self.buyer = Ok(value); self }
                    }
                    impl TryFrom<Order> for super::Order {
                        type Error = String;
                        fn try_from(value: Order) -> Result<Self, String> {
                            Ok(Self { buyer: value.buyer?, pay_later: value.pay_later? })
                        }
                    }
                    impl From<super::Order> for Order {
                        fn from(value: super::Order) -> Self { Self { buyer: Ok(value.buyer), pay_later: Ok(value.pay_later) } }
                    }
                    pub struct Company { name: Result<String, String> }
                    impl Default for Company { fn default() -> Self { Self { name: Err("no value".into()) } } }
                    impl TryFrom<Company> for super::Company {
                        type Error = String;
                        fn try_from(value: Company) -> Result<Self, String> { Ok(Self { name: value.name? }) }
                    }
                    impl From<super::Company> for Company {
                        fn from(value: super::Company) -> Self { Self { name: Ok(value.name) } }
                    }
                    pub struct Answer { id: Result<String, String> }
                }
            }
        };
        let roots = BTreeSet::from(["Order".to_owned()]);
        carry_extra_members(&mut file, &roots).unwrap();
        let code = file.to_token_stream().to_string();
        assert!(code.contains("fn extra_members_of_order"), "{code}");
        assert!(code.contains("fn extra_members_of_company"), "{code}");
        assert!(!code.contains("extra_members_of_answer"), "{code}");
        assert!(
            code.contains("serialize_beside (& [\"buyer\" , \"pay_Later\"] , serializer)"),
            "the declared names as JSON spells them: {code}"
        );
        assert_eq!(
            code.matches("extra_members : value . extra_members ?")
                .count(),
            2
        );
        assert_eq!(
            code.matches("extra_members : Ok (value . extra_members)")
                .count(),
            2
        );
        assert_eq!(
            code.matches("extra_members : Ok (Default :: default ())")
                .count(),
            2
        );
        assert!(code.contains("pub fn extra_members (mut self"), "{code}");
    }

    #[test]
    fn a_declared_member_of_the_same_name_is_an_error() {
        let mut file: syn::File = syn::parse_quote! {
            pub mod types {
                pub struct Order { pub extra_members: String }
                pub mod builder {}
            }
        };
        let roots = BTreeSet::from(["Order".to_owned()]);
        let error = carry_extra_members(&mut file, &roots).unwrap_err();
        assert!(
            error.contains("declares a member `extra_members`"),
            "{error}"
        );
    }
}

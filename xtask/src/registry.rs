//! The test suite's registry of generated types: for every API, every named
//! schema mapped to its Rust type, so tests can round-trip each example
//! through the type its schema names and snapshot each type's JSON Schema.
//! Written by `cargo xtask generate` to `tests/generated_registry.rs`, which
//! the suite includes as a module (it is not part of the crate's library).

use crate::apis::Api;
use crate::bundle::bundle;
use crate::conventions::{COMMA_SEPARATED_SCHEMAS, HEADER};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn path(root: &Path) -> PathBuf {
    root.join("tests").join("generated_registry.rs")
}

/// Named schemas of a bundled document that are Rust types of the crate.
pub fn type_names(document: &Value) -> Vec<String> {
    document
        .pointer("/components/schemas")
        .and_then(Value::as_object)
        .map(|schemas| {
            schemas
                .keys()
                .filter(|name| !COMMA_SEPARATED_SCHEMAS.contains(&name.as_str()))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

pub fn generate(root: &Path, apis: &[Api]) -> Result<String, String> {
    let mut round_trip_arms: Vec<TokenStream> = Vec::new();
    let mut schema_arms: Vec<TokenStream> = Vec::new();
    let mut operation_tables = Vec::new();
    for api in apis {
        let document = bundle(&api.document(root))?;
        let krate = format_ident!("{}", api.crate_ident());
        let name = api.name.as_str();
        operation_tables.push(quote! { (#name, #krate::OPERATION_IDS) });
        let mut registrations = Vec::new();
        for type_name in type_names(&document) {
            let ident = format_ident!("{}", type_name);
            round_trip_arms.push(quote! {
                (#name, #type_name) => round_trip_as::<#krate::types::#ident>(json),
            });
            registrations.push(quote! { generator.subschema_for::<#krate::types::#ident>(); });
        }
        schema_arms.push(quote! { #name => { #(#registrations)* } });
    }
    let tokens = quote! {
        use std::collections::BTreeMap;

        /// Each crate's compiled `OPERATION_IDS`, by document name.
        pub const OPERATION_TABLES: &[(&str, &[(&str, &str)])] = &[#(#operation_tables),*];

        /// Parses `json` as the Rust type of schema `schema` of `api` and
        /// serializes it back; an error names the failing field.
        pub fn round_trip(api: &str, schema: &str, json: &str) -> Result<serde_json::Value, String> {
            match (api, schema) {
                #(#round_trip_arms)*
                _ => Err(format!("{api} has no type {schema}")),
            }
        }

        /// The JSON Schema of every named type of `api`, as its Rust types see it.
        pub fn type_schemas(api: &str) -> BTreeMap<String, serde_json::Value> {
            let mut generator = schemars::gen::SchemaSettings::draft2019_09().into_generator();
            match api {
                #(#schema_arms)*
                _ => {}
            }
            generator
                .take_definitions()
                .into_iter()
                .map(|(name, schema)| (name, serde_json::to_value(schema).expect("a schema is JSON")))
                .collect()
        }

        fn round_trip_as<T: serde::de::DeserializeOwned + serde::Serialize>(json: &str) -> Result<serde_json::Value, String> {
            let value: T = psi_runtime::parse_json(json).map_err(|e| e.to_string())?;
            serde_json::to_value(&value).map_err(|e| e.to_string())
        }
    };
    let file: syn::File =
        syn::parse2(tokens).map_err(|e| format!("registry does not parse: {e}"))?;
    Ok(HEADER.replace("{doc}", "openapi/*.yaml") + &prettyplease::unparse(&file))
}

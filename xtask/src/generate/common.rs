//! `crates/psi-common`: the schemas of `openapi/common.yaml`, generated once.
//!
//! Every API document refers to these shared schemas; bundling copies them
//! into each document, so left alone every API crate would declare its own
//! `DeclineResponse`. Instead they are generated here, types only (the
//! document has no paths, so no client), and each API crate's generator
//! replaces them by `::psi_common::<Name>`.

use super::settings::base_settings;
use crate::bundle::read_yaml;
use crate::conventions::HEADER;
use crate::open_enums::{open_enums, render};
use progenitor_impl::{Generator, TypeImpl};
use std::path::Path;

/// One shared type: its schema name and the traits its generated Rust type
/// implements (typify needs them to use a replacement correctly, e.g. only a
/// `Default` field lets a containing struct derive `Default`).
#[derive(Debug, Clone)]
pub struct SharedType {
    pub name: String,
    pub impls: Vec<TypeImpl>,
}

/// The generated code of `psi-common` and the types it declares.
pub struct Common {
    pub code: String,
    pub types: Vec<SharedType>,
}

/// Every trait typify may ask a replacement about.
const ALL_IMPLS: [TypeImpl; 3] = [TypeImpl::Display, TypeImpl::FromStr, TypeImpl::Default];

pub fn generate(root: &Path) -> Result<Common, String> {
    let label = "openapi/common.yaml".to_owned();
    let document = read_yaml(&root.join("openapi").join("common.yaml"))?;
    let open = open_enums(&document);
    let mut for_progenitor = document.clone();
    super::nulls::strip_optional_nullable(&mut for_progenitor);
    let spec: openapiv3::OpenAPI = serde_json::from_value(for_progenitor)
        .map_err(|e| format!("{label}: not an OpenAPI 3.0 document: {e}"))?;

    let mut settings = base_settings();
    // Open enums are declared by `open_enum!` below; `generated` is glob
    // re-exported at the crate root, so `crate::<Name>` finds them.
    let open_impls = [TypeImpl::Display, TypeImpl::FromStr];
    for open_enum in &open {
        settings.with_replacement(
            &open_enum.name,
            format!("crate::{}", open_enum.name),
            open_impls.into_iter(),
        );
    }
    let mut generator = Generator::new(&settings);
    let tokens = generator
        .generate_tokens(&spec)
        .map_err(|e| format!("{label}: generation failed: {e}"))?;

    // Every schema of the document, with the traits of its Rust type.
    let type_space = generator.get_type_space();
    let mut types = Vec::new();
    for name in document
        .pointer("/components/schemas")
        .and_then(serde_json::Value::as_object)
        .into_iter()
        .flat_map(|schemas| schemas.keys())
    {
        let impls = if open.iter().any(|open_enum| &open_enum.name == name) {
            open_impls.to_vec()
        } else {
            let ty = type_space
                .iter_types()
                .find(|ty| &ty.name() == name)
                .ok_or_else(|| format!("{label}: no Rust type was generated for {name}"))?;
            ALL_IMPLS.into_iter().filter(|i| ty.has_impl(*i)).collect()
        };
        types.push(SharedType {
            name: name.clone(),
            impls,
        });
    }

    let mut file: syn::File =
        syn::parse2(tokens).map_err(|e| format!("{label}: generated code does not parse: {e}"))?;
    super::nulls::read_null_as_default(&mut file).map_err(|e| format!("{label}: {e}"))?;
    super::received::lenient_on_arrival(&mut file).map_err(|e| format!("{label}: {e}"))?;
    super::patterns::compiled_at_generation(&mut file).map_err(|e| format!("{label}: {e}"))?;
    super::json_schema::derive_behind_feature(&mut file).map_err(|e| format!("{label}: {e}"))?;
    super::builders::inline_type_builders(&mut file).map_err(|e| format!("{label}: {e}"))?;
    // Only the `types` module's content: no client, no builders.
    let items = super::items::module_items(&mut file.items, "types")
        .map(std::mem::take)
        .ok_or_else(|| format!("{label}: generated code has no `types` module with a body"))?;
    let types_only = syn::File {
        shebang: None,
        attrs: Vec::new(),
        items,
    };
    let mut code = HEADER.replace("{doc}", &label);
    code.push_str(&prettyplease::unparse(&types_only));
    if !open.is_empty() {
        code.push_str("\npub use open_enums::*;\n");
        code.push_str(&render(&open));
    }
    Ok(Common { code, types })
}

//! `cargo xtask generate [--check]`: OpenAPI documents to client crates.

use crate::apis::{self, Api};
use crate::bundle::bundle;
use crate::conventions::{COMMA_SEPARATED_SCHEMAS, HEADER};
use crate::open_enums::{open_enums, render};
use common::SharedType;
use items::module_items;
use progenitor_impl::{Generator, TypeImpl};
use settings::base_settings;
use std::path::Path;

mod aliases;
mod api_version;
mod builders;
mod client_feature;
mod common;
pub mod control;
mod extra_members;
mod http_client;
mod items;
mod json_schema;
mod nulls;
mod operation_ids;
mod operations;
pub mod patterns;
mod rebuild;
mod received;
mod settings;

/// Regenerates every crate, or with `check` compares and reports drift.
pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let mut drifted = Vec::new();
    // Files made once, when missing, and then the crate's own: an API
    // crate's README seed and its license links.
    let apis = apis::all(root)?;
    let seeds = crate::derived::seeds(root, &apis)
        .into_iter()
        .map(|(target, seed)| (target, MadeOnce::Seed(seed)));
    let links = license_links(root, &apis)
        .into_iter()
        .map(|link| (link, MadeOnce::LicenseLink));
    for (target, made) in seeds.chain(links) {
        if target.exists() {
            continue;
        }
        if check {
            println!("--- {} (missing)", target.display());
            drifted.push(target.display().to_string());
        } else {
            match made {
                MadeOnce::Seed(seed) => write(&target, &seed)?,
                MadeOnce::LicenseLink => link_license(&target)?,
            }
        }
    }
    for (target, code) in outputs(root)? {
        let current = std::fs::read_to_string(&target).unwrap_or_default();
        if check {
            if current != code {
                print_diff(&target, &current, &code);
                drifted.push(target.display().to_string());
            }
        } else if current != code {
            write(&target, &code)?;
        }
    }
    if drifted.is_empty() {
        if check {
            println!("generated code is up to date with openapi/");
        }
        Ok(())
    } else {
        Err(format!(
            "generated code differs from the OpenAPI documents in:\n  {}\nrun `cargo xtask generate` and commit the result",
            drifted.join("\n  ")
        ))
    }
}

/// What `run` makes of a file that is missing.
enum MadeOnce {
    /// Written with this text.
    Seed(String),
    /// Linked to the workspace's license file of the same name.
    LicenseLink,
}

/// The workspace's license files, which every crate's package carries.
pub const LICENSE_FILES: [&str; 2] = ["LICENSE-APACHE", "LICENSE-MIT"];

/// Every API crate's links to the workspace's license files, so that
/// `cargo package` puts them in the crate's package (a new API's crate gets
/// them from `generate`).
pub fn license_links(root: &Path, apis: &[apis::Api]) -> Vec<std::path::PathBuf> {
    apis.iter()
        .flat_map(|api| LICENSE_FILES.map(|name| api.crate_dir(root).join(name)))
        .collect()
}

/// Links `link` (`crates/<name>/LICENSE-…`) to the workspace's file of that name.
fn link_license(link: &Path) -> Result<(), String> {
    let name = link.file_name().expect("a license link has a file name");
    if link.symlink_metadata().is_ok() {
        return Err(format!(
            "{}: links to a file that is not there (the workspace's {})",
            link.display(),
            name.to_string_lossy()
        ));
    }
    let crate_dir = link.parent().expect("a license link has a parent");
    std::fs::create_dir_all(crate_dir).map_err(|e| e.to_string())?;
    #[cfg(unix)]
    let linked = std::os::unix::fs::symlink(Path::new("../..").join(name), link);
    // Without symbolic links (Windows by default), a copy of the file.
    #[cfg(not(unix))]
    let linked = std::fs::copy(crate_dir.join("../..").join(name), link).map(drop);
    linked.map_err(|e| format!("{}: {e}", link.display()))?;
    println!("linked {}", link.display());
    Ok(())
}

fn write(target: &Path, content: &str) -> Result<(), String> {
    std::fs::create_dir_all(target.parent().expect("generated file has a parent"))
        .map_err(|e| e.to_string())?;
    std::fs::write(target, content).map_err(|e| format!("{}: {e}", target.display()))?;
    println!("wrote {}", target.display());
    Ok(())
}

fn print_diff(target: &Path, old: &str, new: &str) {
    let diff = similar::TextDiff::from_lines(old, new);
    let label = target.display().to_string();
    print!(
        "{}",
        diff.unified_diff().context_radius(3).header(
            &format!("{label} (checked in)"),
            &format!("{label} (generated)")
        )
    );
}

/// Every generated file with its expected content: the clients, the
/// sandbox's control types, the test suite's registry, and the files derived
/// from the x-psi blocks.
pub fn outputs(root: &Path) -> Result<Vec<(std::path::PathBuf, String)>, String> {
    let apis = apis::all(root)?;
    let common = common::generate(root)?;
    let mut files = vec![(apis::common_generated_file(root), common.code)];
    for api in &apis {
        files.push((
            api.generated_file(root),
            generate_api(root, api, &common.types)?,
        ));
    }
    files.push((control::types_file(root), control::generate(root)?));
    files.push((
        crate::registry::path(root),
        crate::registry::generate(root, &apis)?,
    ));
    files.extend(crate::derived::outputs(root, &apis)?);
    Ok(files)
}

/// The complete text of one crate's `src/generated.rs`. `shared` are the
/// types of `psi-common`: the API crate uses them instead of its own copy.
pub fn generate_api(root: &Path, api: &Api, shared: &[SharedType]) -> Result<String, String> {
    let label = api.document_label();
    let bundled = bundle(&api.document(root))?;
    let shared: Vec<&SharedType> = shared
        .iter()
        .filter(|ty| {
            bundled
                .pointer(&format!("/components/schemas/{}", ty.name))
                .is_some()
        })
        .collect();
    let mut open = open_enums(&bundled);
    open.retain(|open_enum| !shared.iter().any(|ty| ty.name == open_enum.name));
    let idempotent = idempotent_operations(&bundled);
    let media_types = operations::request_media_types(&bundled);
    let optional_bodies = operations::optional_success_bodies(&bundled);
    let comma_separated = operations::comma_separated_query(&bundled);
    let refusal_members = operations::refusal_members(&bundled);
    let request_types = extra_members::request_body_schemas(&bundled);
    let member_aliases =
        aliases::document_aliases(&bundled).map_err(|e| format!("{label}: {e}"))?;
    let mut for_progenitor = bundled.clone();
    nulls::strip_optional_nullable(&mut for_progenitor);
    let spec: openapiv3::OpenAPI = serde_json::from_value(for_progenitor)
        .map_err(|e| format!("{label}: not an OpenAPI 3.0 document: {e}"))?;

    let mut settings = base_settings();
    for ty in &shared {
        settings.with_replacement(
            &ty.name,
            format!("::psi_common::{}", ty.name),
            ty.impls.iter().copied(),
        );
    }
    for open_enum in &open {
        settings.with_replacement(
            &open_enum.name,
            format!("crate::types::{}", open_enum.name),
            [TypeImpl::Display, TypeImpl::FromStr].into_iter(),
        );
    }
    for name in COMMA_SEPARATED_SCHEMAS {
        let Some(item) = spec
            .components
            .as_ref()
            .and_then(|c| c.schemas.get(*name))
            .and_then(|s| s.as_item())
            .and_then(array_item_type)
        else {
            continue;
        };
        settings.with_replacement(
            name,
            format!("::psi_runtime::CommaSeparated<crate::types::{item}>"),
            [TypeImpl::Display, TypeImpl::FromStr, TypeImpl::Default].into_iter(),
        );
    }

    let mut generator = Generator::new(&settings);
    let tokens = generator
        .generate_tokens(&spec)
        .map_err(|e| format!("{label}: generation failed: {e}"))?;
    let mut file: syn::File =
        syn::parse2(tokens).map_err(|e| format!("{label}: generated code does not parse: {e}"))?;
    let operations =
        operation_ids::operation_ids(&file, &bundled).map_err(|e| format!("{label}: {e}"))?;
    let mut reexports: Vec<syn::Item> = Vec::new();
    if !open.is_empty() {
        reexports.push(syn::parse_quote!(
            pub use super::open_enums::*;
        ));
    }
    if !shared.is_empty() {
        let names = shared.iter().map(|ty| quote::format_ident!("{}", ty.name));
        reexports.push(syn::parse_quote!(
            pub use ::psi_common::{#(#names),*};
        ));
    }
    reexport_in_types(&mut file, &label, reexports)?;
    nulls::read_null_as_default(&mut file).map_err(|e| format!("{label}: {e}"))?;
    api_version::drop_api_version_header(&mut file).map_err(|e| format!("{label}: {e}"))?;
    let facts = operations
        .iter()
        .map(|(method, id)| {
            let facts = rebuild::Facts {
                id: id.clone(),
                idempotent: idempotent.contains(id),
                request_media_type: media_types
                    .iter()
                    .find(|(operation, _)| operation == id)
                    .map(|(_, media_type)| media_type.clone()),
                optional_body: optional_bodies.contains(id),
                comma_separated_query: comma_separated
                    .iter()
                    .filter(|(operation, _)| operation == id)
                    .map(|(_, parameter)| parameter.clone())
                    .collect(),
                refused_when_false: refusal_members
                    .iter()
                    .find(|(operation, _)| operation == id)
                    .map(|(_, member)| member.clone()),
            };
            (method.clone(), facts)
        })
        .collect();
    rebuild::build_for_each_send(&mut file, &facts).map_err(|e| format!("{label}: {e}"))?;
    received::lenient_on_arrival(&mut file).map_err(|e| format!("{label}: {e}"))?;
    extra_members::carry_extra_members(&mut file, &request_types)
        .map_err(|e| format!("{label}: {e}"))?;
    aliases::add_aliases(&mut file, &member_aliases).map_err(|e| format!("{label}: {e}"))?;
    patterns::compiled_at_generation(&mut file).map_err(|e| format!("{label}: {e}"))?;
    json_schema::derive_behind_feature(&mut file).map_err(|e| format!("{label}: {e}"))?;
    http_client::from_runtime_settings(&mut file).map_err(|e| format!("{label}: {e}"))?;
    builders::inline_type_builders(&mut file).map_err(|e| format!("{label}: {e}"))?;
    client_feature::behind_feature(&mut file).map_err(|e| format!("{label}: {e}"))?;
    let mut code = HEADER.replace("{doc}", &label);
    code.push_str(&prettyplease::unparse(&file));
    if !open.is_empty() {
        code.push_str(&render(&open));
    }
    code.push_str(
        "\n/// Each generated method name with the document's operationId, for traces\n\
         /// and the runtime's per-operation rules. Read from the generated builders.\n\
         #[doc(hidden)]\n\
         pub const OPERATION_IDS: &[(&str, &str)] = &[\n",
    );
    for (method, id) in &operations {
        code.push_str(&format!("    ({method:?}, {id:?}),\n"));
    }
    code.push_str("];\n");
    Ok(code)
}

/// The named item type of an array schema (`items: {$ref: .../X}` gives `X`).
fn array_item_type(schema: &openapiv3::Schema) -> Option<String> {
    match &schema.schema_kind {
        openapiv3::SchemaKind::Type(openapiv3::Type::Array(array)) => {
            array.items.as_ref().and_then(|items| match items {
                openapiv3::ReferenceOr::Reference { reference } => reference
                    .strip_prefix("#/components/schemas/")
                    .map(str::to_owned),
                openapiv3::ReferenceOr::Item(_) => None,
            })
        }
        _ => None,
    }
}

/// operationIds of the operations with an `Idempotency-Key` header parameter.
fn idempotent_operations(document: &serde_json::Value) -> Vec<String> {
    crate::lint::operation_pointers(document)
        .into_iter()
        .filter(|(_, operation)| {
            operation
                .get("parameters")
                .and_then(serde_json::Value::as_array)
                .is_some_and(|parameters| {
                    parameters.iter().any(|p| {
                        p.get("in").and_then(serde_json::Value::as_str) == Some("header")
                            && p.get("name")
                                .and_then(serde_json::Value::as_str)
                                .is_some_and(|n| n.eq_ignore_ascii_case("Idempotency-Key"))
                    })
                })
        })
        .filter_map(|(_, operation)| operation.get("operationId")?.as_str().map(str::to_owned))
        .collect()
}

/// Makes `types::X` name the open enums and the shared `psi-common` types
/// too, so every type of the API is found in one module.
fn reexport_in_types(
    file: &mut syn::File,
    label: &str,
    reexports: Vec<syn::Item>,
) -> Result<(), String> {
    let items = module_items(&mut file.items, "types")
        .ok_or_else(|| format!("{label}: generated code has no `types` module with a body"))?;
    items.splice(0..0, reexports);
    Ok(())
}

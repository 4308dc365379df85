//! The APIs of the workspace, read from the documents themselves: every
//! `openapi/*.yaml` with an `x-psi` block at its root is an API (one
//! generated crate each); `common.yaml` holds shared schemas only, and
//! `sandbox-control.yaml` ([`CONTROL_NAME`]) is the sandbox's own
//! test-control API and `sandbox-proxy.yaml` ([`PROXY_NAME`]) the own calls
//! of its drift-watch proxy, linted and published but no APIs of the
//! interface.
//!
//! The block (all keys required unless marked optional; any other key is an
//! error, see [`XPSI_KEYS`]):
//!
//! ```yaml
//! x-psi:
//!   crate: psi-pay-later           # always psi-<document stem>
//!   description: Client of ...     # the crate's Cargo description, one line
//!   feature: pay-later             # psi's Cargo feature; null = always compiled in
//!   address: api_url               # base_url | api_url | platform_url | auth_url | setting
//!   base_path: ''                  # appended to the address for the generated client
//!   audience: '{api_url}/paylater' # the specification's table; `setting`; `none` (no token)
//!   facade_dependencies: [iban_validate]  # optional: psi's optional deps the feature enables
//!   redocly_rules: {operation-4xx-response: warn}  # optional: per-document Redocly rules
//! ```
//!
//! Rust names are derived from the stem, never written: `pay-later` gives the
//! crate `psi_pay_later`, the `psi::Api::PayLater` variant, the
//! `Client::pay_later()` accessor and the `psi::pay_later` re-export. An
//! `address: setting` API reads `Environment::<stem_snake>_url` and
//! `<stem_snake>_audience` (`shop_config_url`, `shop_config_audience`).

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The keys an `x-psi` block may hold, with whether each is required.
pub const XPSI_KEYS: &[(&str, bool)] = &[
    ("crate", true),
    ("description", true),
    ("feature", true),
    ("address", true),
    ("base_path", true),
    ("audience", true),
    ("facade_dependencies", false),
    ("redocly_rules", false),
];

/// The addresses an API can live under: the environment's placeholders, or
/// `setting` (an address of its own that the caller must give).
pub const ADDRESSES: &[&str] = &["base_url", "api_url", "platform_url", "auth_url", "setting"];

/// Where an API's token audience comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Audience {
    /// The specification's table gives it, with its placeholder
    /// (`{api_url}/paylater`, `{base_url}`, `{platform_url}`).
    Table(String),
    /// The specification gives none: a setting the caller must give.
    Setting,
    /// Called without a token (the token server itself).
    None,
}

/// One API: its document under `openapi/`, its crate under `crates/`, and
/// the facts of its `x-psi` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Api {
    /// Document stem, `openapi/<name>.yaml`; the crate is `crates/psi-<name>`.
    pub name: String,
    /// One-line crate description.
    pub description: String,
    /// The `info.title` of the document, for doc comments.
    pub title: String,
    /// psi's Cargo feature, `None` when the crate is always compiled in.
    pub feature: Option<String>,
    /// One of [`ADDRESSES`].
    pub address: String,
    /// Path appended to the address for the generated client (`/api`).
    pub base_path: String,
    pub audience: Audience,
    /// psi's optional dependencies that the feature also enables.
    pub facade_dependencies: Vec<String>,
    /// Redocly rules for this document only (rule name to level).
    pub redocly_rules: Vec<(String, String)>,
}

impl Api {
    /// Reads the `x-psi` block of the document `openapi/<name>.yaml`;
    /// `Ok(None)` when it has none. An error names the document, the key
    /// and the rule.
    pub fn from_document(name: &str, document: &Value) -> Result<Option<Api>, String> {
        let Some(block) = document.get("x-psi") else {
            return Ok(None);
        };
        let label = format!("openapi/{name}.yaml#/x-psi");
        let block = block
            .as_object()
            .ok_or_else(|| format!("{label}: must be a mapping"))?;
        for key in block.keys() {
            if !XPSI_KEYS.iter().any(|(known, _)| known == key) {
                return Err(format!(
                    "{label}/{key}: unknown key (known: {})",
                    key_list()
                ));
            }
        }
        for (key, required) in XPSI_KEYS {
            if *required && !block.contains_key(*key) {
                return Err(format!(
                    "{label}/{key}: missing (every x-psi block states it)"
                ));
            }
        }
        let text = |key: &str| -> Result<String, String> {
            block[key]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("{label}/{key}: must be a string"))
        };
        let krate = text("crate")?;
        if krate != format!("psi-{name}") {
            return Err(format!(
                "{label}/crate: must be psi-{name} (the crate is named after the document)"
            ));
        }
        let feature = match &block["feature"] {
            Value::Null => None,
            Value::String(feature) if is_kebab(feature) => Some(feature.clone()),
            _ => {
                return Err(format!(
                    "{label}/feature: must be a kebab-case feature name, or null for always on"
                ))
            }
        };
        let address = text("address")?;
        if !ADDRESSES.contains(&address.as_str()) {
            return Err(format!(
                "{label}/address: must be one of {}",
                ADDRESSES.join(", ")
            ));
        }
        let base_path = text("base_path")?;
        if !(base_path.is_empty() || base_path.starts_with('/') && !base_path.ends_with('/')) {
            return Err(format!(
                "{label}/base_path: must be empty or start with `/` and not end with one"
            ));
        }
        let audience = match text("audience")?.as_str() {
            "setting" => Audience::Setting,
            "none" => Audience::None,
            table => Audience::Table(table.to_owned()),
        };
        let facade_dependencies = match block.get("facade_dependencies") {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| {
                    item.as_str().map(str::to_owned).ok_or_else(|| {
                        format!("{label}/facade_dependencies: must be a list of crate names")
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(format!(
                    "{label}/facade_dependencies: must be a list of crate names"
                ))
            }
        };
        let redocly_rules = match block.get("redocly_rules") {
            None => Vec::new(),
            Some(Value::Object(rules)) => rules
                .iter()
                .map(|(rule, level)| {
                    level
                        .as_str()
                        .map(|level| (rule.clone(), level.to_owned()))
                        .ok_or_else(|| format!("{label}/redocly_rules/{rule}: must be a level"))
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(format!(
                    "{label}/redocly_rules: must map rule names to levels"
                ))
            }
        };
        if feature.is_some() && audience == Audience::None {
            return Err(format!(
                "{label}/feature: an API without a token (audience none) is always on: use null"
            ));
        }
        let title = document
            .pointer("/info/title")
            .and_then(Value::as_str)
            .unwrap_or(name)
            .to_owned();
        let description = text("description")?;
        if description.contains(['"', '\\', '\n']) || description.is_empty() {
            return Err(format!(
                "{label}/description: must be one non-empty line without `\"` or `\\` \
                 (it is written into Cargo.toml)"
            ));
        }
        Ok(Some(Api {
            name: name.to_owned(),
            description,
            title,
            feature,
            address,
            base_path,
            audience,
            facade_dependencies,
            redocly_rules,
        }))
    }

    pub fn document(&self, root: &Path) -> PathBuf {
        root.join("openapi").join(format!("{}.yaml", self.name))
    }

    pub fn crate_dir(&self, root: &Path) -> PathBuf {
        root.join("crates").join(self.crate_name())
    }

    pub fn generated_file(&self, root: &Path) -> PathBuf {
        self.crate_dir(root).join("src").join("generated.rs")
    }

    /// Path of the document relative to the workspace root, for messages.
    pub fn document_label(&self) -> String {
        format!("openapi/{}.yaml", self.name)
    }

    /// `psi-pay-later`.
    pub fn crate_name(&self) -> String {
        format!("psi-{}", self.name)
    }

    /// `psi_pay_later`: the crate as Rust code names it.
    pub fn crate_ident(&self) -> String {
        format!("psi_{}", self.snake())
    }

    /// `pay_later`: the accessor, the re-export and setting names.
    pub fn snake(&self) -> String {
        self.name.replace('-', "_")
    }

    /// `PayLater`: the `psi::Api` variant.
    pub fn variant(&self) -> String {
        self.name
            .split('-')
            .map(|word| {
                let mut chars = word.chars();
                chars
                    .next()
                    .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
                    .unwrap_or_default()
            })
            .collect()
    }

    /// Whether `psi::Api` has a variant for it: every API a token is fetched for.
    pub fn is_target(&self) -> bool {
        self.audience != Audience::None
    }
}

fn key_list() -> String {
    XPSI_KEYS
        .iter()
        .map(|(key, _)| *key)
        .collect::<Vec<_>>()
        .join(", ")
}

fn is_kebab(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Every API of the workspace at `root`, sorted by document name: the
/// documents under `openapi/` with an `x-psi` block.
pub fn all(root: &Path) -> Result<Vec<Api>, String> {
    let dir = root.join("openapi");
    let mut stems: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            (path.extension()? == "yaml").then(|| path.file_stem()?.to_str().map(str::to_owned))?
        })
        .collect();
    stems.sort();
    let mut apis = Vec::new();
    for stem in stems
        .into_iter()
        .filter(|stem| stem != CONTROL_NAME && stem != PROXY_NAME)
    {
        let document = crate::bundle::read_yaml(&dir.join(format!("{stem}.yaml")))?;
        if let Some(api) = Api::from_document(&stem, &document)? {
            apis.push(api);
        } else if has_operations(&document) {
            return Err(format!(
                "openapi/{stem}.yaml: has operations but no x-psi block at its root \
                 (docs/document-rules.md, \"The x-psi block\")"
            ));
        }
    }
    Ok(apis)
}

/// Whether a document declares any path (an API, not shared schemas).
fn has_operations(document: &Value) -> bool {
    document
        .get("paths")
        .and_then(Value::as_object)
        .is_some_and(|paths| !paths.is_empty())
}

/// The workspace root: the parent of this crate's directory.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// The sandbox's test-control API (`/__sandbox`): `openapi/sandbox-control.yaml`.
/// The sandbox is its only implementation and no client crate is generated
/// from it (the sandbox's hand-written `Control` is its Rust client), so it
/// carries no `x-psi` block and [`all`] leaves it out; `cargo xtask lint`
/// checks it ([`crate::lint::Kind::SandboxControl`]) and `cargo xtask
/// schemas` publishes it under `schemas/sandbox-control/` beside the APIs.
pub const CONTROL_NAME: &str = "sandbox-control";

/// `openapi/sandbox-control.yaml` ([`CONTROL_NAME`]).
pub fn control_document(root: &Path) -> PathBuf {
    root.join("openapi").join(format!("{CONTROL_NAME}.yaml"))
}

/// The own calls of `psi-sandbox proxy` (`/__proxy`, drift watch):
/// `openapi/sandbox-proxy.yaml`. Like [`CONTROL_NAME`] it has no `x-psi`
/// block and no generated crate; `cargo xtask lint` checks it
/// ([`crate::lint::Kind::SandboxProxy`]) and `cargo xtask schemas`
/// publishes it under `schemas/sandbox-proxy/`.
pub const PROXY_NAME: &str = "sandbox-proxy";

/// `openapi/sandbox-proxy.yaml` ([`PROXY_NAME`]).
pub fn proxy_document(root: &Path) -> PathBuf {
    root.join("openapi").join(format!("{PROXY_NAME}.yaml"))
}

/// Every document published under `schemas/`: each API (by name), then the
/// sandbox's test-control API and its proxy's calls, with the path of its
/// source document.
pub fn published(root: &Path) -> Result<Vec<(String, PathBuf)>, String> {
    let mut documents: Vec<(String, PathBuf)> = all(root)?
        .iter()
        .map(|api| (api.name.clone(), api.document(root)))
        .collect();
    documents.push((CONTROL_NAME.to_owned(), control_document(root)));
    documents.push((PROXY_NAME.to_owned(), proxy_document(root)));
    Ok(documents)
}

/// The shared schemas: `openapi/common.yaml`, generated into `crates/psi-common`.
pub const COMMON_NAME: &str = "common";

/// The `psi-common` crate's generated file.
pub fn common_generated_file(root: &Path) -> PathBuf {
    root.join("crates/psi-common/src/generated.rs")
}

/// The APIs of this workspace (read once), for the test suite.
pub fn workspace_apis() -> &'static [Api] {
    static APIS: std::sync::OnceLock<Vec<Api>> = std::sync::OnceLock::new();
    APIS.get_or_init(|| all(&workspace_root()).expect("the x-psi blocks are valid"))
}

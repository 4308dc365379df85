//! The APIs of the workspace: one OpenAPI document and one generated crate each.

use std::path::{Path, PathBuf};

/// One API: its document under `openapi/` and its crate under `crates/`.
pub struct Api {
    /// Document stem, `openapi/<name>.yaml`; the crate is `crates/psi-<name>`.
    pub name: &'static str,
}

pub const APIS: &[Api] = &[
    Api { name: "token" },
    Api {
        name: "payment-page",
    },
    Api { name: "pay-later" },
    Api {
        name: "bank-accounts",
    },
    Api {
        name: "order-status",
    },
    Api {
        name: "transaction-status",
    },
    Api {
        name: "shop-config",
    },
    Api { name: "storefront" },
];

impl Api {
    pub fn document(&self, root: &Path) -> PathBuf {
        root.join("openapi").join(format!("{}.yaml", self.name))
    }

    pub fn generated_file(&self, root: &Path) -> PathBuf {
        root.join("crates")
            .join(format!("psi-{}", self.name))
            .join("src")
            .join("generated.rs")
    }

    /// Path of the document relative to the workspace root, for messages.
    pub fn document_label(&self) -> String {
        format!("openapi/{}.yaml", self.name)
    }
}

/// The workspace root: the parent of this crate's directory.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// The shared schemas: `openapi/common.yaml`, generated into `crates/psi-common`.
pub const COMMON: Api = Api { name: "common" };

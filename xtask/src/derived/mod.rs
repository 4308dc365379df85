//! Files derived from the `x-psi` blocks (see [`crate::apis`]): everything
//! that would otherwise repeat the documents' facts by hand. `cargo xtask generate`
//! writes them, `--check` compares them, like the generated clients.

mod crates;
mod documents;
mod facade;
mod manifests;
mod redocly;
mod text;

use crate::apis::Api;
use std::path::{Path, PathBuf};

/// Every derived file with its expected content.
pub fn outputs(root: &Path, apis: &[Api]) -> Result<Vec<(PathBuf, String)>, String> {
    let mut files = Vec::new();
    for api in apis {
        files.extend(crates::files(root, api));
    }
    files.extend(manifests::files(root, apis)?);
    files.extend(facade::files(root, apis)?);
    files.extend(documents::files(root, apis)?);
    files.push(redocly::file(root, apis)?);
    Ok(files)
}

/// Files written once when missing and never compared afterwards (a new
/// crate's README, which people then edit).
pub fn seeds(root: &Path, apis: &[Api]) -> Vec<(PathBuf, String)> {
    apis.iter().map(|api| crates::readme(root, api)).collect()
}

//! Each API crate's `Cargo.toml` and `src/lib.rs` (and a README for a new
//! crate), from the templates beside the generator.

use crate::apis::Api;
use std::path::{Path, PathBuf};

/// The template every API crate's manifest is made from. Edit it (not the
/// crates' manifests) to change features or dependencies of all of them.
const CARGO_TOML: &str = include_str!("../generate/templates/crate_Cargo.toml");
const LIB_RS: &str = include_str!("../generate/templates/crate_lib.rs");
const README: &str = include_str!("../generate/templates/crate_README.md");

fn fill(template: &str, api: &Api) -> String {
    template
        .replace("{crate}", &api.crate_name())
        .replace("{name}", &api.name)
        .replace("{snake}", &api.snake())
        .replace("{title}", &api.title)
        .replace("{description}", &api.description)
}

pub fn files(root: &Path, api: &Api) -> Vec<(PathBuf, String)> {
    let dir = api.crate_dir(root);
    vec![
        (dir.join("Cargo.toml"), fill(CARGO_TOML, api)),
        (dir.join("src").join("lib.rs"), fill(LIB_RS, api)),
    ]
}

pub fn readme(root: &Path, api: &Api) -> (PathBuf, String) {
    (api.crate_dir(root).join("README.md"), fill(README, api))
}

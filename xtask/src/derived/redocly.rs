//! `redocly.yaml`'s list of APIs (the section between the markers), with
//! each document's own rule levels from `x-psi.redocly_rules` (their reasons
//! are written beside them, in the document).

use super::text::replace_section;
use crate::apis::Api;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub fn file(root: &Path, apis: &[Api]) -> Result<(PathBuf, String), String> {
    let path = root.join("redocly.yaml");
    let mut section = String::new();
    for api in apis {
        let _ = writeln!(
            section,
            "  {}:\n    root: openapi/{}.yaml",
            api.name, api.name
        );
        if !api.redocly_rules.is_empty() {
            let _ = writeln!(
                section,
                "    # reasons: the x-psi block of openapi/{}.yaml\n    rules:",
                api.name
            );
            for (rule, level) in &api.redocly_rules {
                let _ = writeln!(section, "      {rule}: {level}");
            }
        }
    }
    Ok((path.clone(), replace_section(&path, &section)?))
}

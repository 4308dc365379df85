//! typify checks a `pattern` with `regress::Regex::new(..)` and
//! `PATTERN.find(value)`, written into every type that has one. regress's
//! matcher is generic, so each API crate with a pattern compiled its own
//! copy of it (about 30,000 lines of LLVM IR per crate in a release build).
//! The generated code calls `psi_runtime::Pattern` instead: the same regress
//! engine, the same ECMAScript syntax and the same answers, compiled once in
//! psi-runtime.

use quote::ToTokens;

const REGRESS: &str = ":: regress :: Regex";
const RUNTIME: &str = ":: psi_runtime :: Pattern";

/// Points every use of `regress::Regex` in `file` at `psi_runtime::Pattern`;
/// an error when a regress item other than `Regex` shows up (typify's output
/// changed and the runtime's wrapper may not cover it).
pub fn through_runtime(file: &mut syn::File) -> Result<(), String> {
    let text = file.to_token_stream().to_string();
    if !text.contains(":: regress ::") {
        return Ok(());
    }
    let rewritten = text.replace(REGRESS, RUNTIME);
    if rewritten.contains(":: regress ::") {
        return Err("the generated code uses regress beyond `regress::Regex`: \
             check xtask/src/generate/patterns.rs and psi_runtime::Pattern"
            .into());
    }
    *file =
        syn::parse_str(&rewritten).map_err(|e| format!("pattern rewrite does not parse: {e}"))?;
    Ok(())
}

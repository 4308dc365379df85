//! typify derives `schemars::JsonSchema` on every type. Few applications
//! ask a payment client for JSON Schema, and the derive costs every user's
//! clean build the `schemars_derive` proc macro and a second build of `syn`
//! with more features. So the derive is kept
//! behind each crate's `schemars` feature:
//! `#[cfg_attr(feature = "schemars", derive(::schemars::JsonSchema))]`.

use syn::punctuated::Punctuated;

/// Rewrites the derives of every struct and enum of `file`, in its modules
/// too.
pub fn derive_behind_feature(file: &mut syn::File) -> Result<(), String> {
    rewrite_items(&mut file.items)
}

fn rewrite_items(items: &mut [syn::Item]) -> Result<(), String> {
    for item in items {
        match item {
            syn::Item::Struct(item) => rewrite_attributes(&mut item.attrs)?,
            syn::Item::Enum(item) => rewrite_attributes(&mut item.attrs)?,
            syn::Item::Mod(module) => {
                if let Some((_, items)) = &mut module.content {
                    rewrite_items(items)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn rewrite_attributes(attributes: &mut Vec<syn::Attribute>) -> Result<(), String> {
    let mut moved = false;
    for attribute in attributes.iter_mut() {
        if !attribute.path().is_ident("derive") {
            continue;
        }
        let derives = attribute
            .parse_args_with(Punctuated::<syn::Path, syn::Token![,]>::parse_terminated)
            .map_err(|e| format!("a derive attribute does not parse: {e}"))?;
        let kept: Punctuated<syn::Path, syn::Token![,]> = derives
            .iter()
            .filter(|path| !is_json_schema(path))
            .cloned()
            .collect();
        if kept.len() != derives.len() {
            moved = true;
            *attribute = syn::parse_quote!(#[derive(#kept)]);
        }
    }
    if moved {
        attributes.push(syn::parse_quote!(
            #[cfg_attr(feature = "schemars", derive(::schemars::JsonSchema))]
        ));
    }
    Ok(())
}

fn is_json_schema(path: &syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|segment| segment.ident == "JsonSchema")
}

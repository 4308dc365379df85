//! Other names a member of an answer arrives under. Where the provider's
//! publications spell one member two ways (the pay later offers:
//! `pay_Later_offers` in one, `pay_later_offers` in another), the document
//! keeps the specification's name and lists the others under the
//! property's `x-psi-aliases`; this pass adds each as a serde `alias` of
//! the generated field, so an answer with either name is read and none is
//! silently empty. What psi writes keeps the document's name.

use serde_json::Value;

/// One property's other names: (schema, property, aliases).
pub type Alias = (String, String, Vec<String>);

/// Every `x-psi-aliases` of a component schema's property in `document`.
pub fn document_aliases(document: &Value) -> Result<Vec<Alias>, String> {
    let mut found = Vec::new();
    let Some(schemas) = document
        .pointer("/components/schemas")
        .and_then(Value::as_object)
    else {
        return Ok(found);
    };
    for (schema, body) in schemas {
        let Some(properties) = body.get("properties").and_then(Value::as_object) else {
            continue;
        };
        for (property, definition) in properties {
            let Some(aliases) = definition.get("x-psi-aliases") else {
                continue;
            };
            let names: Option<Vec<String>> = aliases
                .as_array()
                .map(|names| {
                    names
                        .iter()
                        .map(|n| n.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or(None);
            match names {
                Some(names) if !names.is_empty() => {
                    found.push((schema.clone(), property.clone(), names))
                }
                _ => {
                    return Err(format!(
                        "#/components/schemas/{schema}/properties/{property}/x-psi-aliases \
                         must be a non-empty list of names"
                    ))
                }
            }
        }
    }
    Ok(found)
}

/// Adds `alias = "..."` to the serde attribute of each aliased field of
/// `file`'s `types` module; an error naming the field when it is not found.
pub fn add_aliases(file: &mut syn::File, aliases: &[Alias]) -> Result<(), String> {
    if aliases.is_empty() {
        return Ok(());
    }
    let types = super::items::module_items(&mut file.items, "types")
        .ok_or("generated code has no `types` module")?;
    for (schema, property, names) in aliases {
        let field = types
            .iter_mut()
            .find_map(|item| match item {
                syn::Item::Struct(item) if item.ident == schema => match &mut item.fields {
                    syn::Fields::Named(fields) => fields
                        .named
                        .iter_mut()
                        .find(|field| {
                            super::items::json_name(field).as_deref() == Some(property.as_str())
                        }),
                    _ => None,
                },
                _ => None,
            })
            .ok_or_else(|| {
                format!("x-psi-aliases: no generated field {schema}.{property} (xtask/src/generate/aliases.rs)")
            })?;
        let attribute: syn::Attribute = syn::parse_quote!(#[serde(#(alias = #names),*)]);
        field.attrs.push(attribute);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    #[test]
    fn an_alias_is_added_to_the_renamed_field() {
        let document = serde_json::json!({"components": {"schemas": {"Offers": {"properties": {
            "pay_Later_offers": {"type": "array", "x-psi-aliases": ["pay_later_offers"]}}}}}});
        let aliases = document_aliases(&document).unwrap();
        let mut file: syn::File = syn::parse_quote! {
            pub mod types {
                pub struct Offers {
                    #[serde(rename = "pay_Later_offers", default)]
                    pub pay_later_offers: Vec<String>,
                }
            }
        };
        add_aliases(&mut file, &aliases).unwrap();
        let code = file.to_token_stream().to_string();
        assert!(
            code.contains("# [serde (alias = \"pay_later_offers\")]"),
            "{code}"
        );
    }

    #[test]
    fn a_bad_list_or_a_missing_field_is_an_error() {
        let document = serde_json::json!({"components": {"schemas": {"Offers": {"properties": {
            "offers": {"x-psi-aliases": "one"}}}}}});
        assert!(document_aliases(&document)
            .unwrap_err()
            .contains("non-empty list"));
        let mut file: syn::File =
            syn::parse_quote! { pub mod types { pub struct Offers { pub other: u8 } } };
        let aliases = vec![(
            "Offers".to_owned(),
            "offers".to_owned(),
            vec!["o".to_owned()],
        )];
        assert!(add_aliases(&mut file, &aliases)
            .unwrap_err()
            .contains("Offers.offers"));
    }
}

//! Finding a module's items in generated code, for the passes that rewrite
//! one module (`types`, `types::builder`).

/// The items of the module `name` among `items`, when it is there with a body.
pub fn module_items<'a>(items: &'a mut [syn::Item], name: &str) -> Option<&'a mut Vec<syn::Item>> {
    items.iter_mut().find_map(|item| match item {
        syn::Item::Mod(module) if module.ident == name => {
            module.content.as_mut().map(|(_, items)| items)
        }
        _ => None,
    })
}

/// The member name a generated field is written under in JSON: its
/// `#[serde(rename = "...")]`, else its identifier (without `r#`).
pub fn json_name(field: &syn::Field) -> Option<String> {
    for attribute in &field.attrs {
        if !attribute.path().is_ident("serde") {
            continue;
        }
        let mut renamed = None;
        let _ = attribute.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                let value: syn::LitStr = meta.value()?.parse()?;
                renamed = Some(value.value());
            } else if meta.input.peek(syn::Token![=]) {
                let _: syn::Expr = meta.value()?.parse()?;
            }
            Ok(())
        });
        if renamed.is_some() {
            return renamed;
        }
    }
    let ident = field.ident.as_ref()?.to_string();
    Some(ident.strip_prefix("r#").unwrap_or(&ident).to_owned())
}

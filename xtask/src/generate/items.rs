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

//! An API crate compiles its client operations only with its `client`
//! feature (on by default): progenitor's `Client` with its `ClientInfo` and
//! `ClientHooks` impls and operation methods, the `builder` module (every
//! `send()`), `prelude`, and the imports of progenitor-client and of
//! psi-runtime's `Error`. The `types` module needs none of these and always
//! compiles: the sandbox builds the crates without `client` and parses
//! requests with their types, building neither progenitor-client nor
//! reqwest's request building for them.

use quote::ToTokens;

/// Puts `#[cfg(feature = "client")]` on every item of `file` but the `types`
/// module. An error when there is no `types` module, or when it names
/// progenitor-client or reqwest (it would not build without `client`).
pub fn behind_feature(file: &mut syn::File) -> Result<(), String> {
    let mut types = 0;
    for item in &mut file.items {
        if let syn::Item::Mod(module) = item {
            if module.ident == "types" {
                types += 1;
                let code = module.to_token_stream().to_string();
                if let Some(name) = ["progenitor_client", "reqwest"]
                    .into_iter()
                    .find(|name| code.contains(name))
                {
                    return Err(format!(
                        "the `types` module names `{name}`, which only the `client` feature builds"
                    ));
                }
                continue;
            }
        }
        attributes(item)?.insert(0, syn::parse_quote!(#[cfg(feature = "client")]));
    }
    if types != 1 {
        return Err("generated code has no single `types` module to keep without `client`".into());
    }
    Ok(())
}

/// The attributes of an item the generator writes at the top of its file.
fn attributes(item: &mut syn::Item) -> Result<&mut Vec<syn::Attribute>, String> {
    Ok(match item {
        syn::Item::Use(item) => &mut item.attrs,
        syn::Item::Mod(item) => &mut item.attrs,
        syn::Item::Struct(item) => &mut item.attrs,
        syn::Item::Enum(item) => &mut item.attrs,
        syn::Item::Impl(item) => &mut item.attrs,
        syn::Item::Fn(item) => &mut item.attrs,
        syn::Item::Const(item) => &mut item.attrs,
        syn::Item::Static(item) => &mut item.attrs,
        syn::Item::Trait(item) => &mut item.attrs,
        syn::Item::Type(item) => &mut item.attrs,
        syn::Item::Macro(item) => &mut item.attrs,
        other => {
            return Err(format!(
                "an item the `client` gate does not know: {}",
                other.to_token_stream()
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    #[test]
    fn everything_but_the_types_is_behind_the_feature() {
        let mut file: syn::File = syn::parse_quote! {
            #[allow(unused_imports)]
            pub use progenitor_client::{ByteStream, ClientInfo, ResponseValue};
            pub use ::psi_runtime::Error;
            pub mod types {
                pub struct Order { pub id: String }
            }
            #[derive(Clone, Debug)]
            pub struct Client { pub(crate) client: reqwest::Client }
            impl Client { pub fn new() {} }
            pub mod builder { pub struct GetOrder; }
            pub mod prelude { pub use self::super::Client; }
        };
        super::behind_feature(&mut file).unwrap();
        for item in &file.items {
            let gated = item
                .to_token_stream()
                .to_string()
                .starts_with("# [cfg (feature = \"client\")]");
            let is_types = matches!(item, syn::Item::Mod(module) if module.ident == "types");
            assert_eq!(gated, !is_types, "{}", item.to_token_stream());
        }
    }

    #[test]
    fn types_that_name_the_client_side_or_no_types_are_an_error() {
        let mut file: syn::File = syn::parse_quote! {
            pub mod types { pub struct Answer(pub reqwest::StatusCode); }
        };
        let error = super::behind_feature(&mut file).unwrap_err();
        assert!(error.contains("reqwest"), "{error}");
        let mut file: syn::File = syn::parse_quote! { pub struct Client; };
        assert!(super::behind_feature(&mut file).is_err());
    }
}

//! typify writes a builder per type (`types::builder::BasketItem`, with its
//! `Default`, setters and the `TryFrom` that checks and builds the type).
//! Those functions are not generic, so without a hint every generated
//! crate compiles them to machine code in an application's build, whether
//! or not the application ever builds a type through them, and they would
//! be most of `psi-payment-page`'s code generation. Marked `#[inline]`,
//! each is compiled in the crate that calls it, and only when it does; so
//! is each type's `builder()`, which would otherwise compile its builder's
//! `Default` in. What they do is unchanged; only callers compile them, which
//! shortens every application's build (see BENCHMARKS.md).

/// Marks every function of an `impl` in the `builder` module of the
/// `types` module of `file` (progenitor's output, before psi-common keeps
/// only its `types`) `#[inline]`, and every type's `builder()`; an error
/// when there is no such module, which means typify changed where it
/// writes its builders and this rule needs a look.
pub fn inline_type_builders(file: &mut syn::File) -> Result<(), String> {
    let types = super::items::module_items(&mut file.items, "types")
        .ok_or("generated code has no `types` module")?;
    // Each type's `builder()`, beside the type.
    for item in types.iter_mut() {
        if let syn::Item::Impl(block) = item {
            inline_functions(block, |function| function.sig.ident == "builder");
        }
    }
    let builders = super::items::module_items(types, "builder").ok_or(
        "typify's `types::builder` module was not found: \
         check xtask/src/generate/builders.rs against the generated code",
    )?;
    for item in builders {
        if let syn::Item::Impl(block) = item {
            inline_functions(block, |_| true);
        }
    }
    Ok(())
}

/// Adds `#[inline]` to the functions of `block` that `chosen` picks and
/// that have no inline attribute yet.
fn inline_functions(block: &mut syn::ItemImpl, chosen: impl Fn(&syn::ImplItemFn) -> bool) {
    for member in &mut block.items {
        if let syn::ImplItem::Fn(function) = member {
            let hinted = function
                .attrs
                .iter()
                .any(|attr| attr.path().is_ident("inline"));
            if !hinted && chosen(function) {
                function.attrs.push(syn::parse_quote!(#[inline]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    #[test]
    fn every_builder_function_is_inline_and_nothing_else() {
        let mut file: syn::File = syn::parse_quote! {
            pub mod types {
                pub struct Item { pub name: String }
                impl Item {
                    pub fn builder() -> builder::Item { Default::default() }
                    pub fn other(&self) -> bool { true }
                }
                pub mod builder {
                    pub struct Item { name: Result<String, String> }
                    impl Default for Item {
                        fn default() -> Self { Self { name: Err("no value".into()) } }
                    }
                    impl Item {
                        #[inline]
                        pub fn name(mut self, value: String) -> Self { self.name = Ok(value); self }
                    }
                    impl TryFrom<Item> for super::Item {
                        type Error = String;
                        fn try_from(value: Item) -> Result<Self, String> {
                            Ok(Self { name: value.name? })
                        }
                    }
                }
            }
        };
        super::inline_type_builders(&mut file).unwrap();
        let code = file.to_token_stream().to_string();
        assert_eq!(code.matches("# [inline]").count(), 4, "{code}");
        assert!(code.contains("# [inline] fn default"), "{code}");
        assert!(code.contains("# [inline] fn try_from"), "{code}");
        assert!(code.contains("# [inline] pub fn builder"), "{code}");
        // Outside the builder module, nothing else changes.
        assert!(code.contains("} pub fn other"), "{code}");
    }

    #[test]
    fn no_builder_module_is_an_error() {
        let mut file: syn::File = syn::parse_quote! {
            pub mod types { pub struct Item; }
        };
        assert!(super::inline_type_builders(&mut file).is_err());
    }
}

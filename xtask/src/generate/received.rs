//! Lenient on what arrives: typify's `Deserialize` of a constrained string
//! type (a `pattern`, a length) parses and checks the value; each becomes
//!
//! ```text
//! let value = ::std::string::String::deserialize(deserializer)?;
//! if ::psi_runtime::leniency::is_lenient() {
//!     return Ok(Self(value));
//! }
//! value.parse().map_err(...)              // typify's check, as it was
//! ```
//!
//! so that an answer the runtime decodes (inside `psi_runtime::leniency::lenient`)
//! keeps a value outside its stated format as received, while the sandbox,
//! which reads requests with the same types, still refuses it. The rules
//! of the documents are rules for what psi sends (`docs/document-rules.md`).

use quote::ToTokens;

/// typify's body, printed.
const TYPIFY: &str = ":: std :: string :: String :: deserialize (deserializer) ? . parse () . map_err (| e : self :: error :: ConversionError | { < D :: Error as :: serde :: de :: Error > :: custom (e . to_string ()) })";

/// Rewrites every hand-written `Deserialize` of `file`; an error when one
/// has another body than typify's (typify changed and this needs a look).
pub fn lenient_on_arrival(file: &mut syn::File) -> Result<(), String> {
    let mut visitor = Impls { error: None };
    syn::visit_mut::VisitMut::visit_file_mut(&mut visitor, file);
    match visitor.error {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

struct Impls {
    error: Option<String>,
}

impl syn::visit_mut::VisitMut for Impls {
    fn visit_item_impl_mut(&mut self, block: &mut syn::ItemImpl) {
        let is_deserialize = block
            .trait_
            .as_ref()
            .and_then(|(_, path, _)| path.segments.last())
            .is_some_and(|last| last.ident == "Deserialize");
        if !is_deserialize {
            return;
        }
        let name = block.self_ty.to_token_stream().to_string();
        for member in &mut block.items {
            let syn::ImplItem::Fn(function) = member else {
                continue;
            };
            if function.sig.ident != "deserialize" {
                continue;
            }
            let [syn::Stmt::Expr(body, None)] = function.block.stmts.as_slice() else {
                self.error = Some(format!("{name}: `deserialize` is not one expression"));
                return;
            };
            // typify's tokens carry a trailing comma in `custom(..,)`.
            if body.to_token_stream().to_string().replace(" ,)", ")") != TYPIFY {
                self.error = Some(format!(
                    "{name}: `deserialize` is not typify's `String::deserialize(..)?.parse()` \
                     but `{}`: check xtask/src/generate/received.rs",
                    body.to_token_stream()
                ));
                return;
            }
            let syn::Expr::MethodCall(map_err) = body else {
                unreachable!("typify's body is a method call");
            };
            let mut checked = map_err.clone();
            let syn::Expr::MethodCall(parse) = &mut *checked.receiver else {
                unreachable!("typify's body maps the error of `parse()`");
            };
            *parse.receiver = syn::parse_quote!(value);
            function.block = syn::parse_quote!({
                let value = ::std::string::String::deserialize(deserializer)?;
                if ::psi_runtime::leniency::is_lenient() {
                    return ::std::result::Result::Ok(Self(value));
                }
                #checked
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    #[test]
    fn a_constrained_type_keeps_what_arrives_when_lenient() {
        let mut file: syn::File = syn::parse_quote! {
            impl<'de> ::serde::Deserialize<'de> for CurrencyCode {
                fn deserialize<D>(deserializer: D) -> ::std::result::Result<Self, D::Error>
                where
                    D: ::serde::Deserializer<'de>,
                {
                    ::std::string::String::deserialize(deserializer)?
                        .parse()
                        .map_err(|e: self::error::ConversionError| {
                            <D::Error as ::serde::de::Error>::custom(e.to_string())
                        })
                }
            }
        };
        super::lenient_on_arrival(&mut file).unwrap();
        let code = file.to_token_stream().to_string();
        assert!(
            code.contains(
                "let value = :: std :: string :: String :: deserialize (deserializer) ? ; \
                 if :: psi_runtime :: leniency :: is_lenient () { return :: std :: result :: Result :: Ok (Self (value)) ; } \
                 value . parse () . map_err"
            ),
            "{code}"
        );
    }

    #[test]
    fn another_shape_fails_generation() {
        let mut file: syn::File = syn::parse_quote! {
            impl<'de> ::serde::Deserialize<'de> for Other {
                fn deserialize<D>(deserializer: D) -> Result<Self, D::Error> {
                    u8::deserialize(deserializer).map(Self)
                }
            }
        };
        let error = super::lenient_on_arrival(&mut file).unwrap_err();
        assert!(error.contains("Other"), "{error}");
    }
}

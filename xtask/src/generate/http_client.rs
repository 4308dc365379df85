//! progenitor's `Client::new` builds its HTTP client from
//! `reqwest::ClientBuilder::new()`; the generated crates build it from
//! `::psi_runtime::http_client_builder()` instead, the settings psi's own
//! client starts from (HTTP/1.1, without reqwest's retry layer, which
//! copies every request in case of an HTTP/2 refusal psi never meets).
//! progenitor's timeouts on top stay as they are.

use quote::ToTokens;

/// Rewrites every `reqwest::ClientBuilder::new()` of `file`; an error when
/// there is none, which means progenitor changed its `Client::new` and this
/// rule needs a look.
pub fn from_runtime_settings(file: &mut syn::File) -> Result<(), String> {
    let mut visitor = Builders { rewritten: 0 };
    syn::visit_mut::VisitMut::visit_file_mut(&mut visitor, file);
    if visitor.rewritten == 0 {
        return Err(
            "progenitor's `reqwest::ClientBuilder::new()` was not found: \
             check xtask/src/generate/http_client.rs against the generated code"
                .into(),
        );
    }
    Ok(())
}

struct Builders {
    rewritten: usize,
}

impl syn::visit_mut::VisitMut for Builders {
    fn visit_expr_mut(&mut self, node: &mut syn::Expr) {
        if let syn::Expr::Call(call) = node {
            let func = call.func.to_token_stream().to_string();
            if call.args.is_empty() && func == "reqwest :: ClientBuilder :: new" {
                *node = syn::parse_quote!(::psi_runtime::http_client_builder());
                self.rewritten += 1;
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, node);
    }
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    #[test]
    fn both_of_progenitors_builders_start_from_the_runtime() {
        let mut file: syn::File = syn::parse_quote! {
            impl Client {
                pub fn new(baseurl: &str) -> Self {
                    #[cfg(not(target_arch = "wasm32"))]
                    let client = {
                        let dur = ::std::time::Duration::from_secs(15u64);
                        reqwest::ClientBuilder::new().connect_timeout(dur).timeout(dur)
                    };
                    #[cfg(target_arch = "wasm32")]
                    let client = reqwest::ClientBuilder::new();
                    Self::new_with_client(baseurl, client.build().unwrap())
                }
            }
        };
        super::from_runtime_settings(&mut file).unwrap();
        let code = file.to_token_stream().to_string();
        assert!(!code.contains("ClientBuilder :: new"), "{code}");
        assert_eq!(
            code.matches(":: psi_runtime :: http_client_builder ()")
                .count(),
            2
        );
        assert!(code.contains("http_client_builder () . connect_timeout (dur) . timeout (dur)"));
    }

    #[test]
    fn a_file_without_a_builder_is_an_error() {
        let mut file: syn::File = syn::parse_quote! { fn other() {} };
        assert!(super::from_runtime_settings(&mut file).is_err());
    }
}

//! The facade's API table: `psi::Api` (variants, `ALL`, names, audiences,
//! base URLs, the settings an API misses), the client accessors and the
//! re-exports of the API crates.
//!
//! How an API is reached follows from its `x-psi.address` alone: under
//! `base_url`/`api_url` the accessor returns the client; under
//! `platform_url` (optional in the environment) it returns a `Result`; under
//! `setting` it returns a client that refuses every call until the settings
//! `<name>_url` and `<name>_audience` are given.

use super::text::rust_file;
use crate::apis::{Api, Audience};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::path::{Path, PathBuf};

pub fn files(root: &Path, apis: &[Api]) -> Result<Vec<(PathBuf, String)>, String> {
    let src = root.join("crates/psi/src");
    Ok(vec![
        (
            src.join("api/generated.rs"),
            rust_file(api_enum(apis)?, "psi::Api")?,
        ),
        (
            src.join("client/accessors.rs"),
            rust_file(accessors(apis), "psi accessors")?,
        ),
        (
            src.join("reexports.rs"),
            rust_file(reexports(apis), "psi re-exports")?,
        ),
    ])
}

/// The environment's address for a placeholder followed by `suffix`, passed
/// through `wrap`, as an `Option` (`None` when the setting is optional and
/// not set). Addresses are trimmed of their trailing slash.
fn address(
    placeholder: &str,
    api: &Api,
    suffix: &str,
    wrap: impl Fn(TokenStream) -> TokenStream,
) -> TokenStream {
    let with_suffix = |value: TokenStream| {
        if suffix.is_empty() {
            value
        } else {
            let format = format!("{{}}{suffix}");
            quote!(format!(#format, #value))
        }
    };
    match placeholder {
        "base_url" | "api_url" | "auth_url" => {
            let field = format_ident!("{placeholder}");
            let value = wrap(with_suffix(quote!(trimmed(&environment.#field))));
            quote!(Some(#value))
        }
        _ => {
            let field = if placeholder == "setting" {
                format_ident!("{}_url", api.snake())
            } else {
                format_ident!("{placeholder}")
            };
            let value = wrap(with_suffix(quote!(trimmed(url))));
            quote!(environment.#field.as_ref().map(|url| #value))
        }
    }
}

fn audience(api: &Api) -> Result<TokenStream, String> {
    Ok(match &api.audience {
        Audience::Table(text) => {
            let (placeholder, rest) = text
                .strip_prefix('{')
                .and_then(|t| t.split_once('}'))
                .ok_or_else(|| {
                    format!(
                        "{}: x-psi.audience must start with a {{placeholder}}",
                        api.name
                    )
                })?;
            if placeholder == "platform_url" {
                address(
                    placeholder,
                    api,
                    rest,
                    |value| quote!(Audience::Platform(#value)),
                )
            } else {
                address(
                    placeholder,
                    api,
                    rest,
                    |value| quote!(Audience::Service(#value)),
                )
            }
        }
        Audience::Setting => {
            let field = format_ident!("{}_audience", api.snake());
            quote!(environment.#field.as_ref().map(|audience| Audience::Service(audience.clone())))
        }
        Audience::None => quote!(None),
    })
}

fn missing_settings(api: &Api) -> TokenStream {
    match api.address.as_str() {
        "setting" => {
            let url = format!("{}_url", api.snake());
            let audience = format!("{}_audience", api.snake());
            let upper = api.snake().to_uppercase();
            let why = format!(
                "PSI_{upper}_URL and PSI_{upper}_AUDIENCE, or Environment::with_{}: the \
                 specification states neither its address nor its token audience, so psi \
                 does not guess them",
                api.snake()
            );
            quote!(vec![#url.to_owned(), #audience.to_owned()], Some(#why.to_owned()))
        }
        "base_url" | "api_url" | "auth_url" => quote!(Vec::new(), None),
        placeholder => quote!(vec![#placeholder.to_owned()], None),
    }
}

fn api_enum(apis: &[Api]) -> Result<TokenStream, String> {
    let targets: Vec<&Api> = apis.iter().filter(|api| api.is_target()).collect();
    let count = proc_macro2::Literal::usize_unsuffixed(targets.len());
    let variants: Vec<_> = targets
        .iter()
        .map(|api| format_ident!("{}", api.variant()))
        .collect();
    let docs = targets.iter().map(|api| {
        let audience = match &api.audience {
            Audience::Table(text) => format!("token for `{text}`"),
            _ => "token audience a setting".to_owned(),
        };
        let address = if api.address == "setting" {
            format!("{}_url", api.snake())
        } else {
            api.address.clone()
        };
        format!(
            " {} (`openapi/{}.yaml`): at `{{{address}}}{}`, {audience}.",
            api.title, api.name, api.base_path
        )
    });
    let names = targets.iter().map(|api| &api.name);
    let audiences = targets
        .iter()
        .map(|api| audience(api))
        .collect::<Result<Vec<_>, _>>()?;
    let base_urls = targets
        .iter()
        .map(|api| address(&api.address, api, &api.base_path, |value| value));
    let missing = targets.iter().map(|api| missing_settings(api));
    Ok(quote! {
        use super::trimmed;
        use psi_runtime::{Audience, ConfigError, Environment};

        /// One API of the interface: every document under `openapi/` whose
        /// calls take a token.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Api {
            #( #[doc = #docs] #variants, )*
        }

        // `.map(|url| trimmed(url))` is how every address reads, also where a
        // bare function would do.
        #[allow(clippy::redundant_closure)]
        impl Api {
            /// Every API, in the order above.
            pub const ALL: [Api; #count] = [#(Api::#variants),*];

            /// The name used in traces, as the crate is named (`pay-later`).
            pub fn name(self) -> &'static str {
                match self {
                    #(Api::#variants => #names,)*
                }
            }

            /// The token audience, from the specification's Authentication
            /// table (`{api_url}` plus the API's path, `{base_url}` itself for
            /// the hosted payment page, the platform for the storefront
            /// module), or the API's `_audience` setting where the table has
            /// no row (`None` without it). Override one with
            /// [`ClientBuilder::audience`](crate::ClientBuilder::audience).
            pub fn audience(self, environment: &Environment) -> Option<Audience> {
                match self {
                    #(Api::#variants => #audiences,)*
                }
            }

            /// The base URL the generated client puts in front of its paths (the
            /// document's server URL with the environment's addresses). `None` when
            /// the environment lacks the setting (`platform_url`, or an API's own
            /// `_url` setting where the specification states no address).
            pub fn base_url(self, environment: &Environment) -> Option<String> {
                match self {
                    #(Api::#variants => #base_urls,)*
                }
            }

            /// The settings this API needs beyond the provider's three
            /// addresses, named in the error.
            pub(crate) fn missing_settings(self) -> ConfigError {
                let (settings, why) = match self {
                    #(Api::#variants => (#missing),)*
                };
                ConfigError::NeededBy { api: self.name().to_owned(), settings, why }
            }
        }
    })
}

fn cfg(api: &Api) -> TokenStream {
    match &api.feature {
        Some(feature) => quote!(#[cfg(feature = #feature)]),
        None => quote!(),
    }
}

/// `Client::<api>()` for every API. Each is `#[inline]`: compiled into the
/// application that calls it, so the clients of APIs it never calls are not
/// built into it.
fn accessors(apis: &[Api]) -> TokenStream {
    let mut items = Vec::new();
    let settings: Vec<&Api> = apis.iter().filter(|api| api.address == "setting").collect();
    for api in apis.iter().filter(|api| api.is_target()) {
        let cfg = cfg(api);
        let method = format_ident!("{}", api.snake());
        let krate = format_ident!("{}", api.crate_ident());
        let variant = format_ident!("{}", api.variant());
        let title = format!(" {} (`openapi/{}.yaml`).", api.title, api.name);
        let item = match api.address.as_str() {
            "platform_url" => quote! {
                #cfg
                impl Client {
                    #[doc = #title]
                    ///
                    /// Needs the environment's `platform_url` (and the
                    /// platform's credentials for its tokens).
                    #[inline]
                    pub fn #method(&self) -> Result<#krate::Client, ConfigError> {
                        let (base_url, http, context) = self.parts(Api::#variant)?;
                        Ok(#krate::Client::new_with_client(&base_url, http, context))
                    }
                }
            },
            "setting" => {
                let settings_doc = format!(
                    " At `{0}_url` with a token for `{0}_audience` (see \
                     [`Environment::with_{0}`](psi_runtime::Environment::with_{0})).",
                    api.snake()
                );
                quote! {
                    #cfg
                    impl Client {
                        #[doc = #title]
                        ///
                        #[doc = #settings_doc]
                        ///
                        /// Without those settings the client is still handed out (so code
                        /// that uses it compiles and runs the same everywhere), but every
                        /// call fails before anything is sent, the token server included,
                        /// with [`Error::Config`](crate::Error::Config) holding the
                        /// [`ConfigError`] that names both settings.
                        #[inline]
                        pub fn #method(&self) -> #krate::Client {
                            match self.parts(Api::#variant) {
                                Ok((base_url, http, context)) => {
                                    #krate::Client::new_with_client(&base_url, http, context)
                                }
                                Err(missing) => #krate::Client::new_with_client(
                                    UNCONFIGURED_ADDRESS,
                                    self.shared.http.clone(),
                                    Context::refusing(Api::#variant.name(), missing)
                                        .with_call_span_level(self.shared.call_span_level),
                                ),
                            }
                        }
                    }
                }
            }
            _ => quote! {
                #cfg
                impl Client {
                    #[doc = #title]
                    #[inline]
                    pub fn #method(&self) -> #krate::Client {
                        let (base_url, http, context) = self
                            .parts(Api::#variant)
                            .expect("this API needs only the provider's addresses");
                        #krate::Client::new_with_client(&base_url, http, context)
                    }
                }
            },
        };
        items.push(item);
    }
    let unconfigured = if settings.is_empty() {
        quote!()
    } else {
        let gate = if settings.iter().all(|api| api.feature.is_some()) {
            let features: Vec<_> = settings
                .iter()
                .filter_map(|api| api.feature.as_ref())
                .collect();
            if let [feature] = features.as_slice() {
                quote!(#[cfg(feature = #feature)])
            } else {
                quote!(#[cfg(any(#(feature = #features),*))])
            }
        } else {
            quote!()
        };
        quote! {
            /// Never contacted: the refusing context stops every call first, and the
            /// `.invalid` top-level domain never resolves (RFC 6761) should one slip by.
            #gate
            const UNCONFIGURED_ADDRESS: &str = "http://unconfigured.invalid";
        }
    };
    quote! {
        //! One method per API, each returning the generated client wired to the
        //! right address and audience.
        #[allow(unused_imports)]
        use super::Client;
        #[allow(unused_imports)]
        use crate::Api;
        #[allow(unused_imports)]
        use psi_runtime::{ConfigError, Context};

        #(#items)*
        #unconfigured
    }
}

fn reexports(apis: &[Api]) -> TokenStream {
    let items = apis.iter().map(|api| {
        let cfg = cfg(api);
        let krate = format_ident!("{}", api.crate_ident());
        let module = format_ident!("{}", api.snake());
        let doc = format!(
            " {}: the generated client and types of `openapi/{}.yaml`.",
            api.title, api.name
        );
        quote! {
            #cfg
            #[doc = #doc]
            pub use #krate as #module;
        }
    });
    quote! {
        //! The generated clients and types, one module per API.
        #(#items)*
    }
}

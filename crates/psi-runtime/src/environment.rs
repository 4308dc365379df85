//! Where the APIs live and who the merchant is.

use crate::Secret;
use reqwest::Url;
use std::fmt;

/// A setting that is missing or malformed. Every variant names the setting:
/// the environment variable (`PSI_API_URL`) or the builder's field
/// (`api_url`), so the message says what to fix.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// A required setting is absent.
    NotSet {
        /// The setting.
        setting: String,
    },
    /// A setting is present but blank.
    Empty {
        /// The setting.
        setting: String,
    },
    /// One of two settings that only work together is set without the other.
    Incomplete {
        /// The missing setting.
        setting: String,
        /// The setting that is set.
        companion: String,
    },
    /// A setting's value breaks its rule (not an absolute http(s) URL, ...).
    Invalid {
        /// The setting.
        setting: String,
        /// The rule it breaks.
        problem: String,
    },
    /// An API was asked for whose settings are not all given.
    NeededBy {
        /// The API's name (`shop-config`).
        api: String,
        /// The settings it needs (`shop_config_url`, `shop_config_audience`).
        settings: Vec<String>,
        /// Why no default exists, where that helps.
        why: Option<String>,
    },
    /// The HTTP client could not be built (a TLS backend failed to load).
    HttpClient {
        /// What the HTTP library reported.
        problem: String,
    },
}

// Written out rather than derived: a derive macro would be one more crate
// in every user's clean build.
impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotSet { setting } => write!(f, "{setting}: is not set"),
            Self::Empty { setting } => write!(f, "{setting}: is empty"),
            Self::Incomplete { setting, companion } => {
                write!(
                    f,
                    "{setting}: is not set, but {companion} is: set both or neither"
                )
            }
            Self::Invalid { setting, problem } => write!(f, "{setting}: {problem}"),
            Self::NeededBy { api, settings, why } => {
                write!(
                    f,
                    "{}: needed for the {api} API and not set",
                    settings.join(", ")
                )?;
                match why {
                    Some(why) => write!(f, " ({why})"),
                    None => Ok(()),
                }
            }
            Self::HttpClient { problem } => write!(f, "http_client: {problem}"),
        }
    }
}

impl std::error::Error for ConfigError {}

impl ConfigError {
    /// The setting to fix (the first one, where several are needed).
    pub fn setting(&self) -> &str {
        match self {
            Self::NotSet { setting }
            | Self::Empty { setting }
            | Self::Incomplete { setting, .. }
            | Self::Invalid { setting, .. } => setting,
            Self::NeededBy { settings, .. } => settings.first().map_or("", String::as_str),
            Self::HttpClient { .. } => "http_client",
        }
    }

    fn not_set(setting: &str) -> Self {
        Self::NotSet {
            setting: setting.to_owned(),
        }
    }

    fn empty(setting: &str) -> Self {
        Self::Empty {
            setting: setting.to_owned(),
        }
    }

    fn invalid(setting: &str, problem: impl Into<String>) -> Self {
        Self::Invalid {
            setting: setting.to_owned(),
            problem: problem.into(),
        }
    }
}

/// The addresses of the interface.
///
/// The specification states neither the address nor the token audience of
/// the shop configuration API, so both are settings of their own
/// ([`Environment::with_shop_config`], `PSI_SHOP_CONFIG_URL` and
/// `PSI_SHOP_CONFIG_AUDIENCE`) rather than values derived from `api_url`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Environment {
    /// `{base_url}`: the hosted payment page API.
    pub base_url: Url,
    /// `{api_url}`: every other API of the provider.
    pub api_url: Url,
    /// `{auth_url}`: the token server.
    pub auth_url: Url,
    /// `{platform_url}`: the storefront platform installation, if any.
    pub platform_url: Option<Url>,
    /// Base address of the shop configuration API (its paths start with
    /// `/v2/partners/...`): given by the provider, not by the specification.
    pub shop_config_url: Option<Url>,
    /// Token audience of the shop configuration API, exactly as the provider
    /// gives it (the specification's audience table has no row for it).
    pub shop_config_audience: Option<String>,
}

impl Environment {
    /// Builds an environment from addresses; an address that is not an
    /// absolute http(s) URL is an error naming the setting.
    pub fn new(base_url: &str, api_url: &str, auth_url: &str) -> Result<Self, ConfigError> {
        Ok(Self {
            base_url: parse_url("base_url", base_url)?,
            api_url: parse_url("api_url", api_url)?,
            auth_url: parse_url("auth_url", auth_url)?,
            platform_url: None,
            shop_config_url: None,
            shop_config_audience: None,
        })
    }

    /// Adds the storefront platform's address.
    pub fn with_platform_url(mut self, platform_url: &str) -> Result<Self, ConfigError> {
        self.platform_url = Some(parse_url("platform_url", platform_url)?);
        Ok(self)
    }

    /// Adds the shop configuration API's base address and token audience,
    /// both as the provider gives them. A blank audience is an error naming
    /// `shop_config_audience`.
    pub fn with_shop_config(
        mut self,
        shop_config_url: &str,
        shop_config_audience: &str,
    ) -> Result<Self, ConfigError> {
        self.shop_config_url = Some(parse_url("shop_config_url", shop_config_url)?);
        self.shop_config_audience = Some(parse_audience(
            "shop_config_audience",
            shop_config_audience,
        )?);
        Ok(self)
    }

    /// Reads `PSI_BASE_URL`, `PSI_API_URL`, `PSI_AUTH_URL` and, if set,
    /// `PSI_PLATFORM_URL`, and `PSI_SHOP_CONFIG_URL` with
    /// `PSI_SHOP_CONFIG_AUDIENCE` (both or neither).
    // `#[inline]` so that only the crates that call it compile it.
    #[inline]
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`Environment::from_env`] over any lookup (tests pass a map).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, ConfigError> {
        let required = |name: &str| {
            let value = lookup(name).ok_or_else(|| ConfigError::not_set(name))?;
            parse_url(name, &value)
        };
        Ok(Self {
            base_url: required("PSI_BASE_URL")?,
            api_url: required("PSI_API_URL")?,
            auth_url: required("PSI_AUTH_URL")?,
            platform_url: lookup("PSI_PLATFORM_URL")
                .map(|value| parse_url("PSI_PLATFORM_URL", &value))
                .transpose()?,
            shop_config_url: match (
                lookup("PSI_SHOP_CONFIG_URL"),
                lookup("PSI_SHOP_CONFIG_AUDIENCE"),
            ) {
                (Some(url), Some(_)) => Some(parse_url("PSI_SHOP_CONFIG_URL", &url)?),
                (None, None) => None,
                (Some(_), None) => {
                    return Err(one_without_the_other(
                        "PSI_SHOP_CONFIG_AUDIENCE",
                        "PSI_SHOP_CONFIG_URL",
                    ))
                }
                (None, Some(_)) => {
                    return Err(one_without_the_other(
                        "PSI_SHOP_CONFIG_URL",
                        "PSI_SHOP_CONFIG_AUDIENCE",
                    ))
                }
            },
            shop_config_audience: lookup("PSI_SHOP_CONFIG_AUDIENCE")
                .map(|value| parse_audience("PSI_SHOP_CONFIG_AUDIENCE", &value))
                .transpose()?,
        })
    }
}

fn one_without_the_other(missing: &str, set: &str) -> ConfigError {
    ConfigError::Incomplete {
        setting: missing.to_owned(),
        companion: set.to_owned(),
    }
}

/// An audience is compared as a string by the token server: kept as given
/// (without surrounding whitespace), never normalised like a URL.
fn parse_audience(name: &str, value: &str) -> Result<String, ConfigError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(ConfigError::empty(name));
    }
    Ok(value.to_owned())
}

fn parse_url(name: &str, value: &str) -> Result<Url, ConfigError> {
    let url = Url::parse(value.trim())
        .map_err(|error| ConfigError::invalid(name, format!("is not an absolute URL ({error})")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ConfigError::invalid(
            name,
            format!("must be http or https, not {}", url.scheme()),
        ));
    }
    // Credentials in an address would be printed wherever the address is
    // (Debug, errors, logs) and sent to every host it names; the value is
    // not repeated here for the same reason.
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ConfigError::invalid(
            name,
            "must not carry a user name or password (`user:password@`)",
        ));
    }
    Ok(url)
}

impl Environment {
    /// Every address with the name of its setting.
    pub fn addresses(&self) -> impl Iterator<Item = (&'static str, &Url)> {
        [
            ("base_url", Some(&self.base_url)),
            ("api_url", Some(&self.api_url)),
            ("auth_url", Some(&self.auth_url)),
            ("platform_url", self.platform_url.as_ref()),
            ("shop_config_url", self.shop_config_url.as_ref()),
        ]
        .into_iter()
        .filter_map(|(name, url)| Some((name, url?)))
    }

    /// An error naming the first address that is plain `http` to a host
    /// other than a loopback one (`localhost`, `127.0.0.0/8`, `::1`): bearer
    /// tokens and the client secret travel to these addresses.
    pub fn check_https(&self) -> Result<(), ConfigError> {
        for (name, url) in self.addresses() {
            if url.scheme() == "http" && !is_loopback(url) {
                return Err(ConfigError::invalid(
                    name,
                    "must be https: plain http is for loopback hosts only \
                     (ClientBuilder::allow_insecure_http, or PSI_ALLOW_INSECURE_HTTP=1, opts in)",
                ));
            }
        }
        Ok(())
    }
}

/// Whether `url`'s host is this machine.
fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(address)) => address.is_loopback(),
        Some(url::Host::Ipv6(address)) => address.is_loopback(),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        None => false,
    }
}

/// OAuth client credentials. The secret never prints.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Credentials {
    /// The OAuth client id.
    pub client_id: String,
    /// The OAuth client secret (never printed).
    pub client_secret: Secret,
}

impl Credentials {
    /// Credentials from a client id and secret.
    pub fn new(client_id: impl Into<String>, client_secret: impl Into<Secret>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: client_secret.into(),
        }
    }

    /// Reads `<prefix>CLIENT_ID` and `<prefix>CLIENT_SECRET`
    /// (`PSI_` for the provider, `PSI_PLATFORM_` for the storefront platform).
    pub fn from_lookup(
        prefix: &str,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<Self, ConfigError> {
        let read = |suffix: &str| {
            let name = format!("{prefix}{suffix}");
            match lookup(&name) {
                Some(value) if !value.trim().is_empty() => Ok(value),
                Some(_) => Err(ConfigError::empty(&name)),
                None => Err(ConfigError::not_set(&name)),
            }
        };
        Ok(Self::new(read("CLIENT_ID")?, read("CLIENT_SECRET")?))
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret)
            .finish()
    }
}

impl fmt::Display for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "client {} (secret ***)", self.client_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn lookup(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| map.get(name).cloned()
    }

    #[test]
    fn every_config_error_names_its_setting_in_its_message() {
        let owned = |text: &str| text.to_owned();
        let cases = [
            (ConfigError::NotSet { setting: owned("PSI_API_URL") }, "PSI_API_URL: is not set"),
            (ConfigError::Empty { setting: owned("api_url") }, "api_url: is empty"),
            (
                ConfigError::Incomplete { setting: owned("A"), companion: owned("B") },
                "A: is not set, but B is: set both or neither",
            ),
            (
                ConfigError::Invalid { setting: owned("api_url"), problem: owned("not a URL") },
                "api_url: not a URL",
            ),
            (
                ConfigError::NeededBy {
                    api: owned("shop-config"),
                    settings: vec![owned("shop_config_url"), owned("shop_config_audience")],
                    why: Some(owned("no default address")),
                },
                "shop_config_url, shop_config_audience: needed for the shop-config API and not set (no default address)",
            ),
            (
                ConfigError::NeededBy { api: owned("storefront"), settings: vec![owned("platform_url")], why: None },
                "platform_url: needed for the storefront API and not set",
            ),
            (ConfigError::HttpClient { problem: owned("no TLS") }, "http_client: no TLS"),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
            assert!(std::error::Error::source(&error).is_none());
        }
    }

    #[test]
    fn a_missing_or_malformed_variable_is_named() {
        let error = Environment::from_lookup(lookup(&[("PSI_BASE_URL", "https://pp.example.com")]))
            .unwrap_err();
        assert_eq!(error.to_string(), "PSI_API_URL: is not set");
        let error = Environment::from_lookup(lookup(&[
            ("PSI_BASE_URL", "https://pp.example.com"),
            ("PSI_API_URL", "api.example.com"),
        ]))
        .unwrap_err();
        assert_eq!(error.setting(), "PSI_API_URL");
        let error =
            Credentials::from_lookup("PSI_", lookup(&[("PSI_CLIENT_ID", "m-1")])).unwrap_err();
        assert_eq!(error.to_string(), "PSI_CLIENT_SECRET: is not set");
    }

    const ADDRESSES: [(&str, &str); 3] = [
        ("PSI_BASE_URL", "https://pp.example.com"),
        ("PSI_API_URL", "https://api.example.com"),
        ("PSI_AUTH_URL", "https://auth.example.com"),
    ];

    #[test]
    fn the_shop_configuration_settings_are_read_both_or_neither() {
        let environment = Environment::from_lookup(lookup(&ADDRESSES)).unwrap();
        assert_eq!(environment.shop_config_url, None);
        assert_eq!(environment.shop_config_audience, None);

        let both = [
            ADDRESSES.as_slice(),
            &[
                ("PSI_SHOP_CONFIG_URL", "https://shops.example.com/"),
                ("PSI_SHOP_CONFIG_AUDIENCE", " https://shops.example.com "),
            ],
        ]
        .concat();
        let environment = Environment::from_lookup(lookup(&both)).unwrap();
        assert_eq!(
            environment.shop_config_url.unwrap().as_str(),
            "https://shops.example.com/"
        );
        assert_eq!(
            environment.shop_config_audience.as_deref(),
            Some("https://shops.example.com")
        );

        let url_only = [
            ADDRESSES.as_slice(),
            &[("PSI_SHOP_CONFIG_URL", "https://s.example.com")],
        ]
        .concat();
        let error = Environment::from_lookup(lookup(&url_only)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "PSI_SHOP_CONFIG_AUDIENCE: is not set, but PSI_SHOP_CONFIG_URL is: set both or neither"
        );
        let audience_only = [ADDRESSES.as_slice(), &[("PSI_SHOP_CONFIG_AUDIENCE", "aud")]].concat();
        let error = Environment::from_lookup(lookup(&audience_only)).unwrap_err();
        assert_eq!(error.setting(), "PSI_SHOP_CONFIG_URL");
        let blank = [
            ADDRESSES.as_slice(),
            &[
                ("PSI_SHOP_CONFIG_URL", "https://s.example.com"),
                ("PSI_SHOP_CONFIG_AUDIENCE", " "),
            ],
        ]
        .concat();
        let error = Environment::from_lookup(lookup(&blank)).unwrap_err();
        assert_eq!(error.to_string(), "PSI_SHOP_CONFIG_AUDIENCE: is empty");
    }

    #[test]
    fn with_shop_config_names_the_bad_setting() {
        let environment = Environment::new(
            "https://pp.example.com",
            "https://api.example.com",
            "https://auth.example.com",
        )
        .unwrap();
        let error = environment
            .clone()
            .with_shop_config("shops.example.com", "aud")
            .unwrap_err();
        assert_eq!(error.setting(), "shop_config_url");
        let error = environment
            .clone()
            .with_shop_config("https://shops.example.com", "")
            .unwrap_err();
        assert_eq!(error.setting(), "shop_config_audience");
        let environment = environment
            .with_shop_config("https://shops.example.com", "shops-audience")
            .unwrap();
        assert_eq!(
            environment.shop_config_audience.as_deref(),
            Some("shops-audience")
        );
    }

    #[test]
    fn credentials_never_print_the_secret() {
        let credentials = Credentials::new("merchant-1", "very-secret-value");
        let printed = format!("{credentials:?} {credentials} {credentials:#?}");
        assert!(!printed.contains("very-secret-value"), "{printed}");
        assert!(printed.contains("merchant-1"));
    }

    #[test]
    fn an_address_with_credentials_is_refused_without_printing_them() {
        for url in [
            "https://user:hunter2@api.example.com",
            "https://hunter2@api.example.com",
            "http://user:hunter2@127.0.0.1:8787",
        ] {
            let error =
                Environment::new(url, "https://api.example.com", "https://auth.example.com")
                    .unwrap_err();
            assert_eq!(error.setting(), "base_url");
            let printed = format!("{error} {error:?}");
            assert!(!printed.contains("hunter2"), "{printed}");
        }
    }

    #[test]
    fn plain_http_is_for_loopback_hosts_only() {
        let environment = |url: &str| Environment::new(url, url, url).unwrap();
        for loopback in [
            "http://127.0.0.1:8787",
            "http://127.8.0.1",
            "http://[::1]:8080",
            "http://localhost:1",
            "http://sandbox.localhost",
            "https://api.example.com",
        ] {
            environment(loopback).check_https().unwrap();
        }
        let error = environment("http://api.example.com")
            .check_https()
            .unwrap_err();
        assert_eq!(error.setting(), "base_url");
        assert!(error.to_string().contains("must be https"), "{error}");
        let error = Environment::new(
            "https://pay.example.com",
            "https://api.example.com",
            "http://10.0.0.2",
        )
        .unwrap()
        .check_https()
        .unwrap_err();
        assert_eq!(error.setting(), "auth_url");
        assert!(!error.to_string().contains("10.0.0.2"), "{error}");
    }
}

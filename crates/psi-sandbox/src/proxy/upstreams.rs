//! The real hosts, one per API family (the documents' server variables),
//! and the token request's audience rewritten from the proxy's address to
//! theirs.
//!
//! The proxy serves every family on one address the way the sandbox does
//! ([`crate::Addresses::of`]): the shop configuration below its own prefix
//! (`/shop-config`), every other family at the root. A path received is the
//! family's address prefix and the rest; what is forwarded is the upstream's
//! URL (its own path kept) with that rest appended.

use crate::audiences::SHOP_CONFIG_PREFIX;
use serde::Deserialize;
use serde_json::value::RawValue;

/// An API family: the server variable its documents' addresses are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `base_url`: the hosted payment page.
    Base,
    /// `api_url`: pay later, bank accounts, order and transaction status.
    Api,
    /// `auth_url`: the token server.
    Auth,
    /// `platform_url`: the storefront platform.
    Platform,
    /// `shop_config_url`: the shop configuration API.
    ShopConfig,
}

impl Family {
    /// Every family, in the order of the flags.
    pub const ALL: [Family; 5] = [
        Family::Base,
        Family::Api,
        Family::Auth,
        Family::Platform,
        Family::ShopConfig,
    ];

    /// The family of a server variable (`api_url`); an unknown one is `api_url`'s.
    pub fn of_server(server: &str) -> Family {
        match server {
            "base_url" => Family::Base,
            "auth_url" => Family::Auth,
            "platform_url" => Family::Platform,
            "shop_config_url" => Family::ShopConfig,
            _ => Family::Api,
        }
    }

    /// The flag naming its upstream.
    pub fn flag(self) -> &'static str {
        match self {
            Family::Base => "--upstream-base",
            Family::Api => "--upstream-api",
            Family::Auth => "--upstream-auth",
            Family::Platform => "--upstream-platform",
            Family::ShopConfig => "--upstream-shop-config",
        }
    }

    /// The path below the proxy's URL where the family's address is, as
    /// in [`crate::Addresses::of`]: `/shop-config` for the shop
    /// configuration, `""` for the others.
    pub fn own_prefix(self) -> &'static str {
        match self {
            Family::ShopConfig => SHOP_CONFIG_PREFIX,
            _ => "",
        }
    }

    /// The family whose own prefix `path` starts with (at a segment
    /// boundary), and the rest of the path after it.
    pub fn of_prefix(path: &str) -> Option<(Family, &str)> {
        let rest = path.strip_prefix(SHOP_CONFIG_PREFIX)?;
        (rest.is_empty() || rest.starts_with('/')).then_some((Family::ShopConfig, rest))
    }

    /// The server variable (`base_url`).
    pub fn server(self) -> &'static str {
        match self {
            Family::Base => "base_url",
            Family::Api => "api_url",
            Family::Auth => "auth_url",
            Family::Platform => "platform_url",
            Family::ShopConfig => "shop_config_url",
        }
    }
}

/// The upstream of each family, without a trailing slash; `None` where no
/// flag gave one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Upstreams {
    urls: [Option<String>; 5],
}

impl Upstreams {
    /// Every family at its address of a host laid out as the sandbox is,
    /// at `url` (`--upstream`): the shop configuration at `{url}/shop-config`.
    pub fn all(url: &str) -> Self {
        let mut upstreams = Self::default();
        for family in Family::ALL {
            upstreams = upstreams.or(family, url);
        }
        upstreams
    }

    /// `family` at `url`.
    pub fn with(mut self, family: Family, url: &str) -> Self {
        self.urls[family as usize] = Some(url.trim_end_matches('/').to_owned());
        self
    }

    /// `family` at its address of a host laid out as the sandbox is, at
    /// `url`, unless it has one already (`--upstream` stands for every
    /// family not given).
    pub fn or(mut self, family: Family, url: &str) -> Self {
        if self.urls[family as usize].is_none() {
            let url = url.trim_end_matches('/');
            self.urls[family as usize] = Some(format!("{url}{}", family.own_prefix()));
        }
        self
    }

    /// The upstream of `family`, if one was given.
    pub fn get(&self, family: Family) -> Option<&str> {
        self.urls[family as usize].as_deref()
    }

    /// Whether no family has an upstream.
    pub fn is_empty(&self) -> bool {
        self.urls.iter().all(Option::is_none)
    }
}

#[derive(Deserialize)]
struct TokenRequest<'a> {
    #[serde(borrow)]
    audience: Option<&'a RawValue>,
}

/// The token request `body` with its `audience` rewritten from one of the
/// proxy's `own` prefixes (`http://127.0.0.1:8788`) to the upstream of the
/// family the rest of the audience's path belongs to; `None` when there is
/// nothing to rewrite (no JSON object, no string audience, another prefix,
/// no upstream for the family). Every other byte stays as it was: the one
/// string literal is replaced where it stands.
pub fn rewrite_audience(body: &[u8], own: &[String], upstreams: &Upstreams) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(body).ok()?;
    let request: TokenRequest<'_> = serde_json::from_str(text).ok()?;
    let raw = request.audience?;
    let audience: String = serde_json::from_str(raw.get()).ok()?;
    let rest = own.iter().find_map(|prefix| {
        let rest = audience.strip_prefix(prefix.trim_end_matches('/'))?;
        (rest.is_empty() || rest.starts_with('/')).then_some(rest)
    })?;
    let (family, rest) = if rest.is_empty() || rest == "/" {
        (Family::Base, rest)
    } else if let Some((family, below)) = Family::of_prefix(rest) {
        (family, below)
    } else {
        let server = psi_drift::Documents::bundled().server_of(rest);
        (Family::of_server(server), rest)
    };
    let upstream = upstreams.get(family)?;
    let rewritten = serde_json::to_string(&format!("{upstream}{rest}")).ok()?;
    // The raw value borrows from `text`: its offset is where it stands.
    let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
    let end = start + raw.get().len();
    let mut out = Vec::with_capacity(body.len() + rewritten.len());
    out.extend_from_slice(&body[..start]);
    out.extend_from_slice(rewritten.as_bytes());
    out.extend_from_slice(&body[end..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upstreams() -> Upstreams {
        Upstreams::default()
            .with(Family::Base, "https://pay.example.com/")
            .with(Family::Api, "https://api.example.com")
    }

    #[test]
    fn the_audience_names_the_upstream_of_its_family_and_nothing_else_changes() {
        let own = vec!["http://127.0.0.1:8788".to_owned()];
        let body = br#"{ "client_id":"a",  "audience" : "http://127.0.0.1:8788/paylater","client_secret":"s"}"#;
        let out = rewrite_audience(body, &own, &upstreams()).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{ "client_id":"a",  "audience" : "https://api.example.com/paylater","client_secret":"s"}"#
        );
        let base = br#"{"audience":"http://127.0.0.1:8788"}"#;
        assert_eq!(
            rewrite_audience(base, &own, &upstreams()).unwrap(),
            br#"{"audience":"https://pay.example.com"}"#
        );
        // the shop configuration's audience is its own address
        let shop = br#"{"audience":"http://127.0.0.1:8788/shop-config"}"#;
        let shops = upstreams().with(Family::ShopConfig, "https://shops.example.com/base");
        assert_eq!(
            rewrite_audience(shop, &own, &shops).unwrap(),
            br#"{"audience":"https://shops.example.com/base"}"#
        );
        assert_eq!(
            rewrite_audience(shop, &own, &Upstreams::all("http://sandbox:1")).unwrap(),
            br#"{"audience":"http://sandbox:1/shop-config"}"#
        );
        // another prefix, a longer host, no audience: untouched
        for body in [
            &br#"{"audience":"https://api.example.com/paylater"}"#[..],
            br#"{"audience":"http://127.0.0.1:87889/paylater"}"#,
            br#"{"client_id":"a"}"#,
            b"not json",
        ] {
            assert_eq!(rewrite_audience(body, &own, &upstreams()), None);
        }
    }

    #[test]
    fn only_the_shop_configuration_has_a_prefix_of_its_own() {
        assert_eq!(
            Family::of_prefix("/shop-config/v2/partners/p/shops/s"),
            Some((Family::ShopConfig, "/v2/partners/p/shops/s"))
        );
        assert_eq!(
            Family::of_prefix("/shop-config"),
            Some((Family::ShopConfig, ""))
        );
        assert_eq!(Family::of_prefix("/shop-configs/x"), None);
        assert_eq!(Family::of_prefix("/paylater/x"), None);
        let all = Upstreams::all("http://sandbox:1/");
        assert_eq!(all.get(Family::Api), Some("http://sandbox:1"));
        assert_eq!(
            all.get(Family::ShopConfig),
            Some("http://sandbox:1/shop-config")
        );
    }
}

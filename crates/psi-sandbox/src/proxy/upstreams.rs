//! The real hosts, one per API family (the documents' server variables),
//! and the token request's audience rewritten from the proxy's address to
//! theirs.

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
    /// Every family at `url` (`--upstream`).
    pub fn all(url: &str) -> Self {
        let mut upstreams = Self::default();
        for family in Family::ALL {
            upstreams = upstreams.with(family, url);
        }
        upstreams
    }

    /// `family` at `url`.
    pub fn with(mut self, family: Family, url: &str) -> Self {
        self.urls[family as usize] = Some(url.trim_end_matches('/').to_owned());
        self
    }

    /// `family` at `url` unless it has one already (`--upstream` stands
    /// for every family not given).
    pub fn or(mut self, family: Family, url: &str) -> Self {
        if self.urls[family as usize].is_none() {
            self.urls[family as usize] = Some(url.trim_end_matches('/').to_owned());
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
    let family = if rest.is_empty() || rest == "/" {
        Family::Base
    } else {
        Family::of_server(psi_drift::Documents::bundled().server_of(rest))
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
}

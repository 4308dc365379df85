//! What every generated client does to a request before sending it.

/// Adjusts a request built by generated code to what the service expects:
///
/// - the values of the query parameters `is_comma_separated` names (the
///   operation's lists sent as one value, `include=basket,payment_status`) keep their commas
///   literal, which RFC 3986 allows in a query; the URL encoder would send
///   `%2C`. Every other parameter keeps its `%2C`: there a comma is data.
pub fn prepare(request: &mut reqwest::Request, is_comma_separated: impl Fn(&str) -> bool) {
    let url = request.url_mut();
    let Some(query) = url.query() else {
        return;
    };
    if !query.contains("%2C") {
        return;
    }
    let literal = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, value)) if is_comma_separated(name) => {
                format!("{name}={}", value.replace("%2C", ","))
            }
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&");
    url.set_query(Some(&literal));
}

#[cfg(test)]
mod tests {
    use super::prepare;

    fn prepared(url: &str, comma_separated: &[&str]) -> String {
        let mut request = reqwest::Request::new(reqwest::Method::GET, url.parse().unwrap());
        prepare(&mut request, |name| comma_separated.contains(&name));
        request.url().as_str().to_owned()
    }

    #[test]
    fn only_the_named_parameters_get_literal_commas() {
        assert_eq!(
            prepared(
                "http://x/a?note=a%2Cb&include=basket%2Cpayment_status&other=c%2Cd",
                &["include"]
            ),
            "http://x/a?note=a%2Cb&include=basket,payment_status&other=c%2Cd"
        );
    }

    #[test]
    fn without_comma_separated_parameters_the_query_is_untouched() {
        assert_eq!(
            prepared("http://x/a?include=a%2Cb", &[]),
            "http://x/a?include=a%2Cb"
        );
        // A name that merely starts like a listed one is another parameter.
        assert_eq!(
            prepared("http://x/a?includes=a%2Cb", &["include"]),
            "http://x/a?includes=a%2Cb"
        );
    }
}

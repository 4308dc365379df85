//! The session request's members the provider's documentation marks
//! required, which the specification does not (docs/service-notes.md,
//! "Session creation"): `order_data`, its `buyer`, the buyer's
//! `billing_address` and that address's `city` (at least two characters
//! that are not whitespace), `country_code`, `street` and `zip_code`. The
//! service is likely to refuse a session without them, but no rule of the
//! specification says so, so they are advice, never a refusal.

use psi_payment_page::types::{Address, Buyer, SessionRequest};

use crate::Finding;

/// The finding of a required member that is absent.
#[inline]
fn absent(path: impl Into<String>) -> Finding {
    Finding::new(
        path,
        "is absent: the provider's documentation marks it required (the specification does not)",
    )
}

/// Every member of `request` the provider marks required and the request
/// lacks, with its JSON path.
#[inline]
pub fn session_required_members(request: &SessionRequest) -> Vec<Finding> {
    let mut found = Vec::new();
    let Some(order) = &request.order_data else {
        found.push(absent("$.order_data"));
        return found;
    };
    let Some(buyer) = &order.buyer else {
        found.push(absent("$.order_data.buyer"));
        return found;
    };
    let billing_address = match buyer {
        Buyer::CompanyBuyer(buyer) => buyer.billing_address.as_ref(),
        Buyer::PersonBuyer(buyer) => buyer.billing_address.as_ref(),
    };
    let path = "$.order_data.buyer.billing_address";
    let Some(address) = billing_address else {
        found.push(absent(path));
        return found;
    };
    check_address(path, address, &mut found);
    found
}

#[inline]
fn check_address(path: &str, address: &Address, found: &mut Vec<Finding>) {
    match address.city.as_deref() {
        None => found.push(absent(format!("{path}.city"))),
        Some(city) if city.chars().filter(|c| !c.is_whitespace()).count() < 2 => {
            found.push(Finding::new(
                format!("{path}.city"),
                "has fewer than 2 characters that are not whitespace, which the provider's \
                 documentation asks of a city",
            ))
        }
        Some(_) => {}
    }
    let others = [
        ("country_code", address.country_code.is_some()),
        ("street", address.street.is_some()),
        ("zip_code", address.zip_code.is_some()),
    ];
    for (member, _) in others.iter().filter(|(_, present)| !present) {
        found.push(absent(format!("{path}.{member}")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(json: serde_json::Value) -> SessionRequest {
        serde_json::from_value(json).unwrap()
    }

    fn paths(request: &SessionRequest) -> Vec<String> {
        session_required_members(request)
            .into_iter()
            .map(|finding| finding.path)
            .collect()
    }

    #[test]
    fn a_complete_request_gets_no_advice() {
        let complete = required_members_only();
        assert_eq!(paths(&complete), Vec::<String>::new());
    }

    /// The provider's required members, and nothing else.
    fn required_members_only() -> SessionRequest {
        request(serde_json::json!({"order_data": {"buyer": {
            "person": {"first_name": "Erika", "last_name": "Mustermann"},
            "billing_address": {"city": "Berlin", "country_code": "DE", "street": "Musterstraße", "zip_code": "10115"}
        }}}))
    }

    #[test]
    fn each_absent_member_is_named_at_the_first_level_missing() {
        assert_eq!(paths(&request(serde_json::json!({}))), ["$.order_data"]);
        assert_eq!(
            paths(&request(
                serde_json::json!({"order_data": {"currency": "EUR"}})
            )),
            ["$.order_data.buyer"]
        );
        assert_eq!(
            paths(&request(
                serde_json::json!({"order_data": {"buyer": {"company": {"name": "X"}}}})
            )),
            ["$.order_data.buyer.billing_address"]
        );
        assert_eq!(
            paths(&request(serde_json::json!({"order_data": {"buyer": {
                "person": {}, "billing_address": {"city": " B "}}}}))),
            [
                "$.order_data.buyer.billing_address.city",
                "$.order_data.buyer.billing_address.country_code",
                "$.order_data.buyer.billing_address.street",
                "$.order_data.buyer.billing_address.zip_code",
            ]
        );
    }
}

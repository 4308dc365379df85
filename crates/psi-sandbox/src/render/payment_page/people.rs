//! The buyer card (name, company, contact, billing address) and the
//! delivery card in each of the five shapes the document allows.

use super::text::{Lang, Text};
use crate::html::escape;
use psi_payment_page::types::{Address, Buyer, Delivery, OrderData};

/// Lines of text, each escaped, joined with `<br>`; empty ones left out.
fn lines(parts: impl IntoIterator<Item = Option<String>>) -> String {
    parts
        .into_iter()
        .flatten()
        .filter(|line| !line.trim().is_empty())
        .collect::<Vec<_>>()
        .join("<br>")
}

/// Words joined with a space, each escaped; `None` when all are absent.
fn words(parts: &[Option<&str>]) -> Option<String> {
    let present: Vec<_> = parts.iter().flatten().map(|part| escape(part)).collect();
    (!present.is_empty()).then(|| present.join(" "))
}

/// Street and number, addition, postcode and city, country.
fn address_lines(address: &Address) -> Vec<Option<String>> {
    vec![
        words(&[address.street.as_deref(), address.street_number.as_deref()]),
        words(&[address.street_addition.as_deref()]),
        words(&[address.zip_code.as_deref(), address.city.as_deref()]),
        address.country_code.as_ref().map(|code| escape(code)),
    ]
}

pub(super) fn buyer_card(order: Option<&OrderData>, text: &Text) -> String {
    let buyer = order.and_then(|order| order.buyer.as_ref());
    let (billing, contact, identity) = match buyer {
        Some(Buyer::PersonBuyer(buyer)) => {
            let person = &buyer.person;
            let name = words(&[
                person.title.as_deref(),
                person.first_name.as_deref(),
                person.last_name.as_deref(),
            ]);
            let born = person
                .date_of_birth
                .map(|date| format!("<span class=\"muted\">{} {date}</span>", text.born));
            (&buyer.billing_address, &buyer.contact, vec![name, born])
        }
        Some(Buyer::CompanyBuyer(buyer)) => {
            let company = &buyer.company;
            let vat_id = company.vat_id.as_deref().map(|id| {
                format!(
                    "<span class=\"muted\">{} {}</span>",
                    text.company_vat_id,
                    escape(id)
                )
            });
            (
                &buyer.billing_address,
                &buyer.contact,
                vec![words(&[company.name.as_deref()]), vat_id],
            )
        }
        None => (&None, &None, Vec::new()),
    };
    let mut parts = identity;
    match billing {
        Some(address) => parts.extend(address_lines(address)),
        None => parts.push(Some(format!(
            "<span class=\"muted\">{}</span>",
            text.nothing_given
        ))),
    }
    let mut out = format!(
        "<section class=\"card\" aria-labelledby=\"billing-heading\">\n<h2 id=\"billing-heading\">{}</h2>\n<address>{}</address>\n",
        text.billing_address,
        lines(parts)
    );
    if let Some(contact) = contact {
        let details = lines([
            contact.email.as_deref().map(escape),
            contact.phone.as_deref().map(escape),
        ]);
        if !details.is_empty() {
            out.push_str(&format!("<h3>{}</h3>\n<p>{details}</p>\n", text.contact));
        }
    }
    out.push_str("</section>\n");
    out
}

pub(super) fn delivery_card(order: Option<&OrderData>, lang: Lang) -> String {
    let text = lang.text();
    let delivery = order.and_then(|order| order.delivery.as_ref());
    let (kind, body) = match delivery {
        None => (
            text.delivery_address,
            format!("<span class=\"muted\">{}</span>", text.nothing_given),
        ),
        Some(delivery) => describe(delivery, text),
    };
    format!(
        "<section class=\"card\" aria-labelledby=\"delivery-heading\">\n<h2 id=\"delivery-heading\">{}</h2>\n\
         <h3 class=\"delivery-kind\">{kind}</h3>\n<address>{body}</address>\n</section>\n",
        text.delivery
    )
}

/// The shape's heading and its lines.
fn describe(delivery: &Delivery, text: &Text) -> (&'static str, String) {
    match delivery {
        Delivery::InStoreCollectDelivery(d) => {
            let store = &d.in_store_collect;
            let mut parts = vec![
                words(&[d.first_name.as_deref(), d.last_name.as_deref()]),
                words(&[d.company.as_deref()]),
                words(&[store.location_name.as_deref()])
                    .map(|name| format!("<strong>{name}</strong>")),
            ];
            parts.extend(address_lines(&Address {
                city: store.city.clone(),
                country_code: store.country_code.clone(),
                street: store.street.clone(),
                street_addition: store.street_addition.clone(),
                street_number: store.street_number.clone(),
                zip_code: store.zip_code.clone(),
                extra_members: Default::default(),
            }));
            (text.in_store_collect, lines(parts))
        }
        Delivery::PickUpBoxDelivery(d) => {
            let pick_up_box = &d.pick_up_box;
            let labelled = |label: &str, value: Option<&str>| {
                value.map(|value| format!("{label} {}", escape(value)))
            };
            let parts = vec![
                words(&[d.first_name.as_deref(), d.last_name.as_deref()]),
                labelled(text.carrier, pick_up_box.carrier_name.as_deref()),
                labelled(text.box_location, pick_up_box.location_id.as_deref()),
                labelled(
                    text.carrier_customer,
                    pick_up_box.recipient_account_id.as_deref(),
                ),
                words(&[pick_up_box.zip_code.as_deref(), pick_up_box.city.as_deref()]),
                pick_up_box.country_code.as_ref().map(|code| escape(code)),
            ];
            (text.pick_up_box, lines(parts))
        }
        Delivery::PickUpShopDelivery(d) => {
            let shop = &d.pick_up_shop;
            let mut parts = vec![
                words(&[d.first_name.as_deref(), d.last_name.as_deref()]),
                words(&[d.company.as_deref()]),
                words(&[shop.location_name.as_deref()])
                    .map(|name| format!("<strong>{name}</strong>")),
            ];
            parts.extend(address_lines(&Address {
                city: shop.city.clone(),
                country_code: shop.country_code.clone(),
                street: shop.street.clone(),
                street_addition: shop.street_addition.clone(),
                street_number: shop.street_number.clone(),
                zip_code: shop.zip_code.clone(),
                extra_members: Default::default(),
            }));
            (text.pick_up_shop, lines(parts))
        }
        Delivery::ConsumerAddressDelivery(d) => {
            let mut parts = vec![Some(escape(&d.full_name))];
            if let Some(address) = &d.address {
                parts.extend(address_lines(address));
            }
            (text.delivery_address, lines(parts))
        }
        Delivery::NamedAddressDelivery(d) => {
            let mut parts = vec![
                words(&[d.company.as_deref()]),
                words(&[d.first_name.as_deref(), d.last_name.as_deref()]),
            ];
            if let Some(address) = &d.address {
                parts.extend(address_lines(address));
            }
            (text.delivery_address, lines(parts))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn delivery_html(delivery: serde_json::Value) -> String {
        let order: OrderData = serde_json::from_value(json!({"delivery": delivery})).unwrap();
        delivery_card(Some(&order), Lang::En)
    }

    #[test]
    fn each_of_the_five_shapes_is_named_and_shows_its_place() {
        let cases = [
            (
                json!({"first_name": "Ada", "in_store_collect": {"location_name": "Store Mitte", "city": "Berlin"}}),
                "Collect in store",
                "Store Mitte",
            ),
            (
                json!({"last_name": "Lovelace", "pick_up_box": {"carrier_name": "DHL", "location_id": "Packstation 105", "recipient_account_id": "123456"}}),
                "Pick-up box",
                "Packstation 105",
            ),
            (
                json!({"company": "ACME", "pick_up_shop": {"location_name": "Kiosk am Eck", "zip_code": "10115"}}),
                "Pick-up shop",
                "Kiosk am Eck",
            ),
            (
                json!({"full_name": "Ada Lovelace", "address": {"street": "Main St", "street_number": "5"}}),
                "Delivery to this address",
                "Ada Lovelace",
            ),
            (
                json!({"company": "ACME GmbH", "address": {"city": "Köln", "zip_code": "50667"}}),
                "Delivery to this address",
                "50667 Köln",
            ),
        ];
        for (delivery, kind, place) in cases {
            let html = delivery_html(delivery.clone());
            assert!(
                html.contains(&format!("<h3 class=\"delivery-kind\">{kind}</h3>")),
                "{delivery}: {html}"
            );
            assert!(html.contains(place), "{delivery}: {html}");
        }
    }

    #[test]
    fn shop_supplied_names_are_escaped() {
        let html = delivery_html(json!({"full_name": "<img src=x onerror=alert(1)>"}));
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{html}"
        );
    }
}

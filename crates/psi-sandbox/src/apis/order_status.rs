//! Order status API, payment API 1.8, and the invoice correspondence
//! retrieval (`openapi/order-status.yaml`).
//!
//! | method | path | does |
//! |---|---|---|
//! | GET | /order/status/v2/transactions/{transaction-id}?include=... | the order status of a transaction |
//! | GET | /api/order/{transaction_id}/correspondences/invoices/{correspondence_id}/{format} | the invoice as pdf, eml or html |
//!
//! Both read the transactions the hosted payment page creates when a buyer
//! completes a session; neither changes anything. The payment information
//! follows the sandbox clock ([`crate::models::order_status`]); the invoice
//! is drawn by [`crate::render::invoice`].

use crate::auth::Tokens;
use crate::http::extract::{Bearer, OrderStatus};
use crate::http::operation::declare;
use crate::models::order_status::{
    dunning_status, gross_total, payment_method, payment_status, MAXIMUM_PROCESSING_OFFSET_IN_HOURS,
};
use crate::models::transaction::Transaction;
use crate::refusals::decline;
use crate::render::invoice::{self, Invoice, Seller};
use crate::state::Data;
use axum::extract::FromRef;
use axum::extract::{Path, Query};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use chrono::NaiveDate;
use psi_order_status::types::{
    CorrespondenceFormat, GeneralOrderInformation, IncludeOption, OrderBasket, OrderItem,
    OrderPaymentInformation, OrderStatusResponse, ShopItemGroups, ShopOrderItems,
};
use psi_payment_page::types::{BasketItem, SpecialItem};
use psi_runtime::CommaSeparated;
use psi_runtime::Decimal;
use serde_json::{Map, Value};

pub fn routes<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: FromRef<S>,
{
    Router::new()
        .route(
            "/order/status/v2/transactions/{transaction_id}",
            declare("getOrderStatus", get(get_order_status)),
        )
        .route(
            "/api/order/{transaction_id}/correspondences/invoices/{correspondence_id}/{format}",
            declare("getInvoiceCorrespondence", get(get_invoice_correspondence)),
        )
}

async fn get_order_status(
    Path(transaction_id): Path<String>,
    Query(query): Query<Vec<(String, String)>>,
    Bearer { tenant, .. }: Bearer<OrderStatus>,
) -> Response {
    let sections = match requested_sections(&query) {
        Ok(sections) => sections,
        Err(rule) => {
            let field = vec![("include".to_owned(), rule)];
            return decline(StatusCode::BAD_REQUEST, &["INVALID_FIELD"], field);
        }
    };
    let Some(transaction) = tenant.data().transactions.get(&transaction_id).cloned() else {
        return transaction_not_found();
    };
    let today = tenant.clock.now_local().date_naive();
    Json(order_status(&transaction, sections, today)).into_response()
}

pub(crate) fn transaction_not_found() -> Response {
    decline(
        StatusCode::NOT_FOUND,
        &["TRANSACTION_NOT_FOUND"],
        Vec::new(),
    )
}

/// Which optional sections `include` asks for.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Sections {
    basket: bool,
    payment_status: bool,
    payment_method: bool,
    dunning_status: bool,
}

impl Sections {
    fn of(include: &[IncludeOption]) -> Self {
        let all = include.contains(&IncludeOption::All);
        let has = |option| all || include.contains(&option);
        Self {
            basket: has(IncludeOption::Basket),
            payment_status: has(IncludeOption::PaymentStatus),
            payment_method: has(IncludeOption::PaymentMethod),
            dunning_status: has(IncludeOption::DunningStatus),
        }
    }

    fn payment_information(self) -> bool {
        self.payment_status || self.payment_method || self.dunning_status
    }
}

/// `include` is one comma-separated value; repeated `include` parameters
/// are joined too. An unknown value is refused with the rule it breaks.
fn requested_sections(query: &[(String, String)]) -> Result<Sections, String> {
    let values: Vec<&str> = query
        .iter()
        .filter(|(name, _)| name == "include")
        .map(|(_, value)| value.as_str())
        .collect();
    let include = values
        .join(",")
        .parse::<CommaSeparated<IncludeOption>>()
        .map_err(|problem| {
            format!(
                "{problem}; include takes a comma-separated list of payment_status, \
             payment_method, dunning_status, basket, all"
            )
        })?;
    Ok(Sections::of(include.items()))
}

fn order_status(
    transaction: &Transaction,
    sections: Sections,
    today: NaiveDate,
) -> OrderStatusResponse {
    OrderStatusResponse {
        general_order_information: Some(general_order_information(transaction)),
        basket: sections.basket.then(|| order_basket(transaction)),
        payment_information: sections
            .payment_information()
            .then(|| OrderPaymentInformation {
                maximum_processing_offset_in_hours: Some(Decimal::from(
                    MAXIMUM_PROCESSING_OFFSET_IN_HOURS,
                )),
                payment_method: if sections.payment_method {
                    payment_method(transaction)
                } else {
                    Map::new()
                },
                payment_status: if sections.payment_status {
                    payment_status(transaction, today)
                } else {
                    Map::new()
                },
                dunning_status: if sections.dunning_status {
                    dunning_status()
                } else {
                    Map::new()
                },
            }),
    }
}

fn general_order_information(transaction: &Transaction) -> GeneralOrderInformation {
    GeneralOrderInformation {
        transaction_id: Some(transaction.id.to_string()),
        shop_order_id: transaction
            .baskets()
            .first()
            .and_then(|b| b.shop_transaction_id.clone()),
        order_creation_date: Some(transaction.created),
        // The session request carries no buyer id, so the shop never sent one.
        shop_buyer_id: None,
        currency: transaction.currency().parse().ok(),
    }
}

fn order_basket(transaction: &Transaction) -> OrderBasket {
    let total = gross_total(transaction);
    let baskets = transaction.baskets();
    OrderBasket {
        // No order changes are emulated: the current order is the initial one.
        initial_order_amount_gross: Some(total),
        current_order_amount_gross: Some(total),
        last_updated: Some(transaction.created),
        current_items: baskets
            .iter()
            .map(|basket| ShopOrderItems {
                shop_id: basket.partner_shop_id.clone(),
                shop_items: Some(ShopItemGroups {
                    open_items: basket.items.iter().map(order_item).collect(),
                    shipped_items: Vec::new(),
                    returned_items: Vec::new(),
                }),
            })
            .collect(),
        current_special_items: special_items_by_category(
            baskets.iter().flat_map(|b| b.special_items.iter()),
        ),
    }
}

fn order_item(item: &BasketItem) -> OrderItem {
    // The item's name is what a buyer reads; its description is the extra line.
    let (description, additional_description) = match (&item.name, &item.description) {
        (Some(name), description) => (Some(name.clone()), description.clone()),
        (None, description) => (description.clone(), None),
    };
    OrderItem {
        unit_price_gross: item.gross_unit_price,
        tax_rate: item.tax_rate,
        discount: item.gross_unit_discount,
        quantity: item.quantity,
        description,
        additional_description,
        identification_number: item.article_number.clone(),
        unique_identification_number: None,
    }
}

/// The free-form special items object, keyed by category (`shipping`);
/// a second item of the same category gets `shipping_2`, and so on.
fn special_items_by_category<'a>(
    items: impl Iterator<Item = &'a SpecialItem>,
) -> Map<String, Value> {
    let mut by_category = Map::new();
    for item in items {
        let category = item
            .category
            .clone()
            .unwrap_or_else(|| "special_item".to_owned());
        let key = (1..)
            .map(|n| {
                if n == 1 {
                    category.clone()
                } else {
                    format!("{category}_{n}")
                }
            })
            .find(|key| !by_category.contains_key(key))
            .unwrap_or(category);
        let line = OrderItem {
            unit_price_gross: item.gross_unit_price,
            tax_rate: item.tax_rate,
            discount: None,
            quantity: item.quantity,
            description: item.name.clone().or_else(|| item.description.clone()),
            additional_description: item.name.as_ref().and(item.description.clone()),
            identification_number: item.article_number.clone(),
            unique_identification_number: None,
        };
        by_category.insert(key, serde_json::to_value(line).unwrap_or_default());
    }
    by_category
}

async fn get_invoice_correspondence(
    Path((transaction_id, correspondence_id, format)): Path<(String, String, String)>,
    // The specification names no audience for the retrieval: the order status token.
    Bearer { tenant, .. }: Bearer<OrderStatus>,
) -> Response {
    let Ok(format) = format.parse::<CorrespondenceFormat>() else {
        return decline(StatusCode::NOT_FOUND, &["FORMAT_NOT_FOUND"], Vec::new());
    };
    let found = {
        let data = tenant.data();
        data.transactions
            .get(&transaction_id)
            .map(|transaction| (transaction.clone(), seller_of(&data, transaction)))
    };
    let Some((transaction, seller)) = found else {
        return transaction_not_found();
    };
    if transaction.correspondence_id.to_string() != correspondence_id {
        return decline(
            StatusCode::NOT_FOUND,
            &["CORRESPONDENCE_NOT_FOUND"],
            Vec::new(),
        );
    }
    invoice_file(&Invoice::of(&transaction, seller), format)
}

/// The shop's stored configuration names the seller; without one the
/// invoice comes from the sandbox shop.
pub(crate) fn seller_of(data: &Data, transaction: &Transaction) -> Seller {
    let baskets = transaction.baskets();
    let shop_id = baskets
        .first()
        .and_then(|basket| basket.partner_shop_id.as_deref());
    seller_of_shop(data, shop_id)
}

/// [`seller_of`] a transaction whose first basket's `partner_shop_id` the
/// caller has at hand.
pub(crate) fn seller_of_shop(data: &Data, shop_id: Option<&str>) -> Seller {
    shop_id
        .and_then(|shop_id| data.shop_config.of_shop(shop_id))
        .map(Seller::from_shop_configuration)
        .unwrap_or_else(Seller::sandbox)
}

/// Only the name of [`seller_of_shop`]: what a transaction status answer
/// shows, without building the whole seller.
pub(crate) fn shop_name_of(data: &Data, shop_id: Option<&str>) -> std::borrow::Cow<'static, str> {
    match shop_id.and_then(|shop_id| data.shop_config.of_shop(shop_id)) {
        Some(configuration) => configuration.legal.name.clone().into(),
        None => invoice::SANDBOX_SHOP_NAME.into(),
    }
}

fn invoice_file(invoice: &Invoice, format: CorrespondenceFormat) -> Response {
    let (content_type, body) = match format {
        CorrespondenceFormat::Pdf => ("application/pdf", invoice::pdf(invoice)),
        CorrespondenceFormat::Eml => ("message/rfc822", invoice::eml(invoice)),
        CorrespondenceFormat::Html => (
            "text/html; charset=utf-8",
            invoice::html(invoice).into_bytes(),
        ),
    };
    let disposition = format!(
        "inline; filename=\"invoice-{}.{format}\"",
        invoice.transaction_id
    );
    (
        [
            (header::CONTENT_TYPE, content_type.to_owned()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use IncludeOption::*;

    fn query(include: &str) -> Vec<(String, String)> {
        vec![("include".to_owned(), include.to_owned())]
    }

    #[test]
    fn include_values_select_sections() {
        let none = Sections::default();
        assert_eq!(requested_sections(&[]).ok(), Some(none));
        assert_eq!(requested_sections(&query("")).ok(), Some(none));
        let basket = Sections {
            basket: true,
            ..none
        };
        assert_eq!(requested_sections(&query("basket")).ok(), Some(basket));
        let both = Sections {
            basket: true,
            payment_status: true,
            ..none
        };
        assert_eq!(
            requested_sections(&query("basket, payment_status")).ok(),
            Some(both)
        );
        let all = Sections::of(&[All]);
        assert_eq!(
            all,
            Sections::of(&[Basket, PaymentStatus, PaymentMethod, DunningStatus])
        );
        let repeated = [query("basket"), query("payment_status")].concat();
        assert_eq!(requested_sections(&repeated).ok(), Some(both));
    }

    #[test]
    fn an_unknown_include_value_is_named() {
        let rule = requested_sections(&query("basket,shipping")).unwrap_err();
        assert!(
            rule.starts_with("\"shipping\": invalid value; include takes"),
            "{rule}"
        );
    }

    #[test]
    fn special_items_of_one_category_get_numbered_keys() {
        let shipping: SpecialItem = serde_json::from_value(
            json!({"category": "shipping", "name": "Shipping", "gross_unit_price": 10}),
        )
        .expect("a special item");
        let items = [shipping.clone(), shipping];
        let by_category = special_items_by_category(items.iter());
        assert_eq!(
            by_category.keys().collect::<Vec<_>>(),
            ["shipping", "shipping_2"]
        );
        assert_eq!(by_category["shipping"]["unit_price_gross"], json!(10));
        assert_eq!(by_category["shipping"]["description"], json!("Shipping"));
    }
}

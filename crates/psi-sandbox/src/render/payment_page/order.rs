//! The order card: every shop basket with its items, special items,
//! discounts, VAT and totals, and the amount due.

use super::html::{money, number};
use super::text::{Lang, Text};
use crate::html::escape;
use psi_payment_page::types::{BasketItem, OrderData, ShopBasket, SpecialItem};
use psi_runtime::Decimal;
use std::fmt::Write;

/// The currency code of the order, or nothing when none was given.
pub(super) fn currency(order: Option<&OrderData>) -> String {
    order
        .and_then(|order| order.currency.as_ref())
        .map(|currency| currency.to_string())
        .unwrap_or_default()
}

/// The sum of the baskets' gross amounts, exact.
pub(super) fn amount_due(order: Option<&OrderData>) -> Decimal {
    order
        .map(|order| {
            let amounts = order
                .shop_baskets
                .iter()
                .filter_map(|basket| basket.gross_amount);
            crate::amounts::sum(amounts)
        })
        .unwrap_or_default()
}

/// An amount with its currency: `43.80 EUR`.
pub(super) fn priced(amount: Decimal, currency: &str, lang: Lang) -> String {
    let amount = money(amount, lang);
    if currency.is_empty() {
        amount
    } else {
        format!("{amount} {}", escape(currency))
    }
}

pub(super) fn card(order: Option<&OrderData>, lang: Lang) -> String {
    let text = lang.text();
    let currency = currency(order);
    let baskets = order
        .map(|order| order.shop_baskets.as_slice())
        .unwrap_or_default();
    let mut out = format!("<section class=\"card\" aria-labelledby=\"order-heading\">\n<h2 id=\"order-heading\">{}</h2>\n", text.your_order);
    for basket in baskets {
        out.push_str(&basket_html(basket, baskets.len() > 1, &currency, lang));
    }
    let _ = write!(
        out,
        "<div class=\"due\"><span>{}</span><span id=\"amount-due\">{}</span></div>\n\
         <p class=\"muted\">{}</p>\n</section>\n",
        text.amount_due,
        priced(amount_due(order), &currency, lang),
        text.prices_note,
    );
    out
}

fn basket_html(basket: &ShopBasket, named: bool, currency: &str, lang: Lang) -> String {
    let text = lang.text();
    let mut out = String::from("<div class=\"basket\">\n");
    if named {
        let shop = basket.partner_shop_id.as_deref().unwrap_or_default();
        let _ = write!(out, "<h3>{} {}", text.shop, escape(shop));
        if let Some(order_id) = &basket.shop_transaction_id {
            let _ = write!(
                out,
                " <span class=\"muted\">· {} {}</span>",
                text.shop_order,
                escape(order_id)
            );
        }
        out.push_str("</h3>\n");
    }
    let _ = write!(
        out,
        "<table>\n<thead><tr><th>{}</th><th class=\"num\">{}</th><th class=\"num\">{}</th>\
         <th class=\"num\">{}</th><th class=\"num\">{}</th></tr></thead>\n<tbody>\n",
        text.item, text.quantity, text.unit_price, text.discount, text.total
    );
    for item in &basket.items {
        out.push_str(&item_row(&Line::from(item), "item", lang));
    }
    for item in &basket.special_items {
        out.push_str(&item_row(&Line::from(item), "special", lang));
    }
    out.push_str("</tbody>\n</table>\n");
    out.push_str(&totals(basket, currency, lang));
    out.push_str("</div>\n");
    out
}

/// The fields of an item or a special item that the table shows.
struct Line<'a> {
    name: Option<&'a str>,
    description: Option<&'a str>,
    article_number: Option<&'a str>,
    unit: Option<&'a str>,
    quantity: Option<Decimal>,
    tax_rate: Option<Decimal>,
    gross_unit_price: Option<Decimal>,
    gross_unit_discount: Option<Decimal>,
    gross_total_price: Option<Decimal>,
}

impl<'a> From<&'a BasketItem> for Line<'a> {
    fn from(item: &'a BasketItem) -> Self {
        Line {
            name: item.name.as_deref(),
            description: item.description.as_deref(),
            article_number: item.article_number.as_deref(),
            unit: item.unit.as_deref(),
            quantity: item.quantity,
            tax_rate: item.tax_rate,
            gross_unit_price: item.gross_unit_price,
            gross_unit_discount: item.gross_unit_discount,
            gross_total_price: item.gross_total_price,
        }
    }
}

impl<'a> From<&'a SpecialItem> for Line<'a> {
    fn from(item: &'a SpecialItem) -> Self {
        Line {
            name: item.name.as_deref().or(item.category.as_deref()),
            description: item.description.as_deref(),
            article_number: item.article_number.as_deref(),
            unit: item.unit.as_deref(),
            quantity: item.quantity,
            tax_rate: item.tax_rate,
            gross_unit_price: item.gross_unit_price,
            gross_unit_discount: None,
            gross_total_price: item.gross_total_price,
        }
    }
}

fn item_row(line: &Line, class: &str, lang: Lang) -> String {
    let text = lang.text();
    let amount = |value: Option<Decimal>| value.map(|v| money(v, lang)).unwrap_or_default();
    let mut name = escape(line.name.unwrap_or(text.nothing_given));
    let mut details = Vec::new();
    if let Some(description) = line.description {
        details.push(escape(description));
    }
    if let Some(article) = line.article_number {
        details.push(format!("{} {}", text.article, escape(article)));
    }
    if let Some(rate) = line.tax_rate {
        details.push(format!("{} {} %", text.vat, number(rate, lang)));
    }
    if !details.is_empty() {
        let _ = write!(
            name,
            "<br><span class=\"muted\">{}</span>",
            details.join(" · ")
        );
    }
    let quantity = line.quantity.map(|q| number(q, lang)).unwrap_or_default();
    let unit = line
        .unit
        .map(|unit| format!(" {}", escape(unit)))
        .unwrap_or_default();
    format!(
        "<tr class=\"{class}\"><td>{name}</td><td class=\"num\">{quantity}{unit}</td>\
         <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        amount(line.gross_unit_price),
        amount(line.gross_unit_discount),
        amount(line.gross_total_price),
    )
}

/// Net total, VAT per rate and the basket's gross amount.
fn totals(basket: &ShopBasket, currency: &str, lang: Lang) -> String {
    let text: &Text = lang.text();
    let mut rows = String::new();
    if let Some(net) = net_total(basket) {
        let _ = writeln!(
            rows,
            "<tr><td>{}</td><td class=\"num\">{}</td></tr>",
            text.net_total,
            priced(net, currency, lang)
        );
    }
    for vat in &basket.vats {
        if let Some(tax) = vat.tax_amount {
            let rate = vat
                .tax_rate
                .map(|rate| format!(" {} %", number(rate, lang)))
                .unwrap_or_default();
            let _ = writeln!(
                rows,
                "<tr><td>{}{rate}</td><td class=\"num\">{}</td></tr>",
                text.vat,
                priced(tax, currency, lang)
            );
        }
    }
    if let Some(gross) = basket.gross_amount {
        let _ = writeln!(
            rows,
            "<tr class=\"grand\"><td>{}</td><td class=\"num\">{}</td></tr>",
            text.basket_total,
            priced(gross, currency, lang)
        );
    }
    format!("<table class=\"totals\">\n{rows}</table>\n")
}

/// The VAT table's net amounts when the basket has one, else the lines' net
/// totals; `None` when the request gives neither.
fn net_total(basket: &ShopBasket) -> Option<Decimal> {
    let from_vats: Vec<Decimal> = basket
        .vats
        .iter()
        .filter_map(|vat| vat.net_amount)
        .collect();
    if !from_vats.is_empty() {
        return Some(crate::amounts::sum(from_vats));
    }
    let lines: Vec<Decimal> = basket
        .items
        .iter()
        .filter_map(|item| item.net_total_price)
        .chain(
            basket
                .special_items
                .iter()
                .filter_map(|item| item.net_total_price),
        )
        .collect();
    (!lines.is_empty()).then(|| crate::amounts::sum(lines))
}

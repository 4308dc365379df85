//! The invoice of a transaction, rendered as the correspondence retrieval
//! serves it: PDF, EML (RFC 5322) and HTML.
//!
//! Everything here is a pure function of a [`Transaction`] and the seller,
//! so the three formats always tell the same story: seller, buyer address,
//! items, special items, VAT lines, gross total, due date and transaction id.

use crate::amounts;
use crate::models::transaction::Transaction;
use chrono::NaiveDate;
use pdf_writer::{Content, Finish, Name, Pdf, Rect, Ref, Str, TextStr};
use psi_payment_page::types::{Address, BasketItem, Buyer, SpecialItem};
use psi_runtime::Decimal;
use psi_runtime::RoundingStrategy;
use psi_shop_config::types::ShopConfiguration;
use std::collections::BTreeMap;

/// The seller's name when the shop has no stored shop configuration.
pub const SANDBOX_SHOP_NAME: &str = "Sandbox shop";

/// Who issues the invoice.
#[derive(Debug, Clone, PartialEq)]
pub struct Seller {
    pub name: String,
    pub address_lines: Vec<String>,
    /// VAT id or tax number, when known.
    pub tax_id: Option<String>,
    /// The sender of the EML.
    pub email: String,
}

impl Seller {
    /// The seller when the shop has no stored shop configuration.
    pub fn sandbox() -> Self {
        Self {
            name: SANDBOX_SHOP_NAME.to_owned(),
            address_lines: vec![
                "Sandboxstrasse 1".to_owned(),
                "10115 Berlin".to_owned(),
                "DE".to_owned(),
            ],
            tax_id: None,
            email: "invoices@sandbox.example".to_owned(),
        }
    }

    /// The seller a stored shop configuration describes: its legal name,
    /// address, tax identifier and customer service address.
    pub fn from_shop_configuration(configuration: &ShopConfiguration) -> Self {
        let address = &configuration.address;
        let street: Vec<&str> = [
            Some(address.street.as_str()),
            address.street_number.as_deref(),
        ]
        .into_iter()
        .flatten()
        .collect();
        let mut address_lines = vec![street.join(" ")];
        address_lines.extend(address.street_additional.clone());
        address_lines.push(format!("{} {}", address.postal_code, address.city));
        address_lines.push(address.country_code.to_string());
        let legal = &configuration.legal;
        let email = configuration
            .contacts
            .as_ref()
            .and_then(|c| c.customer_service.as_ref())
            .map(|c| c.email.clone());
        Self {
            name: legal.name.clone(),
            address_lines,
            tax_id: legal
                .vat_id_number
                .clone()
                .or_else(|| legal.tax_number.clone()),
            email: email.unwrap_or_else(|| Self::sandbox().email),
        }
    }
}

/// One priced line of the invoice (an item or a special item).
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub description: String,
    pub quantity: Decimal,
    pub unit_price_gross: Decimal,
    /// Per unit, negative for a discount.
    pub unit_discount_gross: Option<Decimal>,
    pub total_gross: Decimal,
    pub net_total: Option<Decimal>,
    pub tax_rate: Option<Decimal>,
    pub special: bool,
}

/// The VAT owed at one rate.
#[derive(Debug, Clone, PartialEq)]
pub struct VatLine {
    pub tax_rate: Decimal,
    pub net_amount: Decimal,
    pub tax_amount: Decimal,
}

/// What the invoice says, whatever its format.
#[derive(Debug, Clone, PartialEq)]
pub struct Invoice {
    /// The correspondence id doubles as the invoice number.
    pub number: String,
    pub transaction_id: String,
    pub order_references: Vec<String>,
    pub issued: NaiveDate,
    pub issued_at: chrono::DateTime<chrono::FixedOffset>,
    pub due: NaiveDate,
    pub currency: String,
    pub seller: Seller,
    pub buyer_name: String,
    pub buyer_address: Vec<String>,
    pub buyer_email: Option<String>,
    pub lines: Vec<Line>,
    pub vats: Vec<VatLine>,
    pub gross_total: Decimal,
}

impl Invoice {
    pub fn of(transaction: &Transaction, seller: Seller) -> Self {
        let baskets = transaction.baskets();
        let mut lines: Vec<Line> = baskets
            .iter()
            .flat_map(|b| b.items.iter().map(item_line))
            .collect();
        lines.extend(
            baskets
                .iter()
                .flat_map(|b| b.special_items.iter().map(special_line)),
        );
        let declared = baskets.iter().flat_map(|b| b.vats.iter());
        let declared: Vec<_> = declared
            .filter_map(|v| Some((v.tax_rate?, v.net_amount?, v.tax_amount?)))
            .collect();
        let vats = if declared.is_empty() {
            vats_of_lines(&lines)
        } else {
            vats_by_rate(declared)
        };
        let (buyer_name, buyer_address, buyer_email) = buyer_of(transaction);
        Self {
            number: transaction.correspondence_id.to_string(),
            transaction_id: transaction.id.to_string(),
            order_references: baskets
                .iter()
                .filter_map(|b| b.shop_transaction_id.clone())
                .collect(),
            issued: transaction.created.date_naive(),
            issued_at: transaction.created,
            due: transaction.due_date,
            currency: transaction.currency(),
            seller,
            buyer_name,
            buyer_address,
            buyer_email,
            lines,
            vats,
            gross_total: amounts::sum(baskets.iter().filter_map(|b| b.gross_amount)),
        }
    }

    fn order_reference(&self) -> String {
        if self.order_references.is_empty() {
            self.transaction_id.clone()
        } else {
            self.order_references.join(", ")
        }
    }

    fn amount(&self, amount: Decimal) -> String {
        format!("{} {}", money(amount), self.currency)
    }

    fn subject(&self) -> String {
        format!(
            "Invoice {} for order {}",
            self.number,
            self.order_reference()
        )
    }
}

fn item_line(item: &BasketItem) -> Line {
    let quantity = item.quantity.unwrap_or(Decimal::ONE);
    let unit = item.gross_unit_price.unwrap_or_default();
    let discount = item.gross_unit_discount.filter(|d| !d.is_zero());
    Line {
        description: text_of(
            &[&item.name, &item.description, &item.article_number],
            "Item",
        ),
        quantity,
        unit_price_gross: unit,
        unit_discount_gross: discount,
        total_gross: item.gross_total_price.unwrap_or_else(|| {
            amounts::mul(amounts::add(unit, discount.unwrap_or_default()), quantity)
        }),
        net_total: item.net_total_price,
        tax_rate: item.tax_rate,
        special: false,
    }
}

fn special_line(item: &SpecialItem) -> Line {
    let quantity = item.quantity.unwrap_or(Decimal::ONE);
    let unit = item.gross_unit_price.unwrap_or_default();
    Line {
        description: text_of(
            &[&item.name, &item.description, &item.category],
            "Special item",
        ),
        quantity,
        unit_price_gross: unit,
        unit_discount_gross: None,
        total_gross: item
            .gross_total_price
            .unwrap_or_else(|| amounts::mul(unit, quantity)),
        net_total: item.net_total_price,
        tax_rate: item.tax_rate,
        special: true,
    }
}

fn text_of(candidates: &[&Option<String>], fallback: &str) -> String {
    candidates
        .iter()
        .find_map(|c| c.as_deref().filter(|t| !t.trim().is_empty()))
        .unwrap_or(fallback)
        .to_owned()
}

/// The baskets' declared VAT lines, added up per rate across shops.
fn vats_by_rate(declared: Vec<(Decimal, Decimal, Decimal)>) -> Vec<VatLine> {
    let mut by_rate: BTreeMap<Decimal, (Decimal, Decimal)> = BTreeMap::new();
    for (rate, net, tax) in declared {
        let sums = by_rate.entry(rate.normalize()).or_default();
        sums.0 = amounts::add(sums.0, net);
        sums.1 = amounts::add(sums.1, tax);
    }
    by_rate
        .into_iter()
        .map(|(tax_rate, (net_amount, tax_amount))| VatLine {
            tax_rate,
            net_amount,
            tax_amount,
        })
        .collect()
}

/// Without declared VAT lines the invoice still states the VAT: from each
/// line's net total, or its gross total divided by (1 + rate). A line
/// whose net cannot be derived (a rate of -100 % divides by zero) states
/// no VAT; the session and control API checks refuse such rates anyway.
fn vats_of_lines(lines: &[Line]) -> Vec<VatLine> {
    let derived = lines.iter().filter_map(|line| {
        let rate = line.tax_rate?;
        let net = match line.net_total {
            Some(net) => net,
            None => {
                let divisor = rate
                    .checked_div(Decimal::ONE_HUNDRED)?
                    .checked_add(Decimal::ONE)?;
                rounded(line.total_gross.checked_div(divisor)?)
            }
        };
        Some((rate, net, amounts::sub(line.total_gross, net)))
    });
    vats_by_rate(derived.collect())
}

fn buyer_of(transaction: &Transaction) -> (String, Vec<String>, Option<String>) {
    let request = transaction.request.get();
    let buyer = request.order_data.as_ref().and_then(|o| o.buyer.as_ref());
    let (name, address, contact) = match buyer {
        Some(Buyer::PersonBuyer(person)) => {
            let names = [
                &person.person.title,
                &person.person.first_name,
                &person.person.last_name,
            ];
            let name: Vec<&str> = names.iter().filter_map(|n| n.as_deref()).collect();
            (
                name.join(" "),
                person.billing_address.as_ref(),
                person.contact.as_ref(),
            )
        }
        Some(Buyer::CompanyBuyer(company)) => (
            company.company.name.clone().unwrap_or_default(),
            company.billing_address.as_ref(),
            company.contact.as_ref(),
        ),
        None => (String::new(), None, None),
    };
    let name = if name.trim().is_empty() {
        "Buyer".to_owned()
    } else {
        name
    };
    (
        name,
        address.map(address_lines).unwrap_or_default(),
        contact.and_then(|c| c.email.clone()),
    )
}

fn address_lines(address: &Address) -> Vec<String> {
    let joined = |parts: [&Option<String>; 2]| {
        let parts: Vec<&str> = parts.iter().filter_map(|p| p.as_deref()).collect();
        parts.join(" ")
    };
    let country = address.country_code.as_ref().map(|c| c.to_string());
    let lines = [
        joined([&address.street, &address.street_number]),
        address.street_addition.clone().unwrap_or_default(),
        joined([&address.zip_code, &address.city]),
        country.unwrap_or_default(),
    ];
    lines.into_iter().filter(|l| !l.trim().is_empty()).collect()
}

fn rounded(amount: Decimal) -> Decimal {
    amount.round_dp_with_strategy(2, RoundingStrategy::MidpointAwayFromZero)
}

/// Two decimals, as money is printed: 43.8 -> `43.80`.
pub fn money(amount: Decimal) -> String {
    let mut amount = rounded(amount);
    amount.rescale(2);
    amount.to_string()
}

/// `2`, `19`, `0.5`: no trailing zeros.
fn number(value: Decimal) -> String {
    value.normalize().to_string()
}

fn line_text(invoice: &Invoice, line: &Line) -> String {
    let mut text = format!(
        "{} x {} at {}",
        number(line.quantity),
        line.description,
        invoice.amount(line.unit_price_gross)
    );
    if let Some(discount) = line.unit_discount_gross {
        text.push_str(&format!(", discount {} per unit", invoice.amount(discount)));
    }
    if let Some(rate) = line.tax_rate {
        text.push_str(&format!(", VAT {} %", number(rate)));
    }
    text.push_str(&format!(" = {}", invoice.amount(line.total_gross)));
    text
}

fn vat_text(invoice: &Invoice, vat: &VatLine) -> String {
    format!(
        "VAT {} %: net {}, tax {}",
        number(vat.tax_rate),
        invoice.amount(vat.net_amount),
        invoice.amount(vat.tax_amount)
    )
}

fn total_text(invoice: &Invoice) -> String {
    format!("Total gross: {}", invoice.amount(invoice.gross_total))
}

fn payment_text(invoice: &Invoice) -> String {
    format!(
        "Please pay {} by {} quoting transaction id {}.",
        invoice.amount(invoice.gross_total),
        invoice.due,
        invoice.transaction_id
    )
}

/// The invoice as plain text lines: the EML body and the PDF page.
pub fn text_lines(invoice: &Invoice) -> Vec<String> {
    let seller = &invoice.seller;
    let mut lines = vec!["INVOICE".to_owned(), String::new(), seller.name.clone()];
    lines.extend(seller.address_lines.iter().cloned());
    lines.extend(seller.tax_id.iter().map(|id| format!("Tax id: {id}")));
    lines.extend([
        String::new(),
        "Bill to:".to_owned(),
        invoice.buyer_name.clone(),
    ]);
    lines.extend(invoice.buyer_address.iter().cloned());
    lines.extend([
        String::new(),
        format!("Invoice number: {}", invoice.number),
        format!("Invoice date: {}", invoice.issued),
        format!("Transaction id: {}", invoice.transaction_id),
        format!("Order: {}", invoice.order_reference()),
        format!("Due date: {}", invoice.due),
        String::new(),
        "Items".to_owned(),
    ]);
    lines.extend(
        invoice
            .lines
            .iter()
            .filter(|l| !l.special)
            .map(|l| line_text(invoice, l)),
    );
    if invoice.lines.iter().any(|l| l.special) {
        lines.extend([String::new(), "Special items".to_owned()]);
        lines.extend(
            invoice
                .lines
                .iter()
                .filter(|l| l.special)
                .map(|l| line_text(invoice, l)),
        );
    }
    lines.push(String::new());
    lines.extend(invoice.vats.iter().map(|v| vat_text(invoice, v)));
    lines.extend([total_text(invoice), String::new(), payment_text(invoice)]);
    lines
}

/// The invoice as an RFC 5322 message (CRLF line ends, UTF-8 text body).
///
/// No header carries a stored text raw: names and the subject are plain
/// words or RFC 2047 encoded words, and an address is written only when it
/// is a plain `local@domain` ([`header_address`]), so no CR or LF from a
/// request can start a header of its own.
pub fn eml(invoice: &Invoice) -> Vec<u8> {
    let to = match invoice.buyer_email.as_deref().and_then(header_address) {
        Some(email) => format!("{} <{email}>", display_name(&invoice.buyer_name)),
        // A group with no members: the header stays well-formed without an address.
        None => "undisclosed-recipients:;".to_owned(),
    };
    let sandbox_seller = Seller::sandbox().email;
    let from = header_address(&invoice.seller.email).unwrap_or(&sandbox_seller);
    let headers = [
        format!("From: {} <{from}>", display_name(&invoice.seller.name)),
        format!("To: {to}"),
        format!("Subject: {}", header_text(&invoice.subject())),
        format!("Date: {}", invoice.issued_at.to_rfc2822()),
        format!("Message-ID: <{}@sandbox.example>", invoice.number),
        "MIME-Version: 1.0".to_owned(),
        "Content-Type: text/plain; charset=utf-8".to_owned(),
        "Content-Transfer-Encoding: 8bit".to_owned(),
    ];
    let mut message = headers.join("\r\n");
    message.push_str("\r\n\r\n");
    message.push_str(&text_lines(invoice).join("\r\n"));
    message.push_str("\r\n");
    message.into_bytes()
}

/// A display name: plain when it is ASCII words, an RFC 2047 encoded word
/// otherwise (a name such as `Möbel & Co.`).
fn display_name(name: &str) -> String {
    let plain = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || " -_.".contains(c));
    if plain {
        name.to_owned()
    } else {
        encoded_word(name)
    }
}

/// `address` when it is a plain `local@domain` of visible ASCII without
/// the characters that end or group addresses; `None` otherwise.
fn header_address(address: &str) -> Option<&str> {
    let visible = address
        .bytes()
        .all(|b| b.is_ascii_graphic() && !b"<>,;:\"()[]\\".contains(&b));
    let (local, domain) = address.split_once('@')?;
    (visible && !local.is_empty() && !domain.is_empty() && !domain.contains('@')).then_some(address)
}

fn header_text(text: &str) -> String {
    if text.chars().all(|c| c.is_ascii() && !c.is_ascii_control()) {
        text.to_owned()
    } else {
        encoded_word(text)
    }
}

/// RFC 2047 Q encoding in UTF-8.
fn encoded_word(text: &str) -> String {
    let mut encoded = String::from("=?utf-8?Q?");
    for byte in text.bytes() {
        match byte {
            b' ' => encoded.push('_'),
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'!' | b'*' | b'+' | b'-' | b'/' => {
                encoded.push(byte as char)
            }
            _ => encoded.push_str(&format!("={byte:02X}")),
        }
    }
    encoded.push_str("?=");
    encoded
}

/// The invoice as a small standalone HTML document.
pub fn html(invoice: &Invoice) -> String {
    let e = crate::html::escape;
    let seller = &invoice.seller;
    let mut seller_lines = vec![e(&seller.name)];
    seller_lines.extend(seller.address_lines.iter().map(|l| e(l)));
    seller_lines.extend(seller.tax_id.iter().map(|id| format!("Tax id: {}", e(id))));
    let mut buyer_lines = vec![e(&invoice.buyer_name)];
    buyer_lines.extend(invoice.buyer_address.iter().map(|l| e(l)));
    let rows: String = invoice
        .lines
        .iter()
        .map(|line| html_row(invoice, line))
        .collect();
    let vats: String = invoice
        .vats
        .iter()
        .map(|v| format!("<p>{}</p>\n", e(&vat_text(invoice, v))))
        .collect();
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n</head>\n<body>\n\
         <h1>Invoice</h1>\n<address>{seller}</address>\n<h2>Bill to</h2>\n<address>{buyer}</address>\n\
         <dl>\n<dt>Invoice number</dt><dd>{number}</dd>\n<dt>Invoice date</dt><dd>{issued}</dd>\n\
         <dt>Transaction id</dt><dd>{transaction}</dd>\n<dt>Order</dt><dd>{order}</dd>\n<dt>Due date</dt><dd>{due}</dd>\n</dl>\n\
         <table>\n<tr><th>Quantity</th><th>Description</th><th>Unit price</th><th>Discount per unit</th><th>VAT</th><th>Total</th></tr>\n\
         {rows}</table>\n{vats}<p><strong>{total}</strong></p>\n<p>{payment}</p>\n</body>\n</html>\n",
        title = e(&invoice.subject()),
        seller = seller_lines.join("<br>"),
        buyer = buyer_lines.join("<br>"),
        number = e(&invoice.number),
        issued = invoice.issued,
        transaction = e(&invoice.transaction_id),
        order = e(&invoice.order_reference()),
        due = invoice.due,
        total = e(&total_text(invoice)),
        payment = e(&payment_text(invoice)),
    )
}

fn html_row(invoice: &Invoice, line: &Line) -> String {
    let discount = line
        .unit_discount_gross
        .map(|d| invoice.amount(d))
        .unwrap_or_default();
    let rate = line
        .tax_rate
        .map(|r| format!("{} %", number(r)))
        .unwrap_or_default();
    format!(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        number(line.quantity),
        crate::html::escape(&line.description),
        invoice.amount(line.unit_price_gross),
        discount,
        rate,
        invoice.amount(line.total_gross)
    )
}

const PAGE_WIDTH: f32 = 595.0;
const PAGE_HEIGHT: f32 = 842.0;
const MARGIN: f32 = 56.0;
const FONT_SIZE: f32 = 10.0;
const LEADING: f32 = 14.0;

/// The invoice as a PDF: A4 pages of Helvetica text, as many as the lines
/// need. The content streams stay uncompressed, so the amounts are
/// readable in the file itself.
pub fn pdf(invoice: &Invoice) -> Vec<u8> {
    let lines = text_lines(invoice);
    let per_page = ((PAGE_HEIGHT - 2.0 * MARGIN) / LEADING) as usize;
    let pages: Vec<&[String]> = lines.chunks(per_page.max(1)).collect();
    let catalog_id = Ref::new(1);
    let page_tree_id = Ref::new(2);
    let font_id = Ref::new(3);
    let info_id = Ref::new(4);
    let font_name = Name(b"F1");
    // Two objects per page: the page and its content stream.
    let page_ids: Vec<(Ref, Ref)> = (0..pages.len() as i32)
        .map(|i| (Ref::new(5 + 2 * i), Ref::new(6 + 2 * i)))
        .collect();

    let mut pdf = Pdf::new();
    pdf.catalog(catalog_id).pages(page_tree_id);
    pdf.pages(page_tree_id)
        .kids(page_ids.iter().map(|(page, _)| *page))
        .count(pages.len() as i32);
    let title = invoice.subject();
    pdf.document_info(info_id)
        .title(TextStr(&title))
        .producer(TextStr("psi-sandbox"));
    // A standard 14 font needs no embedding; WinAnsiEncoding covers the
    // Latin-1 letters of German addresses.
    pdf.type1_font(font_id)
        .base_font(Name(b"Helvetica"))
        .encoding_predefined(Name(b"WinAnsiEncoding"));
    for (page_lines, (page_id, content_id)) in pages.iter().zip(&page_ids) {
        let mut page = pdf.page(*page_id);
        page.media_box(Rect::new(0.0, 0.0, PAGE_WIDTH, PAGE_HEIGHT));
        page.parent(page_tree_id);
        page.contents(*content_id);
        page.resources().fonts().pair(font_name, font_id);
        page.finish();
        pdf.stream(*content_id, &page_content(page_lines, font_name));
    }
    pdf.finish()
}

fn page_content(lines: &[String], font_name: Name) -> Vec<u8> {
    let mut content = Content::new();
    content.begin_text();
    content.set_font(font_name, FONT_SIZE);
    content.set_leading(LEADING);
    content.next_line(MARGIN, PAGE_HEIGHT - MARGIN);
    for line in lines {
        content.show(Str(&win_ansi(line)));
        content.next_line_using_leading();
    }
    content.end_text();
    content.finish().to_vec()
}

/// Text in the font's WinAnsiEncoding: Latin-1 letters keep their byte,
/// the euro sign is 0x80, anything else the font cannot show becomes `?`.
fn win_ansi(text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| match c {
            ' '..='~' => c as u8,
            '\u{a0}'..='\u{ff}' => c as u32 as u8,
            '€' => 0x80,
            _ => b'?',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The provider's documented consistent basket (gross 43.8), bought by Erika.
    fn transaction() -> Transaction {
        let request = serde_json::from_value(serde_json::json!({
            "order_data": {
                "partner_transaction_id": "order-100045",
                "currency": "EUR",
                "buyer": {
                    "billing_address": {"street": "Hauptstraße", "street_number": "1", "zip_code": "10115", "city": "Berlin", "country_code": "DE"},
                    "contact": {"email": "erika@example.com"},
                    "person": {"first_name": "Erika", "last_name": "Mustermann"}
                },
                "shop_baskets": [{
                    "partner_shop_id": "shop-1",
                    "shop_transaction_id": "SO-100045",
                    "gross_amount": 43.8,
                    "items": [{"name": "Cotton T-shirt", "quantity": 2, "tax_rate": 19, "gross_unit_price": 18.45,
                               "gross_unit_discount": -1.55, "gross_total_price": 33.8, "net_total_price": 28.4}],
                    "special_items": [{"category": "shipping", "name": "Shipping", "quantity": 1, "tax_rate": 19,
                                       "gross_unit_price": 10, "gross_total_price": 10, "net_total_price": 8.4}],
                    "vats": [{"tax_rate": 19, "net_amount": 36.8, "tax_amount": 7}]
                }]
            }
        }))
        .expect("a valid session request");
        Transaction {
            id: crate::models::transaction::TransactionId::parse("12-34567890123456789")
                .expect("an id"),
            session_id: uuid::Uuid::nil(),
            created: chrono::DateTime::parse_from_rfc3339("2024-05-13T10:15:30+02:00")
                .expect("a timestamp"),
            request: crate::models::transaction::StoredRequest::new(&request),
            payment_option: "OPEN_INVOICE".into(),
            transfer_type: "BANK_TRANSFER".into(),
            correspondence_id: "7f3c2a10-5b8e-4d6f-9a21-3c4b5d6e7f80"
                .parse()
                .expect("a UUID"),
            due_date: NaiveDate::from_ymd_opt(2024, 5, 27).expect("a date"),
        }
    }

    fn invoice() -> Invoice {
        Invoice::of(&transaction(), Seller::sandbox())
    }

    fn contains(haystack: &[u8], needle: &str) -> bool {
        haystack
            .windows(needle.len())
            .any(|window| window == needle.as_bytes())
    }

    #[test]
    fn money_has_two_decimals() {
        assert_eq!(money(Decimal::new(438, 1)), "43.80");
        assert_eq!(money(Decimal::new(-155, 2)), "-1.55");
        assert_eq!(money(Decimal::new(10, 0)), "10.00");
        assert_eq!(money(Decimal::new(12345, 3)), "12.35");
    }

    #[test]
    fn the_invoice_holds_the_transaction() {
        let invoice = invoice();
        assert_eq!(invoice.gross_total, Decimal::new(438, 1));
        assert_eq!(invoice.buyer_name, "Erika Mustermann");
        assert_eq!(
            invoice.buyer_address,
            ["Hauptstraße 1", "10115 Berlin", "DE"]
        );
        assert_eq!(invoice.lines.len(), 2);
        assert!(invoice.lines[1].special);
        assert_eq!(
            invoice.vats,
            [VatLine {
                tax_rate: Decimal::new(19, 0),
                net_amount: Decimal::new(368, 1),
                tax_amount: Decimal::new(7, 0)
            }]
        );
    }

    #[test]
    fn without_declared_vats_they_come_from_the_lines() {
        let mut transaction = transaction();
        let mut request = transaction.request.get();
        let order_data = request.order_data.as_mut().expect("order data");
        order_data.shop_baskets[0].vats.clear();
        transaction.request = crate::models::transaction::StoredRequest::new(&request);
        let invoice = Invoice::of(&transaction, Seller::sandbox());
        assert_eq!(invoice.vats.len(), 1);
        assert_eq!(invoice.vats[0].net_amount, Decimal::new(368, 1));
        assert_eq!(invoice.vats[0].tax_amount, Decimal::new(7, 0));
    }

    #[test]
    fn the_text_names_everything_an_invoice_needs() {
        let text = text_lines(&invoice()).join("\n");
        for expected in [
            "Sandbox shop",
            "Erika Mustermann",
            "Hauptstraße 1",
            "2 x Cotton T-shirt at 18.45 EUR, discount -1.55 EUR per unit, VAT 19 % = 33.80 EUR",
            "1 x Shipping at 10.00 EUR, VAT 19 % = 10.00 EUR",
            "VAT 19 %: net 36.80 EUR, tax 7.00 EUR",
            "Total gross: 43.80 EUR",
            "Due date: 2024-05-27",
            "Transaction id: 12-34567890123456789",
            "Order: SO-100045",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in\n{text}");
        }
    }

    #[test]
    fn the_pdf_is_a_complete_file_with_the_total() {
        let pdf = pdf(&invoice());
        assert!(pdf.starts_with(b"%PDF-"));
        assert!(pdf.trim_ascii_end().ends_with(b"%%EOF"));
        assert!(contains(&pdf, "Total gross: 43.80 EUR"));
        assert!(contains(&pdf, "/Helvetica"));
        assert!(contains(&pdf, "/WinAnsiEncoding"));
        // "Hauptstraße 1" is not ASCII: a hex string of its WinAnsi bytes (ß = DF).
        let hex: String = win_ansi("Hauptstraße 1")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let pdf_lower = String::from_utf8_lossy(&pdf).to_lowercase();
        assert!(
            pdf_lower.contains(&format!("<{hex}>")),
            "no hex string {hex}"
        );
    }

    #[test]
    fn a_long_invoice_takes_several_pages() {
        let mut transaction = transaction();
        let mut request = transaction.request.get();
        let basket = &mut request
            .order_data
            .as_mut()
            .expect("order data")
            .shop_baskets[0];
        let item = basket.items[0].clone();
        basket.items = vec![item; 40];
        transaction.request = crate::models::transaction::StoredRequest::new(&request);
        let pdf = pdf(&Invoice::of(&transaction, Seller::sandbox()));
        assert!(contains(&pdf, "/Count 2"));
    }

    #[test]
    fn the_eml_is_an_rfc_5322_message() {
        let eml = String::from_utf8(eml(&invoice())).expect("UTF-8");
        let (head, body) = eml
            .split_once("\r\n\r\n")
            .expect("a blank line after the headers");
        let headers: Vec<&str> = head.split("\r\n").collect();
        assert!(headers.contains(&"From: Sandbox shop <invoices@sandbox.example>"));
        assert!(headers.contains(&"To: Erika Mustermann <erika@example.com>"));
        assert!(headers.contains(
            &"Subject: Invoice 7f3c2a10-5b8e-4d6f-9a21-3c4b5d6e7f80 for order SO-100045"
        ));
        assert!(headers.contains(&"Date: Mon, 13 May 2024 10:15:30 +0200"));
        assert!(headers.contains(&"MIME-Version: 1.0"));
        assert!(headers.contains(&"Content-Type: text/plain; charset=utf-8"));
        assert!(body.contains("Total gross: 43.80 EUR"));
        assert!(
            !body.replace("\r\n", "").contains('\n'),
            "bare LF in the body"
        );
    }

    #[test]
    fn no_stored_text_writes_a_header_of_its_own() {
        let mut invoice = invoice();
        invoice.buyer_email = Some("erika@example.com\r\nBcc: all@example.com".to_owned());
        invoice.buyer_name = "Erika\r\nX-Injected: 1".to_owned();
        invoice.seller.email = "shop@example.com\nReply-To: evil@example.com".to_owned();
        invoice.seller.name = "Shop\rX-Other: 2".to_owned();
        let eml = String::from_utf8(eml(&invoice)).expect("UTF-8");
        let (head, _) = eml.split_once("\r\n\r\n").expect("a blank line");
        let headers: Vec<&str> = head.split("\r\n").collect();
        assert_eq!(headers.len(), 8, "{headers:?}");
        for header in &headers {
            assert!(!header.contains(['\r', '\n']), "{header:?}");
            let name = header.split(':').next().unwrap_or_default();
            assert!(
                [
                    "From",
                    "To",
                    "Subject",
                    "Date",
                    "Message-ID",
                    "MIME-Version",
                    "Content-Type",
                    "Content-Transfer-Encoding"
                ]
                .contains(&name),
                "{header:?}"
            );
        }
        assert!(
            headers.contains(&"To: undisclosed-recipients:;"),
            "{headers:?}"
        );
        assert!(
            headers
                .iter()
                .any(|h| h.starts_with("From: =?utf-8?Q?Shop=0DX-Other")
                    && h.ends_with(" <invoices@sandbox.example>")),
            "{headers:?}"
        );
    }

    #[test]
    fn names_outside_ascii_become_encoded_words() {
        assert_eq!(display_name("Example Moebel"), "Example Moebel");
        assert_eq!(display_name("Möbel & Co"), "=?utf-8?Q?M=C3=B6bel_=26_Co?=");
    }

    #[test]
    fn the_html_is_escaped_and_standalone() {
        let mut seller = Seller::sandbox();
        seller.name = "Tom & <Jerry>".to_owned();
        let html = html(&Invoice::of(&transaction(), seller));
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("Tom &amp; &lt;Jerry&gt;"));
        assert!(html.contains("Total gross: 43.80 EUR"));
        assert!(html.trim_end().ends_with("</html>"));
    }
}

//! Whole pages: the checkout, a closed session, the result shown when the
//! shop gave no address to go back to, and an unknown session.

use super::form::{outcome_card, payment_card, Entered};
use super::html::{document, fill, link};
use super::order::{self, priced};
use super::people::{buyer_card, delivery_card};
use super::text::Lang;
use crate::html::escape;
use crate::models::payment_page::methods::Offer;
use crate::models::payment_page::session::Session;

/// The checkout page of an open session.
pub fn checkout(session: &Session, lang: Lang, entered: &Entered) -> String {
    let text = lang.text();
    let request = &session.request;
    let order = request.order_data.as_ref();
    let offer = Offer::for_restriction(order.and_then(|order| order.payment_method.as_ref()));
    let amount = priced(order::amount_due(order), &order::currency(order), lang);
    let reference = order
        .and_then(|order| order.partner_transaction_id.as_deref())
        .map(|id| format!("<span class=\"ref\">{} {}</span>", text.order, escape(id)))
        .unwrap_or_default();
    let body = format!(
        "<header class=\"top\"><span class=\"badge\">{badge}</span><h1>{title}</h1>{reference}</header>\n\
         <form method=\"post\" action=\"/pps/landing/{id}?lang={code}\">\n<main>\n\
         <div class=\"column\">\n{order}{payment}</div>\n\
         <div class=\"column\">\n{buyer}{delivery}{outcomes}</div>\n\
         </main>\n</form>",
        badge = text.sandbox_badge,
        title = text.title,
        id = escape(&session.id),
        code = lang.code(),
        order = order::card(order, lang),
        payment = payment_card(&offer, entered, text),
        buyer = buyer_card(order, text),
        delivery = delivery_card(order, lang),
        outcomes = outcome_card(request.url_data.as_ref(), &amount, lang),
    );
    document(lang, text.title, &body)
}

/// A session that can no longer be paid: its status and a link back to
/// the shop's matching address.
pub fn closed(session: &Session, lang: Lang) -> String {
    let text = lang.text();
    let body = with_id_and_status(text.closed_body, session);
    let back = match session.return_address().1 {
        Some(url) => format!("<p>{}</p>", link(url, text.back_to_shop)),
        None => String::new(),
    };
    message_page(lang, text.closed_title, &format!("<p>{body}</p>\n{back}"))
}

/// `template` with the session's id and status in place.
fn with_id_and_status(template: &str, session: &Session) -> String {
    fill(
        &fill(
            template,
            "id",
            &format!("<code>{}</code>", escape(&session.id)),
        ),
        "status",
        &format!(
            "<strong id=\"status\">{}</strong>",
            escape(session.status.as_str())
        ),
    )
}

/// The result of an outcome whose shop address is missing.
pub fn done(session: &Session, lang: Lang) -> String {
    let text = lang.text();
    let (field, _) = session.return_address();
    let body = with_id_and_status(text.done_body, session);
    let why = fill(
        text.done_no_redirect,
        "field",
        &format!("<code>url_data.{field}</code>"),
    );
    message_page(
        lang,
        text.done_title,
        &format!("<p>{body}</p>\n<p class=\"muted\">{why}</p>"),
    )
}

/// A short page with a heading and a paragraph or two (already HTML).
pub fn message_page(lang: Lang, title: &str, body: &str) -> String {
    let text = lang.text();
    document(
        lang,
        title,
        &format!(
            "<header class=\"top\"><span class=\"badge\">{}</span><h1>{}</h1></header>\n\
             <div class=\"message card\"><h2>{}</h2>\n{body}\n</div>",
            text.sandbox_badge,
            text.title,
            escape(title)
        ),
    )
}

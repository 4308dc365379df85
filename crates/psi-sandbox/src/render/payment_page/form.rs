//! The form: the payment methods (with the direct debit's IBAN) and the
//! sandbox's outcome buttons. Plain HTML: a radio group, labelled fields
//! and one submit button per outcome, no script.

use super::html::fill;
use super::text::{Lang, Text};
use crate::html::escape;
use crate::models::payment_page::methods::{Method, Offer};
use crate::models::payment_page::session::DECLINE_CATEGORIES;
use psi_payment_page::types::UrlData;
use std::fmt::Write;

/// What the tester entered, kept when the page is shown again. No `Debug`:
/// it holds bank details.
#[derive(Default)]
pub struct Entered {
    pub method: Option<Method>,
    pub iban: String,
    pub account_holder: String,
    /// The IBAN was refused.
    pub iban_invalid: bool,
}

pub(super) fn payment_card(offer: &Offer, entered: &Entered, text: &Text) -> String {
    let chosen = entered
        .method
        .filter(|method| offer.methods.contains(method))
        .unwrap_or(offer.methods[0]);
    let mut out = format!(
        "<section class=\"card\">\n<fieldset class=\"methods\" style=\"border:none;padding:0;margin:0\">\n\
         <legend><h2 style=\"margin:0 0 8px\">{}</h2></legend>\n",
        text.payment_method
    );
    if let Some(given) = &offer.unknown_restriction {
        let _ = writeln!(
            out,
            "<p class=\"note\">{}</p>",
            fill(text.restriction_unknown, "field", &escape(given))
        );
    }
    for &method in &offer.methods {
        let (name, hint) = text.method_label(method);
        let value = method.form_value();
        let checked = if method == chosen { " checked" } else { "" };
        let _ = writeln!(
            out,
            "<label class=\"method\" for=\"method-{value}\"><input type=\"radio\" name=\"method\" id=\"method-{value}\" value=\"{value}\"{checked}>\
             <span>{name}</span><small>{hint}</small></label>"
        );
    }
    out.push_str("</fieldset>\n");
    if offer.methods.contains(&Method::DirectDebit) {
        out.push_str(&direct_debit_fields(entered, text));
    }
    out.push_str("</section>\n");
    out
}

fn direct_debit_fields(entered: &Entered, text: &Text) -> String {
    let (invalid, error) = if entered.iban_invalid {
        (
            " aria-invalid=\"true\" aria-describedby=\"iban-error\"",
            format!(
                "<p class=\"error\" id=\"iban-error\" role=\"alert\">{}</p>",
                text.iban_invalid
            ),
        )
    } else {
        ("", String::new())
    };
    format!(
        "<fieldset>\n<legend>{direct_debit}</legend>\n\
         <div class=\"field\"><label for=\"iban\">{iban}</label>\
         <input type=\"text\" id=\"iban\" name=\"iban\" value=\"{iban_value}\" autocomplete=\"off\" spellcheck=\"false\" placeholder=\"DE89 3704 0044 0532 0130 00\"{invalid}>{error}</div>\n\
         <div class=\"field\"><label for=\"account_holder\">{holder}</label>\
         <input type=\"text\" id=\"account_holder\" name=\"account_holder\" value=\"{holder_value}\" autocomplete=\"off\"></div>\n\
         </fieldset>\n",
        direct_debit = text.direct_debit,
        iban = text.iban,
        iban_value = escape(&entered.iban),
        holder = text.account_holder,
        holder_value = escape(&entered.account_holder),
    )
}

/// The sandbox's box: one button per outcome, each with the status it
/// sets and the shop address the browser goes to.
pub(super) fn outcome_card(urls: Option<&UrlData>, amount: &str, lang: Lang) -> String {
    let text = lang.text();
    let url = |pick: fn(&UrlData) -> &Option<String>| urls.and_then(|urls| pick(urls).as_deref());
    let success = url(|u| &u.success_url);
    let failure = url(|u| &u.failure_url);
    let cancel = url(|u| &u.cancel_url);
    let mut out = format!(
        "<section class=\"card sandbox\" aria-labelledby=\"sandbox-heading\">\n\
         <h2 id=\"sandbox-heading\">{}</h2>\n<p class=\"muted\">{}</p>\n<div class=\"outcomes\">\n",
        text.sandbox_heading, text.sandbox_note
    );
    let pay = format!(
        "<button type=\"submit\" class=\"primary\" name=\"action\" value=\"pay\" id=\"pay\">{}</button>",
        fill(text.pay, "amount", amount)
    );
    out.push_str(&outcome("COMPLETED", &pay, "success_url", success, text));

    let mut options = String::new();
    for category in DECLINE_CATEGORIES {
        let value = category.as_str();
        let selected = if value == "RISK_DECISION" {
            " selected"
        } else {
            ""
        };
        let _ = write!(
            options,
            "<option value=\"{value}\"{selected}>{value}</option>"
        );
    }
    let decline = format!(
        "<div class=\"inline\"><div class=\"field\"><label for=\"category\">{}</label>\
         <select id=\"category\" name=\"category\">{options}</select></div>\
         <button type=\"submit\" class=\"danger\" name=\"action\" value=\"decline\" id=\"decline\">{}</button></div>",
        text.decline_category, text.decline
    );
    out.push_str(&outcome("ERROR", &decline, "failure_url", failure, text));
    for (status, value, label, field, target) in [
        ("CANCELED", "cancel", text.cancel, "cancel_url", cancel),
        ("EXPIRED", "expire", text.expire, "failure_url", failure),
        (
            "FRAUD_CANCELLATION_REQUESTED",
            "fraud_cancel",
            text.fraud_cancel,
            "failure_url",
            failure,
        ),
    ] {
        let button = format!("<button type=\"submit\" name=\"action\" value=\"{value}\" id=\"{value}\">{label}</button>");
        out.push_str(&outcome(status, &button, field, target, text));
    }
    out.push_str("</div>\n</section>\n");
    out
}

/// One outcome row: its control and where it leads.
fn outcome(status: &str, control: &str, field: &str, target: Option<&str>, text: &Text) -> String {
    let then = match target {
        Some(url) => format!(
            "<code>{status}</code>, {} <code>{field}</code><br><span class=\"url\">{}</span>",
            text.then,
            escape(url)
        ),
        None => format!("<code>{status}</code>, {}", text.no_address),
    };
    format!("<div class=\"outcome\">{control}<span class=\"then\">→ {then}</span></div>\n")
}

//! The page's words in English and German. The buyer's
//! `order_data.buyer.language` chooses (`de...` is German, anything else or
//! none English); `?lang=en|de` on the page's address overrides it.

use crate::models::payment_page::methods::Method;
use crate::models::payment_page::session::Session;
use psi_payment_page::types::Buyer;

/// A language the page is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    De,
}

impl Lang {
    /// `de`, `DE` or `de-AT` is German; any other text English.
    pub fn from_code(code: &str) -> Self {
        let primary = code.split(['-', '_']).next().unwrap_or_default();
        if primary.eq_ignore_ascii_case("de") {
            Lang::De
        } else {
            Lang::En
        }
    }

    /// The language of the page of `session`: `requested` (the `lang`
    /// query) when given, else the buyer's language.
    pub fn of(session: &Session, requested: Option<&str>) -> Self {
        let buyer_language = session
            .request
            .order_data
            .as_ref()
            .and_then(|order| order.buyer.as_ref())
            .and_then(|buyer| match buyer {
                Buyer::CompanyBuyer(buyer) => buyer.language.as_deref(),
                Buyer::PersonBuyer(buyer) => buyer.language.as_deref(),
            });
        requested
            .filter(|code| !code.is_empty())
            .or(buyer_language)
            .map(Lang::from_code)
            .unwrap_or(Lang::En)
    }

    /// The code for `<html lang>` and the `lang` query.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
        }
    }

    pub fn text(self) -> &'static Text {
        match self {
            Lang::En => &EN,
            Lang::De => &DE,
        }
    }

    /// The decimal separator of amounts and quantities.
    pub fn decimal_separator(self) -> char {
        match self {
            Lang::En => '.',
            Lang::De => ',',
        }
    }
}

/// Every string the page shows that does not come from the request.
/// `{amount}`, `{status}`, `{id}` and `{field}` are filled in where named.
pub struct Text {
    pub title: &'static str,
    pub sandbox_badge: &'static str,
    pub order: &'static str,
    pub your_order: &'static str,
    pub shop: &'static str,
    pub shop_order: &'static str,
    pub item: &'static str,
    pub article: &'static str,
    pub quantity: &'static str,
    pub unit_price: &'static str,
    pub discount: &'static str,
    pub total: &'static str,
    pub net_total: &'static str,
    pub vat: &'static str,
    pub basket_total: &'static str,
    pub amount_due: &'static str,
    pub prices_note: &'static str,
    pub billing_address: &'static str,
    pub contact: &'static str,
    pub company_vat_id: &'static str,
    pub born: &'static str,
    pub delivery: &'static str,
    pub delivery_address: &'static str,
    pub in_store_collect: &'static str,
    pub pick_up_box: &'static str,
    pub pick_up_shop: &'static str,
    pub carrier: &'static str,
    pub box_location: &'static str,
    pub carrier_customer: &'static str,
    pub nothing_given: &'static str,
    pub payment_method: &'static str,
    pub open_invoice: &'static str,
    pub open_invoice_hint: &'static str,
    pub instalment: &'static str,
    pub instalment_hint: &'static str,
    pub prepayment: &'static str,
    pub prepayment_hint: &'static str,
    pub direct_debit: &'static str,
    pub direct_debit_hint: &'static str,
    pub restriction_unknown: &'static str,
    pub iban: &'static str,
    pub account_holder: &'static str,
    pub iban_invalid: &'static str,
    pub sandbox_heading: &'static str,
    pub sandbox_note: &'static str,
    pub then: &'static str,
    pub pay: &'static str,
    pub decline: &'static str,
    pub decline_category: &'static str,
    pub cancel: &'static str,
    pub expire: &'static str,
    pub fraud_cancel: &'static str,
    pub no_address: &'static str,
    pub closed_title: &'static str,
    pub closed_body: &'static str,
    pub back_to_shop: &'static str,
    pub done_title: &'static str,
    pub done_body: &'static str,
    pub done_no_redirect: &'static str,
}

impl Text {
    /// The name of `method` and the one-line hint shown next to its radio
    /// button.
    pub fn method_label(&self, method: Method) -> (&'static str, &'static str) {
        match method {
            Method::OpenInvoice => (self.open_invoice, self.open_invoice_hint),
            Method::Instalment => (self.instalment, self.instalment_hint),
            Method::Prepayment => (self.prepayment, self.prepayment_hint),
            Method::DirectDebit => (self.direct_debit, self.direct_debit_hint),
        }
    }
}

const EN: Text = Text {
    title: "Checkout",
    sandbox_badge: "Sandbox",
    order: "Order",
    your_order: "Your order",
    shop: "Shop",
    shop_order: "shop order",
    item: "Item",
    article: "Art. no.",
    quantity: "Qty",
    unit_price: "Unit price",
    discount: "Discount",
    total: "Total",
    net_total: "Net total",
    vat: "VAT",
    basket_total: "Total incl. VAT",
    amount_due: "Amount due",
    prices_note: "Prices include VAT.",
    billing_address: "Billing address",
    contact: "Contact",
    company_vat_id: "VAT ID",
    born: "Born",
    delivery: "Delivery",
    delivery_address: "Delivery to this address",
    in_store_collect: "Collect in store",
    pick_up_box: "Pick-up box",
    pick_up_shop: "Pick-up shop",
    carrier: "Carrier",
    box_location: "Box",
    carrier_customer: "Customer no.",
    nothing_given: "Not given",
    payment_method: "Payment method",
    open_invoice: "Open invoice",
    open_invoice_hint: "Pay by bank transfer within 14 days.",
    instalment: "Instalments",
    instalment_hint: "Pay in monthly instalments.",
    prepayment: "Prepayment",
    prepayment_hint: "Transfer the amount; the order ships once it arrives.",
    direct_debit: "Direct debit",
    direct_debit_hint: "The amount is collected from your bank account.",
    restriction_unknown: "The session asks for a payment method the sandbox does not know ({field}); every method is offered.",
    iban: "IBAN",
    account_holder: "Account holder",
    iban_invalid: "This is not a valid IBAN. Check the country code, the check digits and the length.",
    sandbox_heading: "Sandbox: choose the outcome",
    sandbox_note: "Not part of the provider's page. Each button ends the session as the control API does, sends the signed notification to the shop and sends the browser on.",
    then: "then",
    pay: "Pay {amount}",
    decline: "Decline",
    decline_category: "Decline category",
    cancel: "Cancel the payment",
    expire: "Let it expire",
    fraud_cancel: "Cancel for suspected fraud",
    no_address: "no address given: the sandbox shows the result",
    closed_title: "This payment session is closed",
    closed_body: "Session {id} is {status}; it cannot be paid any more.",
    back_to_shop: "Back to the shop",
    done_title: "Payment session ended",
    done_body: "Session {id} is now {status}.",
    done_no_redirect: "The session request has no {field}, so the sandbox shows this page instead of redirecting.",
};

const DE: Text = Text {
    title: "Bezahlung",
    sandbox_badge: "Sandbox",
    order: "Bestellung",
    your_order: "Ihre Bestellung",
    shop: "Shop",
    shop_order: "Shop-Bestellung",
    item: "Artikel",
    article: "Art.-Nr.",
    quantity: "Menge",
    unit_price: "Einzelpreis",
    discount: "Rabatt",
    total: "Summe",
    net_total: "Nettosumme",
    vat: "MwSt.",
    basket_total: "Gesamt inkl. MwSt.",
    amount_due: "Zu zahlen",
    prices_note: "Alle Preise inklusive MwSt.",
    billing_address: "Rechnungsadresse",
    contact: "Kontakt",
    company_vat_id: "USt-IdNr.",
    born: "Geboren",
    delivery: "Lieferung",
    delivery_address: "Lieferung an diese Adresse",
    in_store_collect: "Abholung im Geschäft",
    pick_up_box: "Packstation",
    pick_up_shop: "Paketshop",
    carrier: "Zusteller",
    box_location: "Station",
    carrier_customer: "Kundennr.",
    nothing_given: "Keine Angabe",
    payment_method: "Zahlungsart",
    open_invoice: "Kauf auf Rechnung",
    open_invoice_hint: "Per Überweisung innerhalb von 14 Tagen bezahlen.",
    instalment: "Ratenzahlung",
    instalment_hint: "In monatlichen Raten bezahlen.",
    prepayment: "Vorkasse",
    prepayment_hint: "Betrag überweisen; die Bestellung wird nach Zahlungseingang versandt.",
    direct_debit: "Lastschrift",
    direct_debit_hint: "Der Betrag wird von Ihrem Konto eingezogen.",
    restriction_unknown: "Die Sitzung verlangt eine Zahlungsart, die die Sandbox nicht kennt ({field}); alle Zahlungsarten werden angeboten.",
    iban: "IBAN",
    account_holder: "Kontoinhaber",
    iban_invalid: "Diese IBAN ist ungültig. Prüfen Sie Länderkennung, Prüfziffern und Länge.",
    sandbox_heading: "Sandbox: Ergebnis wählen",
    sandbox_note: "Nicht Teil der Seite des Anbieters. Jede Schaltfläche beendet die Sitzung wie die Control-API, sendet die signierte Benachrichtigung an den Shop und leitet den Browser weiter.",
    then: "danach",
    pay: "{amount} bezahlen",
    decline: "Ablehnen",
    decline_category: "Kategorie der Ablehnung",
    cancel: "Zahlung abbrechen",
    expire: "Ablaufen lassen",
    fraud_cancel: "Wegen Betrugsverdacht stornieren",
    no_address: "keine Adresse angegeben: die Sandbox zeigt das Ergebnis",
    closed_title: "Diese Zahlungssitzung ist beendet",
    closed_body: "Die Sitzung {id} hat den Status {status}; sie kann nicht mehr bezahlt werden.",
    back_to_shop: "Zurück zum Shop",
    done_title: "Zahlungssitzung beendet",
    done_body: "Die Sitzung {id} hat jetzt den Status {status}.",
    done_no_redirect: "Die Sitzungsanfrage enthält kein {field}, daher zeigt die Sandbox diese Seite, statt weiterzuleiten.",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn german_is_chosen_by_its_primary_code_in_any_case() {
        for code in ["de", "DE", "de-AT", "de_CH"] {
            assert_eq!(Lang::from_code(code), Lang::De, "{code}");
        }
        for code in ["en", "fr", "", "nl-DE"] {
            assert_eq!(Lang::from_code(code), Lang::En, "{code}");
        }
    }

    #[test]
    fn the_two_languages_differ_in_their_labels() {
        assert_ne!(EN.payment_method, DE.payment_method);
        assert_ne!(EN.pay, DE.pay);
        assert!(EN.pay.contains("{amount}") && DE.pay.contains("{amount}"));
    }
}

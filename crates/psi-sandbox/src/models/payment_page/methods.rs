//! The payment methods the hosted page offers and what a payment stores.
//!
//! | method | payment_option | transfer_type | restriction values it answers to |
//! |---|---|---|---|
//! | open invoice | OPEN_INVOICE | BANK_TRANSFER | OPEN_INVOICE; BANK_TRANSFER |
//! | instalments | INSTALMENT | BANK_TRANSFER | INSTALMENT; BANK_TRANSFER |
//! | prepayment | PREPAYMENT | BANK_TRANSFER | PREPAYMENT, PAY_NOW; BANK_TRANSFER |
//! | direct debit | OPEN_INVOICE | DIRECT_DEBIT | OPEN_INVOICE, PAY_NOW; DIRECT_DEBIT, SEPA_DIRECT_DEBIT |
//!
//! The stored values are the ones the order status API knows (the
//! specification's payment_method_specific). The request's
//! `payment_method` restriction uses other words (its examples are PAY_NOW
//! and SEPA_DIRECT_DEBIT); a method is offered when it answers to every
//! field the restriction gives. A restriction nothing answers to offers
//! every method, with a note on the page.

use psi_payment_page::types::PaymentMethodRestriction;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    OpenInvoice,
    Instalment,
    Prepayment,
    DirectDebit,
}

impl Method {
    pub const ALL: [Method; 4] = [
        Method::OpenInvoice,
        Method::Instalment,
        Method::Prepayment,
        Method::DirectDebit,
    ];

    /// The value of the method's radio button.
    pub fn form_value(self) -> &'static str {
        match self {
            Method::OpenInvoice => "open_invoice",
            Method::Instalment => "instalment",
            Method::Prepayment => "prepayment",
            Method::DirectDebit => "direct_debit",
        }
    }

    pub fn from_form_value(value: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.form_value() == value)
    }

    /// The transaction's payment_option.
    pub fn payment_option(self) -> &'static str {
        match self {
            Method::OpenInvoice | Method::DirectDebit => "OPEN_INVOICE",
            Method::Instalment => "INSTALMENT",
            Method::Prepayment => "PREPAYMENT",
        }
    }

    /// The transaction's transfer_type.
    pub fn transfer_type(self) -> &'static str {
        match self {
            Method::DirectDebit => "DIRECT_DEBIT",
            _ => "BANK_TRANSFER",
        }
    }

    /// The restriction's payment_option values this method answers to.
    fn option_names(self) -> &'static [&'static str] {
        match self {
            Method::OpenInvoice => &["OPEN_INVOICE"],
            Method::Instalment => &["INSTALMENT"],
            Method::Prepayment => &["PREPAYMENT", "PAY_NOW"],
            Method::DirectDebit => &["OPEN_INVOICE", "PAY_NOW"],
        }
    }

    /// The restriction's transfer_type values this method answers to.
    fn transfer_names(self) -> &'static [&'static str] {
        match self {
            Method::DirectDebit => &["DIRECT_DEBIT", "SEPA_DIRECT_DEBIT"],
            _ => &["BANK_TRANSFER"],
        }
    }

    fn answers_to(self, restriction: &PaymentMethodRestriction) -> bool {
        let fits = |given: &Option<String>, names: &[&str]| {
            given
                .as_deref()
                .is_none_or(|given| names.iter().any(|name| name.eq_ignore_ascii_case(given)))
        };
        fits(&restriction.payment_option, self.option_names())
            && fits(&restriction.transfer_type, self.transfer_names())
    }
}

/// The methods a session offers.
#[derive(Debug, PartialEq, Eq)]
pub struct Offer {
    pub methods: Vec<Method>,
    /// The restriction as given, when no method answers to it.
    pub unknown_restriction: Option<String>,
}

impl Offer {
    pub fn for_restriction(restriction: Option<&PaymentMethodRestriction>) -> Self {
        let Some(restriction) = restriction else {
            return Offer {
                methods: Method::ALL.to_vec(),
                unknown_restriction: None,
            };
        };
        let methods: Vec<_> = Method::ALL
            .into_iter()
            .filter(|method| method.answers_to(restriction))
            .collect();
        if !methods.is_empty() {
            return Offer {
                methods,
                unknown_restriction: None,
            };
        }
        let given = [&restriction.payment_option, &restriction.transfer_type]
            .into_iter()
            .flatten()
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        Offer {
            methods: Method::ALL.to_vec(),
            unknown_restriction: Some(given),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn restriction(option: Option<&str>, transfer: Option<&str>) -> PaymentMethodRestriction {
        PaymentMethodRestriction {
            payment_option: option.map(str::to_owned),
            transfer_type: transfer.map(str::to_owned),
            extra_members: Default::default(),
        }
    }

    fn offered(option: Option<&str>, transfer: Option<&str>) -> Vec<Method> {
        Offer::for_restriction(Some(&restriction(option, transfer))).methods
    }

    #[test]
    fn no_restriction_offers_all_four() {
        assert_eq!(Offer::for_restriction(None).methods, Method::ALL);
        assert_eq!(offered(None, None), Method::ALL);
    }

    #[test]
    fn the_documented_example_restriction_offers_direct_debit_only() {
        assert_eq!(
            offered(Some("PAY_NOW"), Some("SEPA_DIRECT_DEBIT")),
            [Method::DirectDebit]
        );
        assert_eq!(
            offered(Some("PAY_NOW"), None),
            [Method::Prepayment, Method::DirectDebit]
        );
        assert_eq!(
            offered(Some("instalment"), None),
            [Method::Instalment],
            "case does not matter"
        );
        assert_eq!(
            offered(None, Some("BANK_TRANSFER")),
            [Method::OpenInvoice, Method::Instalment, Method::Prepayment]
        );
    }

    #[test]
    fn an_unknown_restriction_offers_everything_and_says_so() {
        let offer = Offer::for_restriction(Some(&restriction(Some("CRYPTO"), None)));
        assert_eq!(offer.methods, Method::ALL);
        assert_eq!(offer.unknown_restriction.as_deref(), Some("CRYPTO"));
    }

    #[test]
    fn form_values_round_trip() {
        for method in Method::ALL {
            assert_eq!(Method::from_form_value(method.form_value()), Some(method));
        }
        assert_eq!(Method::from_form_value("cash"), None);
    }
}

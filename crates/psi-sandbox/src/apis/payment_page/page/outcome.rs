//! The page's form, parsed: which button was pressed, with which method,
//! IBAN and decline category.

use crate::models::payment_page::methods::Method;
use crate::models::payment_page::session::decline_category;
use psi_payment_page::types::DeclineCategory;
use serde::Deserialize;

/// The form as posted (`application/x-www-form-urlencoded`); every field is
/// optional so a missing one is named in the answer instead of a bare 422.
/// Its `Debug` leaves the IBAN and the account holder out.
#[derive(Default, Deserialize)]
pub(crate) struct Posted {
    /// The pressed button: pay, decline, cancel, expire or fraud_cancel.
    pub action: Option<String>,
    /// A [`Method::form_value`].
    pub method: Option<String>,
    pub iban: Option<String>,
    pub account_holder: Option<String>,
    /// A decline category's wire value.
    pub category: Option<String>,
}

impl std::fmt::Debug for Posted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let redacted = |value: &Option<String>| value.as_ref().map(|_| "<redacted>");
        f.debug_struct("Posted")
            .field("action", &self.action)
            .field("method", &self.method)
            .field("iban", &redacted(&self.iban))
            .field("account_holder", &redacted(&self.account_holder))
            .field("category", &self.category)
            .finish()
    }
}

/// What the tester chose.
#[derive(Debug, PartialEq)]
pub(super) enum Outcome {
    Pay(Method),
    Decline(DeclineCategory),
    Cancel,
    Expire,
    FraudCancel,
}

/// Why a posted form is not an outcome.
#[derive(Debug, PartialEq)]
pub(super) enum Invalid {
    /// Direct debit without a valid IBAN: the page is shown again with a
    /// message next to the field.
    Iban,
    /// A form the page never produces (a hand-made request): field and rule.
    Form(String),
}

impl Posted {
    /// The outcome, if the form is complete; `offered` are the methods the
    /// session allows.
    pub(super) fn outcome(&self, offered: &[Method]) -> Result<Outcome, Invalid> {
        match self.action.as_deref() {
            Some("pay") => self.payment(offered).map(Outcome::Pay),
            Some("decline") => {
                let text = self.category.as_deref().unwrap_or_default();
                decline_category(text).map(Outcome::Decline).ok_or_else(|| {
                    Invalid::Form(format!("category: {text:?} is not a 422 decline category"))
                })
            }
            Some("cancel") => Ok(Outcome::Cancel),
            Some("expire") => Ok(Outcome::Expire),
            Some("fraud_cancel") => Ok(Outcome::FraudCancel),
            other => Err(Invalid::Form(format!(
                "action: must be pay, decline, cancel, expire or fraud_cancel, not {other:?}"
            ))),
        }
    }

    fn payment(&self, offered: &[Method]) -> Result<Method, Invalid> {
        let value = self.method.as_deref().unwrap_or_default();
        let method = Method::from_form_value(value)
            .filter(|method| offered.contains(method))
            .ok_or_else(|| {
                Invalid::Form(format!("method: {value:?} is not offered for this session"))
            })?;
        if method == Method::DirectDebit && !is_valid_iban(self.iban.as_deref().unwrap_or_default())
        {
            return Err(Invalid::Iban);
        }
        Ok(method)
    }
}

/// Spaces may group the IBAN as printed; the check digits and the
/// country's length must be right.
fn is_valid_iban(text: &str) -> bool {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    compact.parse::<iban::Iban>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The form as axum reads it from a posted body.
    fn posted(body: &str) -> Posted {
        use axum::extract::FromRequest;
        let request = axum::http::Request::builder()
            .method("POST")
            .header("content-type", "application/x-www-form-urlencoded")
            .body(axum::body::Body::from(body.to_owned()))
            .unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        runtime
            .block_on(axum::Form::<Posted>::from_request(request, &()))
            .expect("a form")
            .0
    }

    #[test]
    fn pay_takes_the_chosen_offered_method() {
        let form = posted("method=instalment&action=pay");
        assert_eq!(
            form.outcome(&Method::ALL),
            Ok(Outcome::Pay(Method::Instalment))
        );
        let refused = form.outcome(&[Method::DirectDebit]);
        assert!(matches!(refused, Err(Invalid::Form(m)) if m.starts_with("method:")));
    }

    #[test]
    fn direct_debit_needs_a_valid_iban_spaces_allowed() {
        let good = posted("method=direct_debit&iban=DE89+3704+0044+0532+0130+00&action=pay");
        assert_eq!(
            good.outcome(&Method::ALL),
            Ok(Outcome::Pay(Method::DirectDebit))
        );
        for bad in [
            "",
            "DE00+3704+0044+0532+0130+00",
            "DE89370400440532013",
            "hello",
        ] {
            let form = posted(&format!("method=direct_debit&iban={bad}&action=pay"));
            assert_eq!(form.outcome(&Method::ALL), Err(Invalid::Iban), "{bad}");
        }
    }

    #[test]
    fn decline_takes_one_of_the_seven_categories() {
        let form = posted("action=decline&category=TRANSACTION_RISK");
        assert_eq!(
            form.outcome(&Method::ALL),
            Ok(Outcome::Decline(DeclineCategory::TransactionRisk))
        );
        for category in ["", "SYNTAX", "LEGAL", "risk_decision"] {
            let form = posted(&format!("action=decline&category={category}"));
            assert!(
                matches!(form.outcome(&Method::ALL), Err(Invalid::Form(m)) if m.starts_with("category:")),
                "{category}"
            );
        }
    }

    #[test]
    fn debug_leaves_the_bank_details_out() {
        let form = posted(
            "method=direct_debit&iban=DE89370400440532013000&account_holder=Erika&action=pay",
        );
        let debug = format!("{form:?}");
        assert!(
            !debug.contains("DE89") && !debug.contains("Erika"),
            "{debug}"
        );
        assert!(debug.contains("direct_debit"), "{debug}");
    }

    #[test]
    fn the_other_buttons_need_nothing_else() {
        assert_eq!(posted("action=cancel").outcome(&[]), Ok(Outcome::Cancel));
        assert_eq!(posted("action=expire").outcome(&[]), Ok(Outcome::Expire));
        assert_eq!(
            posted("action=fraud_cancel").outcome(&[]),
            Ok(Outcome::FraudCancel)
        );
        assert!(
            matches!(posted("").outcome(&[]), Err(Invalid::Form(m)) if m.starts_with("action:"))
        );
    }
}

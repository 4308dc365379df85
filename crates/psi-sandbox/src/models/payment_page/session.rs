//! One payment session and its state machine.
//!
//! A session lives CREATED -> IN_PROGRESS (the buyer opens the landing
//! page, [`Session::visit`]) -> COMPLETED, CANCELED, ERROR, EXPIRED or
//! FRAUD_CANCELLATION_REQUESTED ([`Session::end`]; the hosted page and the
//! control API both end a session through it). A session still open 30
//! minutes after its creation reads as EXPIRED (checked whenever it is
//! touched, by the sandbox clock).

use crate::models::transaction::{
    label, StoredRequest, Transaction, TransactionId, PAYMENT_TERM_DAYS,
};
use chrono::{DateTime, Days, Duration, FixedOffset};
use psi_payment_page::types::{
    Buyer, Decline, DeclineCategory, SessionRecord, SessionRequest, SessionStatus,
};
use serde::{Deserialize, Serialize};

/// No buyer action within this time expires a session (docs/service-notes.md).
pub const SESSION_LIFETIME: Duration = Duration::minutes(30);

/// The categories a declined session can carry: the 422 categories of the
/// provider's error bodies (docs/service-notes.md).
pub const DECLINE_CATEGORIES: [DeclineCategory; 7] = [
    DeclineCategory::BuyerData,
    DeclineCategory::BuyerIdentity,
    DeclineCategory::Contract,
    DeclineCategory::PaymentAttribute,
    DeclineCategory::RiskDecision,
    DeclineCategory::TransactionRisk,
    DeclineCategory::UnprocessableOperation,
];

/// A decline category the sandbox can end a session with, from its wire
/// value; `None` for any other text.
pub fn decline_category(text: &str) -> Option<DeclineCategory> {
    DECLINE_CATEGORIES
        .into_iter()
        .find(|category| category.as_str() == text)
}

/// How the buyer pays, as stored on the transaction.
#[derive(Debug, Default, Deserialize)]
pub struct Choice {
    pub payment_option: Option<String>,
    pub transfer_type: Option<String>,
}

/// How a session ends.
pub enum Ending {
    /// COMPLETED: a transaction is created.
    Complete(Choice),
    /// CANCELED by the buyer.
    Cancel,
    /// ERROR with decline_reasons of this category.
    Fail(DeclineCategory),
    /// EXPIRED now, as if the buyer had left the page for 30 minutes.
    Expire,
    /// FRAUD_CANCELLATION_REQUESTED.
    FraudCancel,
}

/// The buyer's `shop_buyer_id` of a session request, whichever kind of
/// buyer it is.
fn shop_buyer_id(request: &SessionRequest) -> Option<String> {
    match request.order_data.as_ref()?.buyer.as_ref()? {
        Buyer::CompanyBuyer(buyer) => buyer.shop_buyer_id.clone(),
        Buyer::PersonBuyer(buyer) => buyer.shop_buyer_id.clone(),
    }
}

/// Why a session could not be ended.
#[derive(Debug)]
pub enum CannotEnd {
    /// No session has this id.
    Unknown,
    /// The session is no longer open; it keeps this status.
    NotOpen(SessionStatus),
}

/// One payment session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Session {
    pub id: String,
    pub status: SessionStatus,
    pub created: DateTime<FixedOffset>,
    pub updated: DateTime<FixedOffset>,
    /// Kept to create the transaction when the buyer completes.
    pub request: SessionRequest,
    /// Where the session's notifications go; none are sent without it.
    pub webhook_url: Option<String>,
    /// The request's `order_data.buyer.shop_buyer_id`, for the record.
    pub shop_buyer_id: Option<String>,
    pub transaction_id: Option<String>,
    pub decline_reasons: Option<Decline>,
}

impl Session {
    /// A new session of `request`, CREATED at `now`.
    pub fn new(id: String, request: SessionRequest, now: DateTime<FixedOffset>) -> Self {
        let webhook_url = request
            .url_data
            .as_ref()
            .and_then(|urls| urls.webhook_url.clone());
        let shop_buyer_id = shop_buyer_id(&request);
        Self {
            id,
            status: SessionStatus::Created,
            created: now,
            updated: now,
            request,
            webhook_url,
            shop_buyer_id,
            transaction_id: None,
            decline_reasons: None,
        }
    }

    pub fn partner_transaction_id(&self) -> Option<String> {
        self.request
            .order_data
            .as_ref()
            .and_then(|order| order.partner_transaction_id.clone())
    }

    /// The record as read back and as notified.
    pub fn record(&self) -> SessionRecord {
        SessionRecord {
            session_id: Some(self.id.clone()),
            transaction_id: self.transaction_id.clone(),
            partner_transaction_id: self.partner_transaction_id(),
            shop_buyer_id: self.shop_buyer_id.clone(),
            session_status: Some(self.status.clone()),
            decline_reasons: self.decline_reasons.clone(),
            created_date: Some(self.created),
            updated_date: Some(self.updated),
        }
    }

    /// The buyer can still act: the session is neither finished nor expired.
    pub fn is_open(&self) -> bool {
        matches!(
            self.status,
            SessionStatus::Created | SessionStatus::InProgress
        )
    }

    /// Still open more than 30 minutes after its creation.
    pub fn is_due(&self, now: DateTime<FixedOffset>) -> bool {
        self.is_open() && now > self.created + SESSION_LIFETIME
    }

    /// A session still open more than 30 minutes after its creation has
    /// expired; it is updated at the moment it expired, not when noticed.
    pub fn expire_if_due(&mut self, now: DateTime<FixedOffset>) {
        if self.is_due(now) {
            self.status = SessionStatus::Expired;
            self.updated = self.created + SESSION_LIFETIME;
        }
    }

    /// Whether the buyer's visit at `now` changes the session: it expired,
    /// or it is new. A visit of any other session is a read.
    pub fn changes_on_visit(&self, now: DateTime<FixedOffset>) -> bool {
        self.is_due(now) || self.status == SessionStatus::Created
    }

    /// The buyer opens the landing page: a new session moves to
    /// IN_PROGRESS, a due one expires.
    pub fn visit(&mut self, now: DateTime<FixedOffset>) {
        self.expire_if_due(now);
        if self.status == SessionStatus::Created {
            self.status = SessionStatus::InProgress;
            self.updated = now;
        }
    }

    /// Ends the open session as `ending` says, at `now`; a completion
    /// answers the transaction it creates.
    pub fn end(
        &mut self,
        ending: Ending,
        now: DateTime<FixedOffset>,
    ) -> Result<Option<Transaction>, CannotEnd> {
        self.expire_if_due(now);
        if !self.is_open() {
            return Err(CannotEnd::NotOpen(self.status.clone()));
        }
        self.updated = now;
        let mut created = None;
        match ending {
            Ending::Complete(choice) => {
                let transaction = self.completed_transaction(choice, now);
                self.status = SessionStatus::Completed;
                self.transaction_id = Some(transaction.id.to_string());
                created = Some(transaction);
            }
            Ending::Cancel => self.status = SessionStatus::Canceled,
            Ending::Fail(category) => {
                self.status = SessionStatus::Error;
                self.decline_reasons = Some(decline(category));
            }
            Ending::Expire => self.status = SessionStatus::Expired,
            Ending::FraudCancel => self.status = SessionStatus::FraudCancellationRequested,
        }
        Ok(created)
    }

    /// Which `url_data` field a session in its status goes back to, and
    /// its value when the request has one.
    pub fn return_address(&self) -> (&'static str, Option<&str>) {
        let field = match self.status {
            SessionStatus::Completed => "success_url",
            SessionStatus::Canceled => "cancel_url",
            _ => "failure_url",
        };
        let urls = self.request.url_data.as_ref();
        let url = urls.and_then(|urls| match field {
            "success_url" => urls.success_url.as_deref(),
            "cancel_url" => urls.cancel_url.as_deref(),
            _ => urls.failure_url.as_deref(),
        });
        (field, url)
    }

    /// The transaction the buyer's completion creates.
    fn completed_transaction(&self, choice: Choice, now: DateTime<FixedOffset>) -> Transaction {
        Transaction {
            id: TransactionId::random(),
            session_id: self
                .id
                .parse()
                .expect("the sandbox's session ids are UUIDs"),
            created: now,
            request: StoredRequest::new(&self.request),
            payment_option: label(
                choice
                    .payment_option
                    .unwrap_or_else(|| "OPEN_INVOICE".to_owned()),
            ),
            transfer_type: label(
                choice
                    .transfer_type
                    .unwrap_or_else(|| "BANK_TRANSFER".to_owned()),
            ),
            correspondence_id: uuid::Uuid::new_v4(),
            due_date: now.date_naive() + Days::new(PAYMENT_TERM_DAYS),
        }
    }
}

/// Why a declined session was declined. The reason texts are the
/// sandbox's own: the provider documents the categories, not the reasons.
fn decline(category: DeclineCategory) -> Decline {
    let reason = match category {
        DeclineCategory::BuyerData => "BUYER_DATA_INVALID",
        DeclineCategory::BuyerIdentity => "BUYER_IDENTITY_NOT_CONFIRMED",
        DeclineCategory::Contract => "CONTRACT_NOT_ACTIVE",
        DeclineCategory::PaymentAttribute => "PAYMENT_ATTRIBUTE_INVALID",
        DeclineCategory::TransactionRisk => "TRANSACTION_RISK_TOO_HIGH",
        DeclineCategory::UnprocessableOperation => "OPERATION_NOT_PROCESSABLE",
        _ => "RISK_CHECK_DECLINED",
    };
    Decline {
        category: Some(category),
        reasons: vec![reason.to_owned()],
        invalid_fields: Vec::new(),
    }
}

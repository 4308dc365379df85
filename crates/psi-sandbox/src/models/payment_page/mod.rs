//! The hosted payment page (`openapi/payment-page.yaml`): the session and
//! its state machine, the checks of a session request, the identity of a
//! request for its Idempotency-Key, the payment methods a session offers
//! and the notifications the page sends.

pub mod canonical;
pub mod idempotency;
pub mod methods;
pub mod session;
pub mod validation;
pub mod webhook_delivery;

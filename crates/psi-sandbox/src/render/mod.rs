//! What the sandbox draws that is not an API's answer: the hosted payment
//! page's HTML and the invoice documents. Pure functions of the models.

pub mod invoice;
pub mod payment_page;

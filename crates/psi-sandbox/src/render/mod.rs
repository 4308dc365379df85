//! What the sandbox draws that is not an API's answer: the invoice
//! documents. Pure functions of the models.

pub mod invoice;

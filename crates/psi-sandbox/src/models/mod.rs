//! Each API's data, its state machine and the specification's rules, with
//! no HTTP and no storage: the state keeps these values, the APIs answer
//! with them and the renderers draw them.

pub mod order_status;
pub mod payment_page;
pub mod transaction;

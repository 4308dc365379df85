//! The sandbox itself, through plain HTTP: what it does with input no
//! client of the documents would send.

mod from_examples;
mod hostile;
mod remembered_tokens;

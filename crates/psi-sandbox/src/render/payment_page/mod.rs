//! The hosted payment page's HTML: a real checkout with a box in which the
//! tester picks the outcome ([`pages`]), in the buyer's language
//! ([`text`]). HTML5 with inline CSS: no script, no external asset, every
//! field labelled, every text from the request escaped ([`html`]).

pub mod form;
pub mod html;
mod order;
pub mod pages;
mod people;
pub mod text;

#[cfg(test)]
mod tests;

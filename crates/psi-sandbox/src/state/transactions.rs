//! The stored transactions, by id (the transaction itself is a model:
//! [`crate::models::transaction`]).

use super::store::{tables, Batch, Loader, Persisted};
use super::table::Table;

/// The transaction model's names, also reachable through the state for the
/// code that reads transactions there.
pub use crate::models::transaction::{
    label, StoredRequest, Transaction, TransactionId, PAYMENT_TERM_DAYS,
};

/// The stored transactions, by id; boxed so the table holds 16 bytes per
/// transaction rather than the whole record.
#[derive(Default)]
pub struct Transactions(Table<TransactionId, Box<Transaction>>);

impl Transactions {
    pub fn get(&self, id: &str) -> Option<&Transaction> {
        self.0.get(&TransactionId::parse(id)?).map(|t| &**t)
    }

    /// The transaction, marked changed.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut Transaction> {
        self.0.get_mut(&TransactionId::parse(id)?).map(|t| &mut **t)
    }

    pub fn insert(&mut self, transaction: Transaction) {
        self.0.insert(transaction.id, Box::new(transaction));
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl std::ops::Index<&str> for Transactions {
    type Output = Transaction;
    fn index(&self, id: &str) -> &Transaction {
        self.get(id).expect("a stored transaction")
    }
}

impl std::ops::Index<&String> for Transactions {
    type Output = Transaction;
    fn index(&self, id: &String) -> &Transaction {
        &self[id.as_str()]
    }
}

impl Persisted for Transactions {
    fn has_changes(&self) -> bool {
        self.0.has_changes()
    }

    fn save(&mut self, batch: &Batch) -> rusqlite::Result<()> {
        batch.table(tables::TRANSACTIONS, &mut self.0)
    }

    fn load(loader: &Loader) -> Result<Self, String> {
        loader.table(tables::TRANSACTIONS).map(Self)
    }
}

//! The bank accounts kept by the sandbox.

use super::store::tables;
use super::table::Table;
use crate::models::bank_accounts::Buyer;
use psi_bank_accounts::types::BankAccount;

/// The stored accounts, one per buyer, each with its reference set.
#[derive(Default)]
pub struct BankAccountsState {
    pub(crate) accounts: Table<Buyer, BankAccount>,
}

persisted_as_table!(BankAccountsState, accounts, tables::BANK_ACCOUNTS);

/// Never shows the accounts: they hold IBANs.
impl std::fmt::Debug for BankAccountsState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BankAccountsState")
            .field("accounts", &self.accounts.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_never_shows_an_account() {
        let mut state = BankAccountsState::default();
        let account: BankAccount = serde_json::from_value(serde_json::json!({
            "owner": "Erika Mustermann", "iban": "DE89 3704 0044 0532 0130 00"
        }))
        .expect("a bank account");
        state
            .accounts
            .insert(Buyer::from(("pp".to_owned(), "b".to_owned())), account);
        let shown = format!("{state:?}");
        assert!(
            !shown.contains("3704") && !shown.contains("Erika"),
            "{shown}"
        );
    }
}

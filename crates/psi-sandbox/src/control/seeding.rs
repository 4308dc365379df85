//! How the `--seed` entries are stored into a tenant: through the control
//! API itself (as `psi-sandbox --seed` does on start), with the operator's
//! token and the `tenant` parameter, so a seeded entry passes every check
//! a stored one does.

use std::sync::Arc;

/// The seed, and how the sandbox reaches its own control API.
#[derive(Clone)]
pub struct Seeding {
    /// `--seed`, when given.
    pub seed: Option<Arc<crate::seed::Seed>>,
    /// The operator's `--control-token`, when there is one.
    pub control_token: Option<String>,
    /// Where the sandbox reaches itself (loopback when it listens on every
    /// interface).
    pub local_url: String,
}

impl Seeding {
    /// Stores the seed's entries in tenant `id`; answers how many were
    /// stored (none without a seed).
    pub async fn apply(&self, id: &str) -> Result<usize, String> {
        let Some(seed) = &self.seed else {
            return Ok(0);
        };
        seed.apply_to(&self.local_url, self.control_token.as_deref(), Some(id))
            .await
            .map(|report| report.stored)
            .map_err(|error| error.to_string())
    }
}

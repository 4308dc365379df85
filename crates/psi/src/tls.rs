//! The TLS backend of the HTTP client psi builds for itself.
//!
//! Three features choose it: `rustls` (default: rustls with the aws-lc-rs
//! crypto provider, built from C by `aws-lc-sys`), `rustls-graviola` (rustls
//! with the Graviola provider, Rust and assembly only: no C compiler, a much
//! shorter clean build, but younger and less audited) and `native-tls`.
//!
//! reqwest's `rustls-no-provider` takes its crypto provider from the
//! process's rustls default, and panics when building a client if none is
//! installed; so with `rustls-graviola`, psi installs Graviola as that
//! default before building its client. An application that installed a
//! provider of its own first keeps it.

use psi_runtime::ConfigError;

/// A `reqwest::ClientBuilder` whose TLS backend is ready to build, from
/// the settings every psi client starts from
/// ([`psi_runtime::http_client_builder`]: HTTP/1.1, no reqwest retry layer).
///
/// Fails, naming the missing CPU features, where `rustls-graviola` is on
/// and the CPU lacks what Graviola requires (it would otherwise panic at
/// the first handshake).
pub(crate) fn client_builder() -> Result<reqwest::ClientBuilder, ConfigError> {
    #[cfg(feature = "rustls-graviola")]
    graviola::install_default()?;
    Ok(psi_runtime::http_client_builder())
}

#[cfg(feature = "rustls-graviola")]
pub(crate) mod graviola {
    use psi_runtime::ConfigError;

    /// Installs Graviola as the process's rustls crypto provider, unless one
    /// is installed already (the application's choice wins).
    pub(crate) fn install_default() -> Result<(), ConfigError> {
        let missing = missing_cpu_features();
        if !missing.is_empty() {
            return Err(ConfigError::HttpClient {
                problem: format!(
                    "the rustls-graviola TLS feature needs CPU features this machine lacks: {}; \
                     build psi with the `rustls` feature instead",
                    missing.join(", ")
                ),
            });
        }
        // Err means a provider is installed already: keep it.
        let _ = rustls_graviola::default_provider().install_default();
        Ok(())
    }

    /// The CPU features Graviola requires (its README) that this CPU lacks.
    pub(crate) fn missing_cpu_features() -> Vec<&'static str> {
        let mut missing = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            let checks = [
                ("aes", std::arch::is_x86_feature_detected!("aes")),
                (
                    "pclmulqdq",
                    std::arch::is_x86_feature_detected!("pclmulqdq"),
                ),
                ("ssse3", std::arch::is_x86_feature_detected!("ssse3")),
                ("avx", std::arch::is_x86_feature_detected!("avx")),
                ("avx2", std::arch::is_x86_feature_detected!("avx2")),
                ("bmi1", std::arch::is_x86_feature_detected!("bmi1")),
                ("bmi2", std::arch::is_x86_feature_detected!("bmi2")),
                ("adx", std::arch::is_x86_feature_detected!("adx")),
            ];
            missing.extend(checks.iter().filter(|(_, has)| !has).map(|(name, _)| *name));
        }
        #[cfg(target_arch = "aarch64")]
        {
            let checks = [
                ("aes", std::arch::is_aarch64_feature_detected!("aes")),
                ("sha2", std::arch::is_aarch64_feature_detected!("sha2")),
                ("pmull", std::arch::is_aarch64_feature_detected!("pmull")),
                ("neon", std::arch::is_aarch64_feature_detected!("neon")),
            ];
            missing.extend(checks.iter().filter(|(_, has)| !has).map(|(name, _)| *name));
        }
        missing
    }
}

#[cfg(all(test, feature = "rustls-graviola"))]
mod tests;

#[cfg(all(test, feature = "rustls-graviola"))]
pub(crate) mod test_server;

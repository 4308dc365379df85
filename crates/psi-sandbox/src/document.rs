//! A document as `cargo xtask generate` bundles it into
//! [`crate::documents::DOCUMENTS`] and as a test hands one to
//! [`crate::settings::Settings::with_document`]: the generated list imports it from
//! here, a leaf below everything that serves it.

/// One bundled document, as `cargo xtask generate` writes it into
/// `crate::documents::DOCUMENTS`.
#[derive(Debug, Clone, Copy)]
pub struct Document {
    /// The document's stem, `dispute-management`.
    pub name: &'static str,
    /// The path below the address the document's operations live under
    /// (its `x-psi` base path), often `""`.
    pub base_path: &'static str,
    /// The token audience, e.g. `{api_url}/dispute/management`: any
    /// `{placeholder}` stands for the sandbox URL. `None`: the audience is a
    /// setting of the client; the sandbox then takes `<URL><base_path>`.
    pub audience: Option<&'static str>,
    /// The bundled document, JSON, without references to other files.
    pub json: &'static str,
}

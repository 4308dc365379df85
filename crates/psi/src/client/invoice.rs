//! The invoice file from the address an invoice notification gives.
//!
//! The notification carries one address per format (`pdf_url`, `eml_url`);
//! the file is fetched from that address as given, not from a path psi
//! rebuilds from the ids. The bearer token goes only to an address under
//! the order status API's base URL: an address elsewhere is refused before
//! anything is sent. The token's audience is [`ClientBuilder::invoice_audience`]
//! (by default the order status audience: the specification names none for
//! the download, which belongs to the order status API of payment API 1.8).
//!
//! [`ClientBuilder::invoice_audience`]: crate::ClientBuilder::invoice_audience

use super::Client;
use crate::webhook::{InvoiceFormat, InvoiceNotification};
use crate::Api;
use psi_order_status::{ByteStream, ResponseValue};
use psi_runtime::call::Operation;
use psi_runtime::Error;

/// The download as the order status document declares it: the facts the
/// generated `get_invoice_correspondence()` sends with (a test compares them).
static DOWNLOAD: Operation = Operation {
    id: "getInvoiceCorrespondence",
    idempotent: false,
    request_media_type: None,
    optional_body: true,
    comma_separated_query: &[],
    declared_errors: &[400, 401, 404, 405, 406, 414, 415, 431, 500],
    refused_when_false: None,
};

impl Client {
    /// The invoice file of `notification` in `format`, from the address the
    /// notification gives for it, as a byte stream.
    ///
    /// Refused before sending ([`Error::InvalidRequest`]) when the
    /// notification has no address for `format`, or one that is not under
    /// the order status API's base URL; [`Error::Config`] without the
    /// order status API's settings.
    pub async fn download_invoice(
        &self,
        notification: &InvoiceNotification,
        format: InvoiceFormat,
    ) -> Result<ResponseValue<ByteStream>, Error<psi_common::DeclineResponse>> {
        let field = match format {
            InvoiceFormat::Pdf => "pdf_url",
            InvoiceFormat::Eml => "eml_url",
        };
        let address = notification.address(format).ok_or_else(|| {
            Error::InvalidRequest(format!("the invoice notification has no `{field}`"))
        })?;
        let (base_url, http, _) = self
            .parts(Api::OrderStatus)
            .map_err(|error| Error::InvalidRequest(error.to_string()))?;
        let url = reqwest::Url::parse(address).map_err(|error| {
            Error::InvalidRequest(format!("`{field}` is not an absolute URL ({error})"))
        })?;
        if !is_under(&url, &base_url) {
            return Err(Error::InvalidRequest(format!(
                "`{field}` is not under the order status API's address; psi sends its token there only"
            )));
        }
        let context = self.shared.invoice_context.clone();
        let build = || Ok(http.get(url.clone()).build()?);
        psi_runtime::call::send(&context, &http, &DOWNLOAD, &build, None)
            .await?
            .stream()
    }
}

/// Whether `url` has the origin of `base` and a path under `base`'s path.
fn is_under(url: &reqwest::Url, base: &str) -> bool {
    let Ok(base) = reqwest::Url::parse(base) else {
        return false;
    };
    let prefix = base.path().trim_end_matches('/');
    url.origin() == base.origin()
        && url.username().is_empty()
        && url.password().is_none()
        && (url.path() == prefix || url.path().starts_with(&format!("{prefix}/")))
}

#[cfg(test)]
mod tests {
    use super::{is_under, DOWNLOAD};

    #[test]
    fn the_download_has_the_generated_operations_facts() {
        let generated = include_str!("../../../psi-order-status/src/generated.rs");
        let start = generated
            .find("id: \"getInvoiceCorrespondence\",")
            .expect("the generated download names its operationId");
        let facts: String = generated[start..]
            .split("};")
            .next()
            .unwrap()
            .split_whitespace()
            .collect();
        let ours = format!(
            "id:\"{}\",idempotent:{},request_media_type:::std::option::Option::None,\
             optional_body:{},comma_separated_query:&[],declared_errors:&{:?},\
             refused_when_false:::std::option::Option::None,",
            DOWNLOAD.id, DOWNLOAD.idempotent, DOWNLOAD.optional_body, DOWNLOAD.declared_errors
        )
        .replace(' ', "");
        assert_eq!(facts, ours);
        assert!(DOWNLOAD.request_media_type.is_none() && DOWNLOAD.refused_when_false.is_none());
    }

    #[test]
    fn only_addresses_under_the_base_url_are_called() {
        let under = |url: &str, base: &str| is_under(&reqwest::Url::parse(url).unwrap(), base);
        assert!(under(
            "https://api.example.com/api/order/1/x",
            "https://api.example.com"
        ));
        assert!(under(
            "https://api.example.com/v/api/order",
            "https://api.example.com/v"
        ));
        assert!(!under(
            "https://api.example.com/vx/api",
            "https://api.example.com/v"
        ));
        assert!(!under(
            "https://evil.example.com/api/order",
            "https://api.example.com"
        ));
        assert!(!under(
            "http://api.example.com/api/order",
            "https://api.example.com"
        ));
        assert!(!under(
            "https://api.example.com:8443/api",
            "https://api.example.com"
        ));
        assert!(!under(
            "https://u:p@api.example.com/api",
            "https://api.example.com"
        ));
    }
}

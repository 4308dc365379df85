//! What every generated client does to a request before sending it.

/// Adjusts a request built by generated code to what the service expects:
///
/// - progenitor adds an `api-version` header the service does not define;
///   it is removed;
/// - query values keep their commas literal (`include=basket,payment_status`),
///   which RFC 3986 allows in a query; the URL encoder would send `%2C`.
pub fn prepare(request: &mut reqwest::Request) {
    request.headers_mut().remove("api-version");
    let url = request.url_mut();
    if let Some(query) = url.query() {
        if query.contains("%2C") {
            let literal = query.replace("%2C", ",");
            url.set_query(Some(&literal));
        }
    }
}

/// Wires a generated `Client` to the runtime's [`hooks`](crate::hooks); each
/// generated crate's `lib.rs` calls it once: `psi_runtime::wire_client!();`.
// `crate::OPERATION_IDS` and `crate::IDEMPOTENT_OPERATIONS` deliberately name
// the invoking (generated) crate: each has its own, derived from its document.
#[allow(clippy::crate_in_macro_def)]
#[macro_export]
macro_rules! wire_client {
    () => {
        const OPERATIONS: $crate::hooks::Operations = $crate::hooks::Operations {
            ids: crate::OPERATION_IDS,
            idempotent: crate::IDEMPOTENT_OPERATIONS,
            request_media_types: crate::REQUEST_MEDIA_TYPES,
            optional_bodies: crate::OPTIONAL_BODY_OPERATIONS,
        };

        impl $crate::__private::progenitor_client::ClientHooks<$crate::Context> for Client {
            async fn pre<E>(
                &self,
                request: &mut $crate::__private::reqwest::Request,
                info: &$crate::__private::progenitor_client::OperationInfo,
            ) -> ::std::result::Result<(), $crate::__private::progenitor_client::Error<E>> {
                let context = <Self as $crate::__private::progenitor_client::ClientInfo<
                    $crate::Context,
                >>::inner(self);
                $crate::hooks::pre(context, request, info, OPERATIONS).await
            }

            async fn exec(
                &self,
                request: $crate::__private::reqwest::Request,
                info: &$crate::__private::progenitor_client::OperationInfo,
            ) -> $crate::__private::reqwest::Result<$crate::__private::reqwest::Response> {
                let context = <Self as $crate::__private::progenitor_client::ClientInfo<
                    $crate::Context,
                >>::inner(self);
                let http = <Self as $crate::__private::progenitor_client::ClientInfo<
                    $crate::Context,
                >>::client(self);
                $crate::hooks::exec(context, http, request, info, OPERATIONS).await
            }
        }
    };
}

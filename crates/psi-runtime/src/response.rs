//! Decoding a successful or declared-error answer into progenitor's
//! `ResponseValue`, the way its `ResponseValue::from_response` does, but
//! moving the response's headers into the value instead of cloning them
//! (a header map copy and its allocations on every call).

use progenitor_client::{Error, ResponseValue};
use serde::de::DeserializeOwned;

/// The body of `response` as JSON `T`, with its status and headers; the same
/// errors as progenitor's `ResponseValue::from_response` (a body that could
/// not be read, or the bytes that did not decode with serde's error). The
/// generator calls this in place of `from_response`.
#[doc(hidden)]
pub async fn decode<T: DeserializeOwned, E>(
    mut response: reqwest::Response,
) -> Result<ResponseValue<T>, Error<E>> {
    let status = response.status();
    // Reading the body does not look at the headers again (reqwest chose
    // the body's decoding when the response arrived), so they can leave.
    let headers = std::mem::take(response.headers_mut());
    let full = response.bytes().await.map_err(Error::ResponseBodyError)?;
    let inner =
        serde_json::from_slice(&full).map_err(|e| Error::InvalidResponsePayload(full, e))?;
    Ok(ResponseValue::new(inner, status, headers))
}

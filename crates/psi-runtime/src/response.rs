//! Decoding a successful or declared-error answer into progenitor's
//! `ResponseValue`, the way its `ResponseValue::from_response` does, but
//! moving the response's headers into the value instead of cloning them
//! (a header map copy and its allocations on every call).

use crate::BoxFuture;
use bytes::{Bytes, BytesMut};
use progenitor_client::{Error, ResponseValue};
use serde::de::DeserializeOwned;
use std::future::Future;

/// The body of `response` as JSON `T`, with its status and headers; the same
/// errors as progenitor's `ResponseValue::from_response` (a body that could
/// not be read, or the bytes that did not decode with serde's error). The
/// generator calls this in place of `from_response`.
///
/// A function returning an `async move` block rather than an `async fn`:
/// an `async fn` keeps its argument and a moved copy of it in its state,
/// which every generated call carries.
#[doc(hidden)]
#[allow(clippy::manual_async_fn)] // deliberately not an `async fn`: see above
pub fn decode<T: DeserializeOwned, E>(
    mut response: reqwest::Response,
) -> impl Future<Output = Result<ResponseValue<T>, Error<E>>> {
    async move {
        let status = response.status();
        // Reading the body does not look at the headers again (reqwest chose
        // the body's decoding when the response arrived), so they can leave.
        let headers = std::mem::take(response.headers_mut());
        let full = body_of(&mut response)
            .await
            .map_err(Error::ResponseBodyError)?;
        let inner =
            serde_json::from_slice(&full).map_err(|e| Error::InvalidResponsePayload(full, e))?;
        Ok(ResponseValue::new(inner, status, headers))
    }
}

/// A declared error answer decoded as [`decode`] decodes it: the error
/// response, or the error met reading or decoding its body.
///
/// The generated `send()` awaits this in one arm for all its declared
/// error statuses (`cargo xtask generate` merges progenitor's arms). Out of
/// line and boxed: an answer that is not a 2xx is the rare case, and its
/// decoding then stays out of the code every call runs through.
#[doc(hidden)]
#[cold]
#[inline(never)]
pub fn decode_error<E>(response: reqwest::Response) -> BoxFuture<'static, Error<E>>
where
    E: DeserializeOwned + Send + 'static,
{
    Box::pin(async move {
        match decode::<E, E>(response).await {
            Ok(declared) => Error::ErrorResponse(declared),
            Err(failed) => failed,
        }
    })
}

/// The whole body, as `Response::bytes` reads it (its data frames; the same
/// error, carrying the URL), but read chunk by chunk through `&mut`:
/// `bytes()` takes the response and collects into a buffer list, a future
/// of about 570 bytes that every generated call carried in its own and
/// moved; this one is a few words. One chunk (a small answer) is kept as
/// it came, without a copy.
pub(crate) async fn body_of(response: &mut reqwest::Response) -> reqwest::Result<Bytes> {
    let read = |result: reqwest::Result<Option<Bytes>>, response: &reqwest::Response| {
        result.map_err(|error| error.with_url(response.url().clone()))
    };
    let Some(first) = read(response.chunk().await, response)? else {
        return Ok(Bytes::new());
    };
    let Some(second) = read(response.chunk().await, response)? else {
        return Ok(first);
    };
    let mut full = BytesMut::with_capacity(first.len() + second.len());
    full.extend_from_slice(&first);
    full.extend_from_slice(&second);
    while let Some(chunk) = read(response.chunk().await, response)? {
        full.extend_from_slice(&chunk);
    }
    Ok(full.freeze())
}

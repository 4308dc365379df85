//! One log line per request: method, path, operationId, status and
//! duration, as a `tracing` event with the target `psi_sandbox::request`
//! at INFO (the binary prints them as text or JSON, `--log-format`).
//!
//! Never a token, a secret or a full IBAN: headers and bodies are not
//! logged at all, and a path or query segment that is an IBAN is masked
//! to its first four and last four characters. The operationId is the one
//! the route declares ([`super::operation`]), carried on its answer;
//! routes that are no document's operation (the control API, the hosted
//! page) log `-`.

use super::operation::OperationId;
use crate::auth::control_door::is_control_path;
use crate::state::journal::Entry;
use crate::state::{Tenant, Tenants};
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

/// The `tracing` target of the request lines.
pub const TARGET: &str = "psi_sandbox::request";

/// Outermost around every request ([`crate::router`]): times the rest of the
/// stack answering `request`, logs the call once answered and keeps it in
/// the request journal of its tenant (the answer carries it,
/// [`super::tenant`]) unless it is a control call.
///
/// The URI is kept by reference count (its bytes are shared with the
/// request); the path is masked once ([`Masked`]) for both.
pub async fn log(State(tenants): State<Arc<Tenants>>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().clone();
    let uri = request.uri().clone();
    let response = next.run(request).await;
    let operation = response
        .extensions()
        .get::<OperationId>()
        .map_or("-", |id| id.0);
    // Masked once, for the log line and the journal alike.
    let path = Masked(uri.path_and_query().map_or("/", |path| path.as_str())).to_string();
    let status = response.status().as_u16();
    let duration_ms = (started.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    tracing::info!(
        target: TARGET,
        method = %method,
        path = %path,
        operation_id = operation,
        status,
        duration_ms,
        "request"
    );
    if !is_control_path(uri.path()) {
        let tenant = response.extensions().get::<Arc<Tenant>>().cloned();
        let tenant = tenant.unwrap_or_else(|| tenants.demo());
        tenant.journal.record(Entry {
            method,
            path,
            operation_id: operation,
            status,
            at: chrono::Utc::now(),
            duration_ms,
        });
    }
    response
}

/// A path written with every segment that is a valid IBAN masked
/// (`DE89…3000`), percent-encoded or not; segments are split at `/`, `?`,
/// `&` and `=`. Everything between masked segments is written as it is, in
/// one piece and without a copy (usually the whole path).
struct Masked<'a>(&'a str);

impl std::fmt::Display for Masked<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = self.0;
        // The separators are ASCII, so splitting at their bytes keeps
        // every segment whole UTF-8.
        let bytes = path.as_bytes();
        let mut written = 0;
        let mut segment_start = 0;
        loop {
            let end = bytes[segment_start..]
                .iter()
                .position(|b| matches!(b, b'/' | b'?' | b'&' | b'='))
                .map_or(bytes.len(), |at| segment_start + at);
            if end - segment_start >= SHORTEST_IBAN {
                if let Some(iban) = masked_iban(&path[segment_start..end]) {
                    f.write_str(&path[written..segment_start])?;
                    f.write_str(&iban[..4])?;
                    f.write_char('…')?;
                    f.write_str(&iban[iban.len() - 4..])?;
                    written = end;
                }
            }
            if end == bytes.len() {
                break;
            }
            segment_start = end + 1;
        }
        f.write_str(&path[written..])
    }
}

/// The shortest IBAN (Norway) has 15 characters; decoding escapes and
/// dropping spaces only shortens a segment.
const SHORTEST_IBAN: usize = 15;

/// The IBAN `segment` spells (escapes decoded, spaces dropped), if it is one.
fn masked_iban(segment: &str) -> Option<std::borrow::Cow<'_, str>> {
    if segment.len() < SHORTEST_IBAN {
        return None;
    }
    // The usual segment (an id, a word): nothing to decode, one pass.
    if segment
        .bytes()
        .all(|b| b.is_ascii_graphic() && b != b'%' && b != b'+')
    {
        let iban = starts_like_an_iban(segment) && segment.parse::<iban::Iban>().is_ok();
        return iban.then_some(segment.into());
    }
    let plain = !segment.contains(['%', '+']) && !segment.contains(char::is_whitespace);
    let compact: std::borrow::Cow<'_, str> = if plain {
        segment.into()
    } else {
        let decoded = percent_decoded(segment);
        decoded
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .into()
    };
    (compact.len() >= SHORTEST_IBAN
        && starts_like_an_iban(&compact)
        && compact.parse::<iban::Iban>().is_ok())
    .then_some(compact)
}

/// Two capital letters and two digits: how every IBAN starts (the iban
/// crate refuses anything else first), checked before its whole parsing.
fn starts_like_an_iban(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 4
        && bytes[..2].iter().all(u8::is_ascii_uppercase)
        && bytes[2..4].iter().all(u8::is_ascii_digit)
}

/// `path` masked, as a string (for the tests).
#[cfg(test)]
fn masked(path: &str) -> String {
    Masked(path).to_string()
}

/// The segment with its escapes decoded (`+` read as a space, as in a
/// form-encoded query); invalid escapes are kept as they are.
fn percent_decoded(segment: &str) -> String {
    let spaced = segment.replace('+', " ");
    percent_encoding::percent_decode_str(&spaced)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::masked;

    #[test]
    fn ibans_in_paths_and_queries_are_masked() {
        assert_eq!(
            masked("/accounts/DE89370400440532013000"),
            "/accounts/DE89…3000"
        );
        assert_eq!(
            masked("/x?iban=DE89%203704%200044%200532%200130%2000&y=1"),
            "/x?iban=DE89…3000&y=1"
        );
    }

    #[test]
    fn everything_else_is_kept() {
        for path in [
            "/order/status/v2/transactions/12-34567890123456789?include=all",
            "/pps/api/v1/session-record?createdDate=2026-11-22",
            "/shop/consumer/v1/buyers/b-1/bank-accounts",
            "/%zz/50%",
            "/",
        ] {
            assert_eq!(masked(path), path);
        }
    }

    #[test]
    fn every_iban_segment_is_masked_and_the_rest_kept() {
        assert_eq!(
            masked(
                "DE89370400440532013000/a/GB82WEST12345698765432?x=DE89 3704 0044 0532 0130 00&&"
            ),
            "DE89…3000/a/GB82…5432?x=DE89…3000&&"
        );
        assert_eq!(masked("/x/NO9386011117947"), "/x/NO93…7947");
        // A lower-case IBAN is refused by the iban crate, so shown as it is
        // (and the quick check before parsing refuses no more than it does).
        assert!("de89370400440532013000".parse::<iban::Iban>().is_err());
        assert!("DE89 3704 0044 0532 0130 00".parse::<iban::Iban>().is_ok());
        assert_eq!(
            masked("/x/de89370400440532013000/"),
            "/x/de89370400440532013000/"
        );
    }

    #[test]
    fn an_iban_with_a_wrong_check_digit_is_not_one() {
        // Not an IBAN, so nothing to hide; the sandbox logs what it got.
        assert_eq!(
            masked("/accounts/DE00370400440532013000"),
            "/accounts/DE00370400440532013000"
        );
    }
}

//! The specification's Authentication table, transcribed: the token audience
//! of every API it names, with the address placeholder it lives under. Each
//! `x-psi.audience` must be one of these (or `setting` where the table has no
//! row, or `none` for the token server, which is called without a token).

use crate::apis::{Api, Audience};
use crate::finding::Finding;

/// (the table's name of the API, its audience). The path rows are "after
/// `{api_url}`"; the hosted payment page's audience is the host `{base_url}`
/// itself; the storefront platform (step 5 of the section) authenticates at
/// its own token endpoint, so its "audience" is the platform `{platform_url}`.
pub const AUDIENCES: &[(&str, &str)] = &[
    ("Payment API", "{api_url}/transaction/management"),
    ("Dispute API", "{api_url}/dispute/management"),
    ("Webhook subscriptions", "{api_url}/webhook/management"),
    ("Bank account management", "{api_url}/shop/consumer/v1"),
    ("Pay later", "{api_url}/paylater"),
    (
        "Transaction status for payment API 1.8",
        "{api_url}/order/status/v2/transactions",
    ),
    (
        "Transaction status for payment API 2.0",
        "{api_url}/transaction/status/v2/transactions",
    ),
    ("Hosted payment page API", "{base_url}"),
    (
        "Storefront platform (its own token endpoint)",
        "{platform_url}",
    ),
];

/// The findings of one document's `x-psi` block against the table and the
/// document's own `servers`.
pub fn check(api: &Api, document: &serde_json::Value) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut fail = |pointer: &str, rule: String| {
        findings.push(Finding {
            document: api.document_label(),
            pointer: pointer.to_owned(),
            rule,
        })
    };
    match &api.audience {
        Audience::Table(audience) => {
            if !AUDIENCES.iter().any(|(_, row)| row == audience) {
                fail(
                    "/x-psi/audience",
                    format!(
                        "{audience} is not in the specification's Authentication table \
                         (use `setting` when the table has no row): {}",
                        AUDIENCES
                            .iter()
                            .map(|(_, row)| *row)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            } else if !audience.starts_with(&format!("{{{}}}", api.address)) {
                fail(
                    "/x-psi/audience",
                    format!(
                        "{audience} lives under another address than the API's `{}`",
                        api.address
                    ),
                );
            }
        }
        Audience::Setting if api.address != "setting" => fail(
            "/x-psi/audience",
            "an audience given as a setting needs `address: setting` too (the settings \
             are <name>_url and <name>_audience)"
                .to_owned(),
        ),
        Audience::None if api.address != "auth_url" => fail(
            "/x-psi/audience",
            "only the token server (address auth_url) is called without a token".to_owned(),
        ),
        _ => {}
    }
    let placeholder = if api.address == "setting" {
        format!("{}_url", api.snake())
    } else {
        api.address.clone()
    };
    let server = format!("{{{placeholder}}}{}", api.base_path);
    let declared = document
        .pointer("/servers/0/url")
        .and_then(serde_json::Value::as_str);
    if declared != Some(server.as_str()) {
        fail(
            "/servers/0/url",
            format!("must be `{server}`, the x-psi address and base path (found {declared:?})"),
        );
    }
    findings
}

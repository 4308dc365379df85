//! The hosted payment page against WCAG 2.1 levels A and AA, as axe-core
//! checks it in Chromium: the checkout form (German and English), the form
//! with a refused IBAN, the page of a closed session, the result shown when
//! the shop gave no address to go back to, and the unknown-session page.
//! Any violation fails the test, listed with its rule, impact, elements
//! and what to fix.
//!
//! axe-core comes from npm at the version `tests/axe/package-lock.json`
//! pins (`bash .ci/browser` runs `npm ci` there; `AXE_CORE_JS` names
//! another `axe.min.js`). It is injected into each page through WebDriver's
//! execute-script: the page itself carries no script.

use super::checkout::{or_skip, Checkout};
use fantoccini::Locator;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

/// The rules checked: those axe tags for WCAG 2.0 and 2.1, A and AA.
const TAGS: [&str; 4] = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/// Runs axe on the whole document and hands its violations to WebDriver's
/// callback (an asynchronous script's last argument).
const RUN: &str = r#"
const [tags, done] = arguments;
axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] })
  .then((results) => done({ violations: results.violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact,
    help: violation.help,
    nodes: violation.nodes.map((node) => ({ target: node.target, summary: node.failureSummary })),
  })) }))
  .catch((error) => done({ error: String(error) }));
"#;

/// The text of `axe.min.js`, or where it was looked for.
fn axe_core() -> Result<String, String> {
    let path = std::env::var_os("AXE_CORE_JS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/axe/node_modules/axe-core/axe.min.js"
            ))
        });
    std::fs::read_to_string(&path).map_err(|error| {
        format!(
            "{}: {error} (set AXE_CORE_JS to use another path)",
            path.display()
        )
    })
}

/// axe's violations on the page the browser shows, one line each.
async fn violations(checkout: &Checkout, axe_core: &str) -> Vec<String> {
    let client = &checkout.browser.client;
    let loaded = client
        .execute("return typeof window.axe !== 'undefined';", vec![])
        .await
        .expect("a script runs in the page");
    if loaded != json!(true) {
        client
            .execute(axe_core, vec![])
            .await
            .expect("axe-core loads into the page");
    }
    let answer = client
        .execute_async(RUN, vec![json!(TAGS)])
        .await
        .expect("axe.run answers");
    let Some(violations) = answer["violations"].as_array() else {
        panic!("axe.run failed: {answer}");
    };
    violations
        .iter()
        .map(|violation| {
            let nodes: Vec<String> = violation["nodes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|node| {
                    let summary = node["summary"].as_str().unwrap_or_default();
                    format!(
                        "    {}: {}",
                        node["target"],
                        summary.replace('\n', "\n      ")
                    )
                })
                .collect();
            format!(
                "  {} ({}): {}\n{}",
                violation["id"].as_str().unwrap_or("?"),
                violation["impact"].as_str().unwrap_or("?"),
                violation["help"].as_str().unwrap_or("?"),
                nodes.join("\n")
            )
        })
        .collect()
}

/// Waits for `css` on the page the last click led to.
async fn shows(checkout: &Checkout, css: &str) {
    checkout
        .browser
        .client
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("{css}: {e}"));
}

#[tokio::test]
async fn every_state_of_the_page_passes_axe_for_wcag_2_1_a_and_aa() {
    let Some(axe_core) = or_skip(axe_core()) else {
        return;
    };
    let Some(checkout) = Checkout::open().await else {
        return;
    };
    let mut found: Vec<(&str, Vec<String>)> = Vec::new();

    let (_, landing_page) = checkout.create_session(|_| {}).await;
    checkout.goto(&landing_page).await;
    found.push((
        "the checkout form (de)",
        violations(&checkout, &axe_core).await,
    ));
    checkout.goto(&format!("{landing_page}?lang=en")).await;
    found.push((
        "the checkout form (en)",
        violations(&checkout, &axe_core).await,
    ));

    checkout.click("#method-direct_debit").await;
    checkout
        .type_into("#iban", "DE00 3704 0044 0532 0130 00")
        .await;
    checkout.click("#pay").await;
    shows(&checkout, "#iban-error").await;
    found.push((
        "the form with a refused IBAN",
        violations(&checkout, &axe_core).await,
    ));

    checkout.click("#method-open_invoice").await;
    checkout.click("#pay").await;
    checkout.lands_on(&checkout.success_url()).await;
    checkout.goto(&landing_page).await;
    shows(&checkout, "#status").await;
    found.push((
        "a closed session's page",
        violations(&checkout, &axe_core).await,
    ));

    let (_, without_address) = checkout
        .create_session(|request| request["url_data"]["success_url"] = Value::Null)
        .await;
    checkout.goto(&without_address).await;
    checkout.click("#method-open_invoice").await;
    checkout.click("#pay").await;
    shows(&checkout, "#status").await;
    found.push((
        "the result without a shop address",
        violations(&checkout, &axe_core).await,
    ));

    checkout
        .goto(&format!(
            "{}/pps/landing/no-such-session",
            checkout.sandbox.url()
        ))
        .await;
    found.push((
        "an unknown session's page",
        violations(&checkout, &axe_core).await,
    ));

    // The check finds what it is there for: a field without a label, put
    // into the page, is a violation.
    checkout
        .browser
        .client
        .execute(
            "document.body.append(Object.assign(document.createElement('input'), {type: 'text'}));",
            vec![],
        )
        .await
        .expect("a field is added");
    let planted = violations(&checkout, &axe_core).await;
    assert!(
        planted.iter().any(|line| line.starts_with("  label (")),
        "axe-core misses an unlabelled field:\n{}",
        planted.join("\n")
    );
    checkout.close().await;

    let failed: Vec<String> = found
        .into_iter()
        .filter(|(_, violations)| !violations.is_empty())
        .map(|(state, violations)| format!("{state}:\n{}", violations.join("\n")))
        .collect();
    assert!(
        failed.is_empty(),
        "axe-core finds WCAG 2.1 A/AA violations on the hosted payment page:\n{}",
        failed.join("\n")
    );
}

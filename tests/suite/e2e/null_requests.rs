//! Null is absence in requests too: the provider's own example requests
//! send `null` for unused objects, and the sandbox takes them as a merchant
//! reusing those objects would send them.

use super::sandbox;

#[tokio::test]
async fn the_sandbox_accepts_a_session_request_with_the_providers_null_shapes() {
    let (sandbox, client) = sandbox().await;
    let request = crate::nulls::provider_style_session_request();
    let token = client.token(psi::Api::PaymentPage).await.unwrap();
    let answer = reqwest::Client::new()
        .post(format!(
            "{}/pps/api/v1/session",
            sandbox.addresses().base_url
        ))
        .bearer_auth(token.expose())
        .json(&request)
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let body: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(status, 201, "{body}");
    assert!(body["session_id"].is_string(), "{body}");
    // The sandbox holds the session.
    let sessions = sandbox.control().sessions().await.unwrap();
    let id = body["session_id"].as_str().unwrap();
    assert!(sessions
        .iter()
        .any(|record| record.session_id.as_deref() == Some(id)));
}

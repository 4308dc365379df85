//! Per-operation facts the runtime needs and progenitor does not keep:
//! the request media type each document declares, the operations whose
//! success may come without a body, and the query parameters sent as one
//! comma-joined value. `rebuild.rs` writes them into each `send()`'s
//! `OPERATION`.

use serde_json::Value;

/// `(operationId, media type)` of every operation with a request body, exactly
/// as the document spells the media type (`application/json;charset=UTF-8`).
pub fn request_media_types(document: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = crate::lint::operation_pointers(document)
        .into_iter()
        .filter_map(|(_, operation)| {
            let id = operation.get("operationId")?.as_str()?;
            let content = operation.pointer("/requestBody/content")?.as_object()?;
            let media_type = content.keys().next()?;
            Some((id.to_owned(), media_type.clone()))
        })
        .collect();
    out.sort();
    out
}

/// operationIds whose success is declared as the `2XX` range with a body
/// (rule 3 of `docs/document-rules.md`): the service may answer any 2xx, with the
/// body or without one, and the runtime reads an empty body as `null`.
pub fn optional_success_bodies(document: &Value) -> Vec<String> {
    let mut out: Vec<String> = crate::lint::operation_pointers(document)
        .into_iter()
        .filter(|(_, operation)| {
            operation
                .pointer("/responses/2XX/content")
                .and_then(Value::as_object)
                .is_some_and(|content| !content.is_empty())
        })
        .filter_map(|(_, operation)| operation.get("operationId")?.as_str().map(str::to_owned))
        .collect();
    out.sort();
    out
}

/// `(operationId, member)` of every operation whose `x-psi-refused-when-false`
/// names a boolean member of its 2xx body that is `false` on a refusal
/// (`docs/document-rules.md`, "Refusals inside a success").
pub fn refusal_members(document: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = crate::lint::operation_pointers(document)
        .into_iter()
        .filter_map(|(_, operation)| {
            let id = operation.get("operationId")?.as_str()?;
            let member = operation.get("x-psi-refused-when-false")?.as_str()?;
            Some((id.to_owned(), member.to_owned()))
        })
        .collect();
    out.sort();
    out
}

/// `(operationId, query parameter)` of every query parameter whose schema is
/// a [`COMMA_SEPARATED_SCHEMAS`](crate::conventions::COMMA_SEPARATED_SCHEMAS) list: only
/// their values may carry literal commas on the wire.
pub fn comma_separated_query(document: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (_, operation) in crate::lint::operation_pointers(document) {
        let Some(id) = operation.get("operationId").and_then(Value::as_str) else {
            continue;
        };
        for parameter in operation
            .get("parameters")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let in_query = parameter.get("in").and_then(Value::as_str) == Some("query");
            let comma_separated = parameter
                .pointer("/schema/$ref")
                .and_then(Value::as_str)
                .and_then(|reference| reference.strip_prefix("#/components/schemas/"))
                .is_some_and(|name| crate::conventions::COMMA_SEPARATED_SCHEMAS.contains(&name));
            if let (true, true, Some(name)) = (
                in_query,
                comma_separated,
                parameter.get("name").and_then(Value::as_str),
            ) {
                out.push((id.to_owned(), name.to_owned()));
            }
        }
    }
    out.sort();
    out
}

//! Per-operation facts the runtime needs and progenitor does not keep:
//! the request media type each document declares, and the operations whose
//! success may come without a body.

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
/// (rule 3 of `openapi/README.md`): the service may answer any 2xx, with the
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

/// The two constants as Rust source, appended to `generated.rs`.
pub fn render(media_types: &[(String, String)], optional_bodies: &[String]) -> String {
    let mut code = String::from(
        "\n/// The media type each operation's document declares for its request body;\n\
         /// the runtime sends exactly this `Content-Type`.\n\
         pub const REQUEST_MEDIA_TYPES: &[(&str, &str)] = &[\n",
    );
    for (id, media_type) in media_types {
        code.push_str(&format!("    ({id:?}, {media_type:?}),\n"));
    }
    code.push_str("];\n");
    code.push_str(&format!(
        "\n/// Operations whose success is any 2xx, with the documented body or none;\n\
         /// the runtime reads an empty success body as `null`.\n\
         pub const OPTIONAL_BODY_OPERATIONS: &[&str] = &{optional_bodies:?};\n"
    ));
    code
}

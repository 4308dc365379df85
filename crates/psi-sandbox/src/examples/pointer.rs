//! JSON pointers into a document: what a local `$ref` points to, and a key
//! as a pointer token. Below everything that reads a document.

use serde_json::Value;

/// `value`, or what its local `$ref` (`#/components/...`) points to.
pub fn resolve<'a>(root: &'a Value, value: &'a Value) -> Result<&'a Value, String> {
    resolve_at(root, String::new(), value).map(|(_, value)| value)
}

/// [`resolve`], also following the JSON pointer `at` of `value` to the
/// pointer of what it resolves to.
pub fn resolve_at<'a>(
    root: &'a Value,
    mut at: String,
    mut value: &'a Value,
) -> Result<(String, &'a Value), String> {
    for _ in 0..32 {
        let Some(reference) = value.get("$ref").and_then(Value::as_str) else {
            return Ok((at, value));
        };
        let pointer = reference.strip_prefix('#').ok_or_else(|| {
            format!("{reference}: only references inside the document are served")
        })?;
        value = root
            .pointer(pointer)
            .ok_or_else(|| format!("{reference} points to nothing"))?;
        at = pointer.to_owned();
    }
    Err("a cycle of references".to_owned())
}

/// A key as a JSON pointer token.
pub fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

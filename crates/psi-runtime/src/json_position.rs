//! The JSON path of a position in a JSON text.
//!
//! serde_json reports where decoding failed as a line and a column, not as
//! a path, and `psi::Error` does not know the type that was being decoded.
//! Walking the text up to that position, keeping the stack of containers
//! and the current member or index, gives the path of the value the parser
//! was reading (`$.order_data.shop_baskets[0].gross_amount`).

/// One open container.
enum Frame {
    Object { key: Option<String> },
    Array { index: usize },
}

/// The path of the value at (`line`, `column`) (1-based, as serde_json
/// counts; column 0 is before the first character of the line) in `text`.
pub(crate) fn path_at(text: &[u8], line: usize, column: usize) -> String {
    let end = offset_of(text, line, column).min(text.len());
    let mut stack: Vec<Frame> = Vec::new();
    // After `{` or `,` inside an object, the next string is a member name.
    let mut expecting_key = false;
    let mut at = 0;
    while at < end {
        match text[at] {
            b'{' => {
                stack.push(Frame::Object { key: None });
                expecting_key = true;
            }
            b'[' => stack.push(Frame::Array { index: 0 }),
            b'}' | b']' => {
                // Leave the container only when the error lies past it.
                stack.pop();
                expecting_key = false;
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array { index }) => *index += 1,
                Some(Frame::Object { .. }) => expecting_key = true,
                None => {}
            },
            b'"' => {
                let (string, next) = read_string(text, at);
                if expecting_key {
                    if let Some(Frame::Object { key }) = stack.last_mut() {
                        *key = Some(string);
                    }
                    expecting_key = false;
                }
                at = next;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
    render(&stack)
}

/// Byte offset of (`line`, `column`).
fn offset_of(text: &[u8], line: usize, column: usize) -> usize {
    let mut current = 1;
    let mut start = 0;
    for (index, byte) in text.iter().enumerate() {
        if current == line {
            break;
        }
        if *byte == b'\n' {
            current += 1;
            start = index + 1;
        }
    }
    start + column
}

/// The string starting at the quote at `start` (escapes kept as written,
/// which suffices for member names), and the offset after its closing quote.
fn read_string(text: &[u8], start: usize) -> (String, usize) {
    let mut at = start + 1;
    while at < text.len() {
        match text[at] {
            b'\\' => at += 2,
            b'"' => {
                let content = String::from_utf8_lossy(&text[start + 1..at]).into_owned();
                return (content, at + 1);
            }
            _ => at += 1,
        }
    }
    (
        String::from_utf8_lossy(&text[(start + 1).min(text.len())..]).into_owned(),
        text.len(),
    )
}

fn render(stack: &[Frame]) -> String {
    let mut path = String::from("$");
    for frame in stack {
        match frame {
            Frame::Object { key: Some(key) } => {
                path.push('.');
                path.push_str(key);
            }
            Frame::Object { key: None } => {}
            Frame::Array { index } => path.push_str(&format!("[{index}]")),
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::path_at;

    /// The path serde_json's own error position points at, for a type
    /// mismatch deep in a document.
    fn path_of_error<T: serde::de::DeserializeOwned + std::fmt::Debug>(json: &str) -> String {
        let error = serde_json::from_str::<T>(json).unwrap_err();
        path_at(json.as_bytes(), error.line(), error.column())
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Item {
        quantity: u32,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Basket {
        name: String,
        items: Vec<Item>,
    }

    #[test]
    fn a_type_mismatch_is_found_at_its_member() {
        let json = r#"{"name": "b", "items": [{"quantity": 1}, {"quantity": "two"}]}"#;
        assert_eq!(path_of_error::<Basket>(json), "$.items[1].quantity");
    }

    #[test]
    fn lines_and_nested_keys_count() {
        let json = "{\n  \"name\": \"a,b}\",\n  \"items\": [\n    {\"quantity\": -1}\n  ]\n}";
        assert_eq!(path_of_error::<Basket>(json), "$.items[0].quantity");
    }

    #[test]
    fn a_missing_member_names_its_object() {
        let json = r#"{"name": "b", "items": [{}]}"#;
        assert_eq!(path_of_error::<Basket>(json), "$.items[0]");
    }

    #[test]
    fn a_broken_document_is_the_root() {
        assert_eq!(path_of_error::<Basket>("not json"), "$");
    }
}

//! OpenAPI path templates (`/disputes/{dispute_id}`, `/files/{id}.pdf`):
//! matching a request path and naming the axum route that leads to it.
//!
//! axum's router takes a parameter only as a whole segment, so a segment
//! mixing text and parameters becomes one axum parameter and its text is
//! checked here.

/// A path template, split into segments.
#[derive(Debug)]
pub struct Template {
    segments: Vec<Vec<Piece>>,
}

#[derive(Debug, PartialEq)]
enum Piece {
    Text(String),
    Parameter(String),
}

impl Template {
    /// Parses `path` (the base path and the document's path together).
    pub fn parse(path: &str) -> Result<Self, String> {
        let segments = path
            .trim_start_matches('/')
            .split('/')
            .map(|segment| pieces(segment).ok_or_else(|| format!("{path}: unbalanced {{ }}")))
            .collect::<Result<_, _>>()?;
        Ok(Self { segments })
    }

    /// The names of the template's parameters, in order.
    pub fn parameters(&self) -> impl Iterator<Item = &str> {
        self.segments
            .iter()
            .flatten()
            .filter_map(|piece| match piece {
                Piece::Parameter(name) => Some(name.as_str()),
                Piece::Text(_) => None,
            })
    }

    /// The route axum serves it under: a segment holding a parameter is
    /// the axum parameter named after its first parameter.
    pub fn axum_path(&self) -> String {
        self.joined(|segment| match segment.iter().find_map(parameter_name) {
            Some(name) => format!("{{{name}}}"),
            None => text_of(segment).replace('{', "{{").replace('}', "}}"),
        })
    }

    /// The route with its parameter names blanked: templates of one shape
    /// share one axum route.
    pub fn shape(&self) -> String {
        self.joined(|segment| match segment.iter().find_map(parameter_name) {
            Some(_) => "{}".to_owned(),
            None => text_of(segment),
        })
    }

    /// The parameters' values (percent-encoded, as in the path) when `path`
    /// (undecoded) matches the template.
    pub fn capture(&self, path: &str) -> Option<Vec<(String, String)>> {
        let segments: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        if segments.len() != self.segments.len() {
            return None;
        }
        let mut values = Vec::new();
        for (pieces, segment) in self.segments.iter().zip(segments) {
            capture_segment(pieces, segment, &mut values)?;
        }
        Some(values)
    }

    fn joined(&self, segment: impl Fn(&[Piece]) -> String) -> String {
        let parts: Vec<String> = self.segments.iter().map(|s| segment(s)).collect();
        format!("/{}", parts.join("/"))
    }
}

fn parameter_name(piece: &Piece) -> Option<&str> {
    match piece {
        Piece::Parameter(name) => Some(name),
        Piece::Text(_) => None,
    }
}

fn text_of(segment: &[Piece]) -> String {
    segment
        .iter()
        .map(|piece| match piece {
            Piece::Text(text) => text.as_str(),
            Piece::Parameter(_) => "",
        })
        .collect()
}

fn pieces(segment: &str) -> Option<Vec<Piece>> {
    let mut pieces = Vec::new();
    let mut rest = segment;
    while let Some(open) = rest.find('{') {
        let close = rest[open..].find('}')? + open;
        if open > 0 {
            pieces.push(Piece::Text(rest[..open].to_owned()));
        }
        pieces.push(Piece::Parameter(rest[open + 1..close].to_owned()));
        rest = &rest[close + 1..];
    }
    if rest.contains('}') {
        return None;
    }
    if !rest.is_empty() || pieces.is_empty() {
        pieces.push(Piece::Text(rest.to_owned()));
    }
    Some(pieces)
}

/// Matches one segment: text exactly, a parameter up to the next text (or
/// to the end).
fn capture_segment(
    pieces: &[Piece],
    mut segment: &str,
    values: &mut Vec<(String, String)>,
) -> Option<()> {
    for (index, piece) in pieces.iter().enumerate() {
        match piece {
            Piece::Text(text) => segment = segment.strip_prefix(text.as_str())?,
            Piece::Parameter(name) => {
                let end = match pieces.get(index + 1) {
                    Some(Piece::Text(next)) => segment.find(next.as_str())?,
                    _ => segment.len(),
                };
                values.push((name.clone(), segment[..end].to_owned()));
                segment = &segment[end..];
            }
        }
    }
    segment.is_empty().then_some(())
}

#[cfg(test)]
mod tests {
    use super::Template;

    #[test]
    fn whole_segment_parameters_are_axum_parameters() {
        let template = Template::parse("/dispute/management/v1/disputes/{dispute_id}").unwrap();
        assert_eq!(
            template.axum_path(),
            "/dispute/management/v1/disputes/{dispute_id}"
        );
        assert_eq!(template.shape(), "/dispute/management/v1/disputes/{}");
        assert_eq!(
            template.capture("/dispute/management/v1/disputes/d-1"),
            Some(vec![("dispute_id".to_owned(), "d-1".to_owned())])
        );
        assert_eq!(template.capture("/dispute/management/v1/disputes"), None);
        assert_eq!(template.capture("/dispute/management/v2/disputes/d"), None);
    }

    #[test]
    fn a_mixed_segment_is_checked_here() {
        let template = Template::parse("/files/{id}.pdf").unwrap();
        assert_eq!(template.axum_path(), "/files/{id}");
        assert_eq!(
            template.capture("/files/a.b.pdf"),
            Some(vec![("id".to_owned(), "a.b".to_owned())])
        );
        assert_eq!(
            template.capture("/files/x.pdf"),
            Some(vec![("id".to_owned(), "x".to_owned())])
        );
        assert_eq!(template.capture("/files/x.txt"), None);
        assert!(Template::parse("/files/{id").is_err());
    }
}

//! Two rewrites of progenitor's per-call code, each saving allocations on
//! every call without changing what is sent or returned:
//!
//! - `ResponseValue::from_response(response)` becomes
//!   `::psi_runtime::decode_response(response)`: the same decoding and
//!   errors, with the response's headers moved into the value instead of
//!   cloned.
//! - `encode_path(&value.to_string())` inside the URL's `format!` becomes
//!   `{ use ::psi_runtime::ToPathSegment as _; value.path_segment() }`: the
//!   value is formatted and percent-encoded (the same bytes) straight into
//!   the URL, without a copy of it and a second string for its encoded
//!   form. A method call (not a function) so that `Display` is found through
//!   `Deref` as for the `to_string()` it replaces (typify's string newtypes).
//!
//! Both work on tokens, so they reach every place progenitor writes them
//! (match arms, macro arguments) whatever the surrounding code looks like.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::{quote, ToTokens};

/// Rewrites `file`; an error when an operation file has no `from_response`
/// or no `encode_path(& … .to_string())` is left unrewritten while
/// `encode_path` still appears, which means progenitor's output changed
/// and this needs a look.
pub fn rewrite(file: &mut syn::File) -> Result<(), String> {
    let mut counts = Counts::default();
    let tokens = rewrite_stream(file.to_token_stream(), &mut counts);
    if file.to_token_stream().to_string().contains("OperationInfo") && counts.decodes == 0 {
        return Err(
            "progenitor's `ResponseValue::from_response` was not found: \
                    check xtask/src/generate/per_call.rs against the generated code"
                .into(),
        );
    }
    *file = syn::parse2(tokens).map_err(|e| format!("per_call rewrite does not parse: {e}"))?;
    let left = file
        .to_token_stream()
        .to_string()
        .matches("encode_path (")
        .count();
    if left > 0 {
        return Err(format!(
            "{left} `encode_path(..)` calls not of the form `encode_path(&value.to_string())`: \
             check xtask/src/generate/per_call.rs"
        ));
    }
    Ok(())
}

#[derive(Default)]
struct Counts {
    decodes: usize,
}

fn rewrite_stream(stream: TokenStream, counts: &mut Counts) -> TokenStream {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let mut out = TokenStream::new();
    let mut at = 0;
    while at < tokens.len() {
        // `ResponseValue :: from_response`
        if is_ident(&tokens[at], "ResponseValue")
            && is_colon(tokens.get(at + 1))
            && is_colon(tokens.get(at + 2))
            && tokens
                .get(at + 3)
                .is_some_and(|t| is_ident(t, "from_response"))
        {
            out.extend(quote!(::psi_runtime::decode_response));
            counts.decodes += 1;
            at += 4;
            continue;
        }
        // `encode_path ( & <value> . to_string ( ) )`
        if is_ident(&tokens[at], "encode_path") {
            if let Some(TokenTree::Group(args)) = tokens.get(at + 1) {
                if let Some(value) = displayed_value(args) {
                    let value = rewrite_stream(value, counts);
                    out.extend(quote!({
                        use ::psi_runtime::ToPathSegment as _;
                        #value.path_segment()
                    }));
                    at += 2;
                    continue;
                }
            }
        }
        match &tokens[at] {
            TokenTree::Group(group) => {
                let mut rewritten =
                    Group::new(group.delimiter(), rewrite_stream(group.stream(), counts));
                rewritten.set_span(group.span());
                out.extend([TokenTree::Group(rewritten)]);
            }
            other => out.extend([other.clone()]),
        }
        at += 1;
    }
    out
}

/// `<value>` of the argument list `(& <value> . to_string ( ))`.
fn displayed_value(args: &Group) -> Option<TokenStream> {
    if args.delimiter() != Delimiter::Parenthesis {
        return None;
    }
    let tokens: Vec<TokenTree> = args.stream().into_iter().collect();
    let n = tokens.len();
    if n < 5 || !matches!(&tokens[0], TokenTree::Punct(p) if p.as_char() == '&') {
        return None;
    }
    let ends_with_to_string = matches!(&tokens[n - 3], TokenTree::Punct(p) if p.as_char() == '.')
        && is_ident(&tokens[n - 2], "to_string")
        && matches!(&tokens[n - 1], TokenTree::Group(g)
            if g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty());
    ends_with_to_string.then(|| tokens[1..n - 3].iter().cloned().collect())
}

fn is_ident(token: &TokenTree, name: &str) -> bool {
    matches!(token, TokenTree::Ident(ident) if ident == name)
}

fn is_colon(token: Option<&TokenTree>) -> bool {
    matches!(token, Some(TokenTree::Punct(p)) if p.as_char() == ':')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(code: &str) -> String {
        let mut file: syn::File = syn::parse_str(code).unwrap();
        rewrite(&mut file).unwrap();
        file.to_token_stream().to_string()
    }

    #[test]
    fn decodes_and_path_segments_are_rewritten() {
        let code = rewritten(
            r#"fn send() {
                let info = OperationInfo { operation_id: "x" };
                let url = format!("{}/a/{}/b", client.baseurl, encode_path(&transaction_id.to_string()));
                match status { 200..=299 => ResponseValue::from_response(response).await,
                    _ => Err(Error::ErrorResponse(ResponseValue::from_response(response).await?)) }
            }"#,
        );
        assert!(!code.contains("from_response"), "{code}");
        assert_eq!(code.matches(":: psi_runtime :: decode_response").count(), 2);
        assert!(code.contains("transaction_id . path_segment ()"), "{code}");
    }

    #[test]
    fn an_unexpected_encode_path_is_an_error() {
        let mut file: syn::File = syn::parse_str(
            r#"fn send() { let info = OperationInfo { operation_id: "x" };
               ResponseValue::from_response(r); let u = encode_path(x); }"#,
        )
        .unwrap();
        assert!(rewrite(&mut file).is_err());
    }
}

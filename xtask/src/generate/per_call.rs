//! A rewrite of progenitor's per-call code that saves allocations on every
//! call without changing what is sent or returned:
//! `ResponseValue::from_response(response)` becomes
//! `::psi_runtime::decode_response(response)`: the same decoding and errors,
//! with the response's headers moved into the value instead of cloned.
//!
//! It works on tokens, so it reaches every place progenitor writes it
//! (match arms, macro arguments) whatever the surrounding code looks like.
//! (The URL's `encode_path(..)` calls are rebuild.rs's: it writes the URL.)

use proc_macro2::{Group, TokenStream, TokenTree};
use quote::{quote, ToTokens};

/// Rewrites `file`; an error when an operation file has no `from_response`,
/// which means progenitor's output changed and this needs a look.
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
    fn decodes_are_rewritten() {
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
    }
}

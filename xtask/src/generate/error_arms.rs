//! The declared errors of a generated `send()` decoded out of line, in one
//! match arm.
//!
//! progenitor writes one arm per declared error status, each with the same
//! body:
//!
//! ```text
//! 400u16 => { Err(Error::ErrorResponse(::psi_runtime::decode_response(response).await?)) }
//! 401u16 => { Err(Error::ErrorResponse(::psi_runtime::decode_response(response).await?)) }
//! ```
//!
//! Each `.await` is a state of the call's future, with the body read and
//! the JSON decoding compiled into the poll function every call runs
//! through, successes included: a dozen copies in some operations, most of
//! that function's machine code. A run of consecutive arms of that shape
//! becomes one:
//!
//! ```text
//! 400u16 | 401u16 => Err(::psi_runtime::decode_error(response).await),
//! ```
//!
//! `decode_error` is the same decoding with the same errors, made out of
//! line and boxed (an answer that is not a 2xx is the rare case). Only
//! consecutive arms with literal patterns are merged, so no other arm's
//! order changes.

use quote::ToTokens;

/// Rewrites every `send()` in `file`; an error when an operation file has
/// no such arm left to rewrite while progenitor's shape is still there
/// (its output changed and this needs a look).
pub fn decode_out_of_line(file: &mut syn::File) -> Result<(), String> {
    let declared_error: syn::Expr = syn::parse_quote! {
        { Err(Error::ErrorResponse(::psi_runtime::decode_response(response).await?)) }
    };
    let mut visitor = Arms {
        declared_error: declared_error.to_token_stream().to_string(),
    };
    syn::visit_mut::VisitMut::visit_file_mut(&mut visitor, file);
    let left = file
        .to_token_stream()
        .to_string()
        .contains("Error :: ErrorResponse (:: psi_runtime :: decode_response");
    if left {
        return Err(
            "an error arm of progenitor's shape was left: check xtask/src/generate/error_arms.rs"
                .into(),
        );
    }
    Ok(())
}

/// progenitor's arm body for a declared error status (after per_call.rs),
/// as tokens: what each arm's body is compared with.
struct Arms {
    declared_error: String,
}

impl syn::visit_mut::VisitMut for Arms {
    fn visit_expr_match_mut(&mut self, node: &mut syn::ExprMatch) {
        syn::visit_mut::visit_expr_match_mut(self, node);
        let mut arms: Vec<syn::Arm> = Vec::with_capacity(node.arms.len());
        let mut run: Vec<syn::Pat> = Vec::new();
        let flush = |run: &mut Vec<syn::Pat>, arms: &mut Vec<syn::Arm>| {
            if run.is_empty() {
                return;
            }
            let cases = std::mem::take(run);
            arms.push(syn::parse_quote! {
                #(#cases)|* => Err(::psi_runtime::decode_error(response).await),
            });
        };
        for arm in node.arms.drain(..) {
            if is_literal(&arm.pat)
                && arm.guard.is_none()
                && arm.body.to_token_stream().to_string() == self.declared_error
            {
                run.push(arm.pat);
            } else {
                flush(&mut run, &mut arms);
                arms.push(arm);
            }
        }
        flush(&mut run, &mut arms);
        node.arms = arms;
    }
}

fn is_literal(pat: &syn::Pat) -> bool {
    matches!(pat, syn::Pat::Lit(_))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(code: &str) -> Result<String, String> {
        let mut file: syn::File = syn::parse_str(code).unwrap();
        decode_out_of_line(&mut file)?;
        Ok(file.to_token_stream().to_string())
    }

    #[test]
    fn consecutive_error_arms_become_one_out_of_line_decode() {
        let code = rewritten(
            r#"async fn send() {
                match response.status().as_u16() {
                    200..=299 => ::psi_runtime::decode_response(response).await,
                    400u16 => { Err(Error::ErrorResponse(::psi_runtime::decode_response(response).await?)) }
                    401u16 => { Err(Error::ErrorResponse(::psi_runtime::decode_response(response).await?)) }
                    409u16 => { Err(Error::ErrorResponse(ResponseValue::empty(response))) }
                    422u16 => { Err(Error::ErrorResponse(::psi_runtime::decode_response(response).await?)) }
                    _ => Err(Error::UnexpectedResponse(response)),
                }
            }"#,
        )
        .unwrap();
        assert!(
            code.contains(
                "400u16 | 401u16 => Err (:: psi_runtime :: decode_error (response) . await) ,"
            ),
            "{code}"
        );
        // The arm of another shape stays where it was, and so splits the runs.
        assert!(
            code.contains("409u16 => { Err (Error :: ErrorResponse (ResponseValue :: empty (response))) } 422u16 => Err (:: psi_runtime :: decode_error (response) . await) ,"),
            "{code}"
        );
        assert!(
            code.contains("200 ..= 299 => :: psi_runtime :: decode_response (response) . await ,"),
            "{code}"
        );
        assert!(
            code.contains("_ => Err (Error :: UnexpectedResponse (response))"),
            "{code}"
        );
    }

    #[test]
    fn a_guarded_error_arm_is_left_and_reported() {
        let error = rewritten(
            r#"async fn send() {
                match status {
                    400u16 if true => { Err(Error::ErrorResponse(::psi_runtime::decode_response(response).await?)) }
                    _ => Err(Error::UnexpectedResponse(response)),
                }
            }"#,
        )
        .unwrap_err();
        assert!(error.contains("error_arms.rs"), "{error}");
    }
}

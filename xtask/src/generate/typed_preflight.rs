//! Pre-flight on the typed body: in every generated `send()` that sends a
//! JSON body, progenitor's
//!
//! ```text
//! let result = client.exec(request, &info).await;
//! ```
//!
//! becomes
//!
//! ```text
//! let result = client.exec_checked(request, &info, &body).await;
//! ```
//!
//! `body` is the typed request (`types::SessionRequest`) the call has just
//! serialized with `.json(&body)`; the runtime hands it to the pre-flight checks as
//! `&dyn Any`, so they downcast it instead of parsing the JSON back into the
//! same type (which compiled every nested `Deserialize` impl into psi).
//! Everything else about the call (the span, the order of the refusals, the
//! stand-in answer) stays in `psi_runtime::hooks::exec`. (The next pass,
//! `rebuild.rs`, turns `exec_checked(request, &info, &body)` into the
//! client's `send_call(.., Some(&body))`, which `wire_client!` writes.)

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::{quote, ToTokens};

/// Rewrites every `send()` with a JSON body in `file`; an error when one has
/// a body but not exactly one `client.exec(request, &info)` to rewrite, or a
/// body sent other than as `.json(&body)`, or a `.json(&body)` outside a
/// `send()`: progenitor's output changed and this needs a look.
pub fn hand_typed_body_to_exec(file: &mut syn::File) -> Result<(), String> {
    let serialized = count(&file.to_token_stream(), JSON_BODY);
    let mut rewritten = 0;
    rewrite_items(&mut file.items, &mut rewritten)?;
    if rewritten != serialized {
        return Err(format!(
            "{serialized} `.json(&body)` but {rewritten} `send()` rewritten: \
             check xtask/src/generate/typed_preflight.rs against the generated code"
        ));
    }
    Ok(())
}

const JSON_BODY: &str = ". json (& body)";
const EXEC: &str = "client . exec (request , & info)";

fn rewrite_items(items: &mut [syn::Item], rewritten: &mut usize) -> Result<(), String> {
    for item in items {
        match item {
            syn::Item::Mod(module) => {
                if let Some((_, items)) = &mut module.content {
                    rewrite_items(items, rewritten)?;
                }
            }
            syn::Item::Impl(block) => {
                for member in &mut block.items {
                    if let syn::ImplItem::Fn(function) = member {
                        if function.sig.ident == "send" && rewrite_send(function)? {
                            *rewritten += 1;
                        }
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Rewrites one `send()`; `false` when it has no body.
fn rewrite_send(function: &mut syn::ImplItemFn) -> Result<bool, String> {
    let code = function.block.to_token_stream();
    let name = operation_of(&code);
    let sends_json = count(&code, JSON_BODY) == 1;
    if !sends_json {
        if code.to_string().contains("let body =") {
            return Err(format!(
                "a `send()` ({name}) with a body not sent once as `.json(&body)`: \
                 check xtask/src/generate/typed_preflight.rs"
            ));
        }
        return Ok(false);
    }
    let execs = count(&code, EXEC);
    if execs != 1 {
        return Err(format!(
            "a `send()` ({name}) with {execs} `client.exec(request, &info)` instead of one: \
             check xtask/src/generate/typed_preflight.rs"
        ));
    }
    let tokens = with_checked_exec(code);
    function.block =
        syn::parse2(tokens).map_err(|e| format!("typed pre-flight rewrite does not parse: {e}"))?;
    Ok(true)
}

/// The operation a `send()` belongs to, for error messages.
fn operation_of(code: &TokenStream) -> String {
    let text = code.to_string();
    text.split("operation_id : \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or("unknown operation")
        .to_owned()
}

/// `client . exec (request , & info)` becomes
/// `client . exec_checked (request , & info , & body)`, at any depth.
fn with_checked_exec(stream: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let mut out = TokenStream::new();
    let mut at = 0;
    while at < tokens.len() {
        if is_plain_exec(&tokens[at..]) {
            out.extend(quote!(client.exec_checked(request, &info, &body)));
            at += 4;
            continue;
        }
        match &tokens[at] {
            TokenTree::Group(group) => {
                let mut inner = Group::new(group.delimiter(), with_checked_exec(group.stream()));
                inner.set_span(group.span());
                out.extend([TokenTree::Group(inner)]);
            }
            other => out.extend([other.clone()]),
        }
        at += 1;
    }
    out
}

/// Whether `tokens` start with `client . exec (request , & info)`.
fn is_plain_exec(tokens: &[TokenTree]) -> bool {
    match tokens {
        [TokenTree::Ident(client), TokenTree::Punct(dot), TokenTree::Ident(exec), TokenTree::Group(args), ..] => {
            client == "client"
                && dot.as_char() == '.'
                && exec == "exec"
                && args.delimiter() == Delimiter::Parenthesis
                && args.stream().to_string() == "request , & info"
        }
        _ => false,
    }
}

/// How often the token sequence `pattern` (as printed) occurs in `stream`,
/// at any depth (printing a stream prints its groups too).
fn count(stream: &TokenStream, pattern: &str) -> usize {
    stream.to_string().matches(pattern).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SENDS: &str = r#"
        pub mod builder {
            impl<'a> CreateSession<'a> {
                pub async fn send(self) -> Result<ResponseValue<types::SessionResponse>, Error<()>> {
                    let Self { client, body } = self;
                    let body = body.and_then(|v| types::SessionRequest::try_from(v).map_err(|e| e.to_string()))
                        .map_err(Error::InvalidRequest)?;
                    let mut request = client.client.post(url).json(&body).build()?;
                    let info = OperationInfo { operation_id: "create_session" };
                    client.pre(&mut request, &info).await?;
                    let result = client.exec(request, &info).await;
                    client.post(&result, &info).await?;
                    todo!()
                }
            }
            impl<'a> GetSession<'a> {
                pub async fn send(self) -> Result<ResponseValue<types::Session>, Error<()>> {
                    let mut request = client.client.get(url).build()?;
                    let info = OperationInfo { operation_id: "get_session" };
                    client.pre(&mut request, &info).await?;
                    let result = client.exec(request, &info).await;
                    todo!()
                }
            }
        }"#;

    #[test]
    fn only_calls_with_a_body_pass_it_to_the_checked_exec() {
        let mut file: syn::File = syn::parse_str(SENDS).unwrap();
        hand_typed_body_to_exec(&mut file).unwrap();
        let code = file.to_token_stream().to_string();
        assert_eq!(
            code.matches("client . exec_checked (request , & info , & body) . await")
                .count(),
            1,
            "{code}"
        );
        // The call without a body keeps the plain hook.
        assert_eq!(code.matches(EXEC).count(), 1, "{code}");
        let get = code.split("GetSession").nth(1).unwrap();
        assert!(get.contains(EXEC), "{get}");
    }

    #[test]
    fn an_unexpected_shape_fails_generation() {
        // The exec call progenitor no longer writes as expected.
        let renamed = SENDS.replacen(
            "client.exec(request, &info)",
            "client.execute(request, &info)",
            1,
        );
        let mut file: syn::File = syn::parse_str(&renamed).unwrap();
        let error = hand_typed_body_to_exec(&mut file).unwrap_err();
        assert!(error.contains("create_session"), "{error}");

        // A body sent another way than `.json(&body)`.
        let form = SENDS.replace(".json(&body)", ".form_urlencoded(&body)?");
        let mut file: syn::File = syn::parse_str(&form).unwrap();
        let error = hand_typed_body_to_exec(&mut file).unwrap_err();
        assert!(error.contains("not sent once as `.json(&body)`"), "{error}");

        // A JSON body outside a `send()`.
        let elsewhere = SENDS.replace("pub async fn send(self)", "pub async fn run(self)");
        let mut file: syn::File = syn::parse_str(&elsewhere).unwrap();
        let error = hand_typed_body_to_exec(&mut file).unwrap_err();
        assert!(
            error.contains("1 `.json(&body)` but 0 `send()` rewritten"),
            "{error}"
        );
    }
}

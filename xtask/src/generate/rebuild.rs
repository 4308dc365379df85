//! Every generated `send()` ends in the runtime's one call path. After
//! its parameters are checked, progenitor's
//!
//! ```text
//! let url = format!("{}/a/{}", client.baseurl, encode_path(&id.to_string()),);
//! let mut header_map = ...;                       // header parameters, if any
//! #[allow(unused_mut)]
//! let mut request = client.client.get(url)...build()?;
//! let info = OperationInfo { .. };
//! client.pre(&mut request, &info).await?;
//! let result = client.exec(request, &info).await;
//! client.post(&result, &info).await?;
//! let response = result?;
//! match response.status().as_u16() { 200..=299 => .., 400u16 => .., _ => .. }
//! ```
//!
//! becomes
//!
//! ```text
//! let url = { .. id.push_checked_segment("id", &mut url)?; .. };
//! let build_request = || -> Result<::reqwest::Request, ::psi_runtime::call::BuildError> {
//!     let mut header_map = ...;                   // `if let Some(value) = &param`
//!     Ok(client.client.get(&url)...build()?)
//! };
//! const OPERATION: ::psi_runtime::call::Operation = ..; // the document's facts
//! let success = ::psi_runtime::call::send::<E>(&client.inner, &client.client,
//!     &OPERATION, &build_request, Some(&body)).await?;
//! success.json().await                            // or `empty()`, `stream()`
//! ```
//!
//! Why each piece:
//!
//! - progenitor's hooks (`pre`, `exec`, `post`) can only return reqwest's
//!   error or progenitor's own, so a refusal before sending, a typed
//!   decline or a retried call has no typed way out; the runtime's `send`
//!   returns `psi_runtime::Error<E>` (the file's `Error` import is switched
//!   to it: see [`runtime_error_type`]);
//! - a request handed to reqwest cannot be sent again, so the runtime calls
//!   the closure once per attempt (a retry, the resend after a 401);
//! - the status match moves into the runtime, which knows the declared
//!   error statuses from `OPERATION` and the call's attempts;
//! - each path parameter is pushed into the URL with a check: empty, `.`
//!   and `..` are refused, naming the parameter (a URL parser would remove
//!   a dot segment and send the call elsewhere);
//! - the typed body goes to the runtime as `&dyn Any` for the pre-flight
//!   checks, which downcast it instead of parsing the JSON back.

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use std::collections::BTreeMap;
use syn::punctuated::Punctuated;

/// What an operation's document says that its call needs at run time, by
/// generated method name (`create_session`).
#[derive(Debug, Clone, Default)]
pub struct Facts {
    /// The operationId.
    pub id: String,
    pub idempotent: bool,
    pub request_media_type: Option<String>,
    pub optional_body: bool,
    pub comma_separated_query: Vec<String>,
    /// `x-psi-refused-when-false`: the boolean member of a 2xx body that
    /// is `false` on a refusal.
    pub refused_when_false: Option<String>,
}

/// Rewrites every `send()` in `file`; an error when one does not have
/// progenitor's shape above (progenitor's output changed and this needs a
/// look), when an operation has no facts, or when none was found.
pub fn build_for_each_send(
    file: &mut syn::File,
    facts: &BTreeMap<String, Facts>,
) -> Result<(), String> {
    let mut rewritten = 0;
    rewrite_items(&mut file.items, facts, &mut rewritten)?;
    if rewritten == 0 {
        return Err("no `send()` rewritten: check xtask/src/generate/rebuild.rs".into());
    }
    // Every path parameter is written by the URL's rewrite: one elsewhere
    // would be progenitor encoding something this pass does not know.
    if file.to_token_stream().to_string().contains("encode_path (") {
        return Err(
            "an `encode_path(..)` outside a `send()`'s `let url`: check xtask/src/generate/rebuild.rs"
                .into(),
        );
    }
    runtime_error_type(file)
}

/// progenitor's `pub use progenitor_client::{ByteStream, ClientInfo, Error,
/// ResponseValue};` without `Error`, and `pub use ::psi_runtime::Error;`
/// beside it: every `Error` of the generated code (the builders' `Result`s,
/// `Error::InvalidRequest`) is then the runtime's.
fn runtime_error_type(file: &mut syn::File) -> Result<(), String> {
    const PROGENITOR: &str =
        "progenitor_client :: { ByteStream , ClientInfo , Error , ResponseValue }";
    // With or without a trailing comma in the group.
    let group = |tree: &syn::UseTree| tree.to_token_stream().to_string().replace(" , }", " }");
    let at = file
        .items
        .iter()
        .position(|item| {
            matches!(item, syn::Item::Use(used)
                if matches!(used.vis, syn::Visibility::Public(_))
                    && group(&used.tree) == PROGENITOR)
        })
        .ok_or_else(|| {
            let uses: Vec<String> = file
                .items
                .iter()
                .filter_map(|item| match item {
                    syn::Item::Use(used) => Some(used.tree.to_token_stream().to_string()),
                    _ => None,
                })
                .collect();
            format!(
                "no `pub use {PROGENITOR};` to rewrite (the file's: {uses:?}): \
                 check xtask/src/generate/rebuild.rs"
            )
        })?;
    let syn::Item::Use(used) = &mut file.items[at] else {
        unreachable!("found above");
    };
    used.tree = syn::parse_quote!(progenitor_client::{ByteStream, ClientInfo, ResponseValue});
    file.items.insert(
        at + 1,
        syn::parse_quote!(
            pub use ::psi_runtime::Error;
        ),
    );
    Ok(())
}

fn rewrite_items(
    items: &mut [syn::Item],
    facts: &BTreeMap<String, Facts>,
    rewritten: &mut usize,
) -> Result<(), String> {
    for item in items {
        match item {
            syn::Item::Mod(module) => {
                if let Some((_, items)) = &mut module.content {
                    rewrite_items(items, facts, rewritten)?;
                }
            }
            syn::Item::Impl(block) => {
                for member in &mut block.items {
                    if let syn::ImplItem::Fn(function) = member {
                        if function.sig.ident == "send" {
                            rewrite_send(function, facts)?;
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

const PRE: &str = "client . pre (& mut request , & info) . await ?";
const EXEC: &str = "client . exec (request , & info) . await";
const POST: &str = "client . post (& result , & info) . await ? ;";
const JSON_BODY: &str = ". json (& body)";

fn rewrite_send(
    function: &mut syn::ImplItemFn,
    facts: &BTreeMap<String, Facts>,
) -> Result<(), String> {
    let name = operation_of(&function.block.to_token_stream());
    let fail = |what: &str| {
        format!("`send()` of {name}: {what}: check xtask/src/generate/rebuild.rs against the generated code")
    };
    let facts = facts
        .get(&name)
        .ok_or_else(|| fail("no operation of the document has this method name"))?;
    if function
        .block
        .to_token_stream()
        .to_string()
        .contains("build_request")
    {
        return Err(fail("already names `build_request`"));
    }
    let error = error_type(&function.sig.output).ok_or_else(|| fail("no `Result<_, E>` output"))?;
    let body_type = error_body(&error).ok_or_else(|| fail("the error type is not `Error<E>`"))?;
    let stmts = &function.block.stmts;
    let url = position(stmts, |s| local_named(s, "url")).ok_or_else(|| fail("no `let url`"))?;
    let request =
        position(stmts, |s| local_named(s, "request")).ok_or_else(|| fail("no `let request`"))?;
    let info = position(stmts, |s| local_named(s, "info")).ok_or_else(|| fail("no `let info`"))?;
    let pre = position(stmts, |s| printed(s) == format!("{PRE} ;"))
        .ok_or_else(|| fail("no `client.pre(&mut request, &info).await?`"))?;
    let exec = position(stmts, |s| {
        local_named(s, "result") && printed(s).contains(EXEC)
    })
    .ok_or_else(|| fail("no `let result = client.exec(request, &info).await`"))?;
    let post = position(stmts, |s| printed(s) == POST)
        .ok_or_else(|| fail("no `client.post(&result, &info).await?`"))?;
    let response = position(stmts, |s| local_named(s, "response"))
        .ok_or_else(|| fail("no `let response = result?`"))?;
    let last = stmts.len() - 1;
    if !(url < request
        && request < info
        && info < pre
        && pre < exec
        && exec < post
        && post < response
        && response < last)
    {
        return Err(fail("the statements are out of order"));
    }
    let (success, declared_errors) = status_match(&stmts[last]).map_err(|what| fail(&what))?;

    // The header parameters, borrowed instead of moved: the closure runs again.
    let mut headers: Vec<syn::Stmt> = stmts[url + 1..request].to_vec();
    for stmt in &mut headers {
        if let syn::Stmt::Expr(syn::Expr::If(branch), _) = stmt {
            if let syn::Expr::Let(binding) = &mut *branch.cond {
                let value = &binding.expr;
                let borrowed: syn::Expr = syn::parse_quote!(&#value);
                *binding.expr = borrowed;
            }
        }
    }
    let syn::Stmt::Local(syn::Local {
        init: Some(init), ..
    }) = &stmts[request]
    else {
        return Err(fail("`let request` without a value"));
    };
    let (built, urls) = with_borrowed_url(init.expr.to_token_stream());
    if urls != 1 {
        return Err(fail(&format!(
            "{urls} `(url)` in the request instead of one"
        )));
    }
    let body = if built.to_string().contains(JSON_BODY) {
        quote!(::std::option::Option::Some(&body))
    } else {
        quote!(::std::option::Option::None)
    };

    let id = &facts.id;
    let idempotent = facts.idempotent;
    let media_type = match &facts.request_media_type {
        Some(media_type) => quote!(::std::option::Option::Some(#media_type)),
        None => quote!(::std::option::Option::None),
    };
    let optional_body = facts.optional_body;
    let comma_separated = &facts.comma_separated_query;
    let refused_when_false = match &facts.refused_when_false {
        Some(member) => quote!(::std::option::Option::Some(#member)),
        None => quote!(::std::option::Option::None),
    };
    let declared = declared_errors
        .iter()
        .map(|status| proc_macro2::Literal::u16_unsuffixed(*status));
    let tail: Vec<syn::Stmt> = syn::parse_quote! {
        let build_request = || -> ::std::result::Result<::reqwest::Request, ::psi_runtime::call::BuildError> {
            #(#headers)*
            ::std::result::Result::Ok(#built)
        };
        const OPERATION: ::psi_runtime::call::Operation = ::psi_runtime::call::Operation {
            id: #id,
            idempotent: #idempotent,
            request_media_type: #media_type,
            optional_body: #optional_body,
            comma_separated_query: &[#(#comma_separated),*],
            declared_errors: &[#(#declared),*],
            refused_when_false: #refused_when_false,
        };
        let success = ::psi_runtime::call::send::<#body_type>(
            &client.inner,
            &client.client,
            &OPERATION,
            &build_request,
            #body,
        )
        .await?;
        #success
    };
    let pushed_url = pushed_url(&stmts[url]).map_err(|what| fail(&what))?;
    let mut out: Vec<syn::Stmt> = stmts[..url].to_vec();
    out.push(pushed_url);
    out.extend(tail);
    function.block.stmts = out;
    Ok(())
}

/// From progenitor's final `match response.status().as_u16() { .. }`: how
/// the success arm (`200..=299`) reads its answer, as the runtime's call
/// (`success.json().await`, `success.empty()`, `success.stream()`), and the
/// declared error statuses.
fn status_match(stmt: &syn::Stmt) -> Result<(syn::Expr, Vec<u16>), String> {
    let syn::Stmt::Expr(syn::Expr::Match(matched), None) = stmt else {
        return Err("the last statement is not the status `match`".into());
    };
    if matched.expr.to_token_stream().to_string() != "response . status () . as_u16 ()" {
        return Err("the last `match` is not on `response.status().as_u16()`".into());
    }
    let mut success = None;
    let mut declared = Vec::new();
    for arm in &matched.arms {
        let pattern = arm.pat.to_token_stream().to_string();
        let body = arm.body.to_token_stream().to_string();
        if pattern == "200 ..= 299" {
            success = Some(if body.contains("ResponseValue :: from_response") {
                syn::parse_quote!(success.json().await)
            } else if body.contains("ResponseValue :: empty") {
                syn::parse_quote!(success.empty())
            } else if body.contains("ResponseValue :: stream") {
                syn::parse_quote!(success.stream())
            } else {
                return Err(format!("a success arm of another shape: `{body}`"));
            });
        } else if pattern == "_" {
            if !body.contains("Error :: UnexpectedResponse") {
                return Err(format!("a fallback arm of another shape: `{body}`"));
            }
        } else {
            if !body.contains("Error :: ErrorResponse") {
                return Err(format!("an error arm of another shape: `{body}`"));
            }
            for status in pattern.split('|') {
                let status = status.trim().trim_end_matches("u16");
                let status: u16 = status
                    .parse()
                    .map_err(|_| format!("an error arm for `{pattern}`"))?;
                declared.push(status);
            }
        }
    }
    declared.sort_unstable();
    let success = success.ok_or("no `200..=299` arm")?;
    Ok((success, declared))
}

/// `E` of `Error<E>`.
fn error_body(error: &syn::Type) -> Option<syn::Type> {
    let syn::Type::Path(path) = error else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Error" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(body) => Some(body.clone()),
        _ => None,
    }
}

/// `let url = format!("{}/a/{}/b", client.baseurl, encode_path(&id.to_string()),);`
/// becomes
///
/// ```text
/// let url = {
///     use ::psi_runtime::ToPathSegment as _;      // with path parameters only
///     let mut url = ::std::string::String::with_capacity(client.baseurl.len() + N);
///     url.push_str(&client.baseurl);
///     url.push_str("/a/");
///     id.push_path_segment(&mut url);
///     url.push_str("/b");
///     url
/// };
/// ```
///
/// the same text in one allocation without the `fmt` machinery, `N` being
/// the literal's own bytes and room for each path parameter. Each parameter
/// is encoded straight into the URL (no copy of it, no second string for
/// its encoded form); a method call, so that `Display` is found through
/// `Deref` as for the `to_string()` it replaces (typify's string newtypes).
fn pushed_url(stmt: &syn::Stmt) -> Result<syn::Stmt, String> {
    const SHAPE: &str =
        "the url is not `format!(\"{}...\", client.baseurl, encode_path(&value.to_string()), ..)`";
    let syn::Stmt::Local(syn::Local {
        init: Some(init), ..
    }) = stmt
    else {
        return Err(SHAPE.into());
    };
    let syn::Expr::Macro(call) = &*init.expr else {
        return Err(SHAPE.into());
    };
    if !call.mac.path.is_ident("format") {
        return Err(SHAPE.into());
    }
    // The literal, then the arguments: progenitor's `format!` has no named ones.
    let mut arguments = call
        .mac
        .parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated)
        .map_err(|_| SHAPE)?
        .into_iter();
    let Some(syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(literal),
        ..
    })) = arguments.next()
    else {
        return Err(SHAPE.into());
    };
    let text = literal.value();
    let base = arguments
        .next()
        .map(|base| base.to_token_stream().to_string());
    if base.as_deref() != Some("client . baseurl") {
        return Err(SHAPE.into());
    }
    let mut pieces = text.split("{}");
    if pieces.next() != Some("") {
        return Err(format!("{SHAPE}: its literal is {text:?}"));
    }
    let mut pushes: Vec<syn::Stmt> = Vec::new();
    let mut parameters = 0;
    for (at, piece) in pieces.enumerate() {
        if at > 0 {
            let argument = arguments
                .next()
                .ok_or_else(|| format!("{SHAPE}: fewer arguments than `{{}}` in {text:?}"))?;
            let value = displayed_value(&argument).ok_or_else(|| {
                let argument = argument.to_token_stream();
                format!("{SHAPE}: `{argument}` is another argument")
            })?;
            let parameter = value.to_string();
            pushes.push(syn::parse_quote!(#value.push_checked_segment(#parameter, &mut url)?;));
            parameters += 1;
        }
        if piece.contains(['{', '}']) {
            return Err(format!("{SHAPE}: its literal is {text:?}"));
        }
        if !piece.is_empty() {
            pushes.push(syn::parse_quote!(url.push_str(#piece);));
        }
    }
    if let Some(extra) = arguments.next() {
        let extra = extra.to_token_stream();
        return Err(format!("{SHAPE}: `{extra}` has no `{{}}` in {text:?}"));
    }
    // Path parameters are ids: 36 bytes holds a UUID, encoded or not mostly.
    const PER_PARAMETER: usize = 36;
    let own = proc_macro2::Literal::usize_unsuffixed(
        text.len() - 2 * (parameters + 1) + PER_PARAMETER * parameters,
    );
    // Only where it is used: an unused import is a warning.
    let mut trait_in_scope = TokenStream::new();
    if parameters > 0 {
        trait_in_scope = quote!(
            use ::psi_runtime::ToPathSegment as _;
        );
    }
    Ok(syn::parse_quote! {
        let url = {
            #trait_in_scope
            let mut url = ::std::string::String::with_capacity(client.baseurl.len() + #own);
            url.push_str(&client.baseurl);
            #(#pushes)*
            url
        };
    })
}

/// `value` of progenitor's `encode_path(&value.to_string())`, a name.
fn displayed_value(argument: &syn::Expr) -> Option<syn::Ident> {
    let syn::Expr::Call(call) = argument else {
        return None;
    };
    let syn::Expr::Path(function) = &*call.func else {
        return None;
    };
    if !function.path.is_ident("encode_path") || call.args.len() != 1 {
        return None;
    }
    let syn::Expr::Reference(reference) = &call.args[0] else {
        return None;
    };
    let syn::Expr::MethodCall(to_string) = &*reference.expr else {
        return None;
    };
    if to_string.method != "to_string"
        || to_string.turbofish.is_some()
        || !to_string.args.is_empty()
        || reference.mutability.is_some()
    {
        return None;
    }
    let syn::Expr::Path(value) = &*to_string.receiver else {
        return None;
    };
    value.path.get_ident().cloned()
}

/// `E` of the function's `-> Result<T, E>`.
fn error_type(output: &syn::ReturnType) -> Option<syn::Type> {
    let syn::ReturnType::Type(_, ty) = output else {
        return None;
    };
    let syn::Type::Path(path) = &**ty else {
        return None;
    };
    let last = path.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.iter().nth(1)? {
        syn::GenericArgument::Type(error) => Some(error.clone()),
        _ => None,
    }
}

fn position(stmts: &[syn::Stmt], find: impl Fn(&syn::Stmt) -> bool) -> Option<usize> {
    let mut found = stmts.iter().enumerate().filter(|(_, s)| find(s));
    let (at, _) = found.next()?;
    // Exactly one: a second would mean a shape this pass does not know.
    found.next().is_none().then_some(at)
}

fn local_named(stmt: &syn::Stmt, name: &str) -> bool {
    let syn::Stmt::Local(local) = stmt else {
        return false;
    };
    matches!(&local.pat, syn::Pat::Ident(ident) if ident.ident == name)
}

fn printed(stmt: &syn::Stmt) -> String {
    stmt.to_token_stream().to_string()
}

/// `(url)` becomes `(&url)` at any depth; how many there were.
fn with_borrowed_url(stream: TokenStream) -> (TokenStream, usize) {
    let mut count = 0;
    let mut out = TokenStream::new();
    for token in stream {
        match token {
            TokenTree::Group(group)
                if group.delimiter() == Delimiter::Parenthesis
                    && group.stream().to_string() == "url" =>
            {
                count += 1;
                let mut inner = Group::new(Delimiter::Parenthesis, quote!(&url));
                inner.set_span(group.span());
                out.extend([TokenTree::Group(inner)]);
            }
            TokenTree::Group(group) => {
                let (inner_stream, inner_count) = with_borrowed_url(group.stream());
                count += inner_count;
                let mut inner = Group::new(group.delimiter(), inner_stream);
                inner.set_span(group.span());
                out.extend([TokenTree::Group(inner)]);
            }
            other => out.extend([other]),
        }
    }
    (out, count)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The facts of `SENDS`' two operations.
    fn facts() -> BTreeMap<String, Facts> {
        BTreeMap::from([
            (
                "create_session".to_owned(),
                Facts {
                    id: "createSession".into(),
                    idempotent: true,
                    request_media_type: Some("application/json".into()),
                    ..Facts::default()
                },
            ),
            (
                "get_session".to_owned(),
                Facts {
                    id: "getSession".into(),
                    optional_body: true,
                    comma_separated_query: vec!["include".into()],
                    ..Facts::default()
                },
            ),
        ])
    }

    /// `build_for_each_send` on `file` with progenitor's import of `Error` added.
    fn rewritten(file: &mut syn::File) -> Result<(), String> {
        file.items.insert(
            0,
            syn::parse_quote!(
                pub use progenitor_client::{ByteStream, ClientInfo, Error, ResponseValue};
            ),
        );
        build_for_each_send(file, &facts())
    }

    const SENDS: &str = r#"
        pub mod builder {
            impl<'a> CreateSession<'a> {
                pub async fn send(self) -> Result<ResponseValue<types::SessionResponse>, Error<types::Decline>> {
                    let Self { client, idempotency_key, body } = self;
                    let url = format!("{}/session", client.baseurl,);
                    let mut header_map = ::reqwest::header::HeaderMap::new();
                    if let Some(value) = idempotency_key {
                        header_map.append("Idempotency-Key", value.to_string().try_into()?);
                    }
                    #[allow(unused_mut)]
                    let mut request = client.client.post(url).json(&body).headers(header_map).build()?;
                    let info = OperationInfo { operation_id: "create_session" };
                    client.pre(&mut request, &info).await?;
                    let result = client.exec(request, &info).await;
                    client.post(&result, &info).await?;
                    let response = result?;
                    match response.status().as_u16() {
                        200..=299 => ResponseValue::from_response(response).await,
                        400u16 => Err(Error::ErrorResponse(ResponseValue::from_response(response).await?)),
                        409u16 => Err(Error::ErrorResponse(ResponseValue::from_response(response).await?)),
                        _ => Err(Error::UnexpectedResponse(response)),
                    }
                }
            }
            impl<'a> GetSession<'a> {
                pub async fn send(self) -> Result<ResponseValue<types::Session>, Error<()>> {
                    let url = format!("{}/session", client.baseurl,);
                    #[allow(unused_mut)]
                    let mut request = client.client.get(url).build()?;
                    let info = OperationInfo { operation_id: "get_session" };
                    client.pre(&mut request, &info).await?;
                    let result = client.exec(request, &info).await;
                    client.post(&result, &info).await?;
                    let response = result?;
                    match response.status().as_u16() {
                        200..=299 => Ok(ResponseValue::stream(response)),
                        _ => Err(Error::UnexpectedResponse(response)),
                    }
                }
            }
        }"#;

    #[test]
    fn every_send_builds_its_request_in_a_closure_and_calls_the_runtime() {
        let mut file: syn::File = syn::parse_str(SENDS).unwrap();
        rewritten(&mut file).unwrap();
        let code = file.to_token_stream().to_string();
        for gone in [
            "client . pre",
            "client . exec",
            "client . post (& result",
            "OperationInfo",
            "match response",
        ] {
            assert!(!code.contains(gone), "{gone}: {code}");
        }
        let (create, get) = code.split_once("GetSession").unwrap();
        assert!(
            create.contains(
                "let build_request = | | -> :: std :: result :: Result < :: reqwest :: Request , :: psi_runtime :: call :: BuildError >"
            ),
            "{create}"
        );
        assert!(
            create.contains("if let Some (value) = & idempotency_key"),
            "{create}"
        );
        assert!(
            create.contains("client . client . post (& url)"),
            "{create}"
        );
        assert!(
            create.contains(
                "id : \"createSession\" , idempotent : true , request_media_type : :: std :: option :: Option :: Some (\"application/json\") , \
                 optional_body : false , comma_separated_query : & [] , declared_errors : & [400 , 409] , \
                 refused_when_false : :: std :: option :: Option :: None ,"
            ),
            "{create}"
        );
        assert!(
            create.contains(
                ":: psi_runtime :: call :: send :: < types :: Decline > (& client . inner , & client . client , & OPERATION , & build_request , :: std :: option :: Option :: Some (& body) ,) . await ? ; success . json () . await"
            ),
            "{create}"
        );
        assert!(
            get.contains(
                "let url = { let mut url = :: std :: string :: String :: with_capacity (client . baseurl . len () + 8) ; \
                 url . push_str (& client . baseurl) ; url . push_str (\"/session\") ; url } ;"
            ),
            "{get}"
        );
        assert!(
            get.contains("optional_body : true , comma_separated_query : & [\"include\"] , declared_errors : & [] ,"),
            "{get}"
        );
        assert!(
            get.contains(":: std :: option :: Option :: None ,) . await ? ; success . stream ()"),
            "{get}"
        );
    }

    #[test]
    fn the_error_type_is_the_runtimes() {
        let mut file: syn::File = syn::parse_quote! {
            #[allow(unused_imports)]
            pub use progenitor_client::{ByteStream, ClientInfo, Error, ResponseValue,};
        };
        runtime_error_type(&mut file).unwrap();
        let code = file.to_token_stream().to_string();
        assert!(
            code.contains(
                "pub use progenitor_client :: { ByteStream , ClientInfo , ResponseValue } ;"
            ),
            "{code}"
        );
        assert!(code.contains("pub use :: psi_runtime :: Error ;"), "{code}");
        let mut other: syn::File = syn::parse_quote! { pub use progenitor_client::Error; };
        assert!(runtime_error_type(&mut other).is_err());
    }

    #[test]
    fn an_unexpected_shape_fails_generation() {
        let renamed = SENDS.replacen(
            "client.exec(request, &info)",
            "client.execute(request, &info)",
            1,
        );
        let mut file: syn::File = syn::parse_str(&renamed).unwrap();
        let error = rewritten(&mut file).unwrap_err();
        assert!(error.contains("create_session"), "{error}");

        let no_pre = SENDS.replacen("client.pre(&mut request, &info).await?;", "", 1);
        let mut file: syn::File = syn::parse_str(&no_pre).unwrap();
        let error = rewritten(&mut file).unwrap_err();
        assert!(error.contains("no `client.pre"), "{error}");

        let other_arm = SENDS.replacen(
            "409u16 => Err(Error::ErrorResponse(",
            "409u16 => Err(Error::Other(",
            1,
        );
        let mut file: syn::File = syn::parse_str(&other_arm).unwrap();
        let error = rewritten(&mut file).unwrap_err();
        assert!(error.contains("an error arm of another shape"), "{error}");

        let unknown = SENDS.replacen("\"get_session\"", "\"get_other\"", 1);
        let mut file: syn::File = syn::parse_str(&unknown).unwrap();
        let error = rewritten(&mut file).unwrap_err();
        assert!(error.contains("no operation of the document"), "{error}");

        let owned_url = SENDS.replacen("post(url)", "post(url.clone())", 1);
        let mut file: syn::File = syn::parse_str(&owned_url).unwrap();
        let error = rewritten(&mut file).unwrap_err();
        assert!(error.contains("0 `(url)`"), "{error}");
    }

    /// `SENDS`' `GetSession` with `url` as its URL statement.
    fn with_url(url: &str) -> syn::File {
        let start = SENDS.find("impl<'a> GetSession").unwrap();
        let get = SENDS[start..].replacen(
            "let url = format!(\"{}/session\", client.baseurl,);",
            url,
            1,
        );
        syn::parse_str(&format!("pub mod builder {{ {get}")).unwrap()
    }

    #[test]
    fn the_url_is_pushed_piece_by_piece() {
        let mut file = with_url(
            r#"let url = format!("{}/a/{}/b/{}", client.baseurl, encode_path(&first.to_string()), encode_path(&second.to_string()),);"#,
        );
        rewritten(&mut file).unwrap();
        let code = file.to_token_stream().to_string();
        assert!(
            code.contains(
                "let url = { use :: psi_runtime :: ToPathSegment as _ ; \
                 let mut url = :: std :: string :: String :: with_capacity (client . baseurl . len () + 78) ; \
                 url . push_str (& client . baseurl) ; url . push_str (\"/a/\") ; \
                 first . push_checked_segment (\"first\" , & mut url) ? ; url . push_str (\"/b/\") ; \
                 second . push_checked_segment (\"second\" , & mut url) ? ; url } ;"
            ),
            "{code}"
        );
        assert!(!code.contains("encode_path"), "{code}");
    }

    #[test]
    fn a_url_of_another_shape_fails_generation() {
        for url in [
            // not the base URL first
            r#"let url = format!("/a/{}", encode_path(&id.to_string()));"#,
            r#"let url = format!("{}/a/{}", base, encode_path(&id.to_string()));"#,
            // a parameter not encoded, or not a name
            r#"let url = format!("{}/a/{}", client.baseurl, id);"#,
            r#"let url = format!("{}/a/{}", client.baseurl, encode_path(&id.as_str()));"#,
            r#"let url = format!("{}/a/{}", client.baseurl, encode_path(&self.id.to_string()));"#,
            // placeholders and arguments that do not pair up
            r#"let url = format!("{}/a/{}", client.baseurl,);"#,
            r#"let url = format!("{}/a", client.baseurl, encode_path(&id.to_string()));"#,
            r#"let url = format!("{}/a/{:?}", client.baseurl, encode_path(&id.to_string()));"#,
            r#"let url = format!("{}/{{a}}", client.baseurl);"#,
            // not `format!`
            r#"let url = client.baseurl.clone();"#,
        ] {
            let mut file = with_url(url);
            let error = rewritten(&mut file).unwrap_err();
            assert!(
                error.contains("get_session") && error.contains("the url is not"),
                "{url}: {error}"
            );
        }
    }

    #[test]
    fn an_encode_path_elsewhere_fails_generation() {
        let mut file = with_url(
            r#"let url = format!("{}/session", client.baseurl,); let x = encode_path(&id.to_string());"#,
        );
        let error = rewritten(&mut file).unwrap_err();
        assert!(error.contains("outside a `send()`'s `let url`"), "{error}");
    }
}

//! A request built again for a resend, instead of a copy kept for one: in
//! every generated `send()`, progenitor's
//!
//! ```text
//! let mut header_map = ...;                       // header parameters, if any
//! #[allow(unused_mut)]
//! let mut request = client.client.get(url)...build()?;
//! let info = OperationInfo { .. };
//! client.pre(&mut request, &info).await?;
//! let result = client.exec(request, &info).await; // or `exec_checked(.., &body)`
//! ```
//!
//! becomes
//!
//! ```text
//! let build_request = || -> Result<::reqwest::Request, Error<E>> {
//!     let mut header_map = ...;                   // `if let Some(value) = &param`
//!     Ok(client.client.get(&url)...build()?)
//! };
//! let request = build_request()?;
//! let info = OperationInfo { .. };
//! let result = client.send_call(request, &info, &|| build_request().ok(), None).await;
//! ```
//!
//! A request handed to reqwest cannot be sent again, so the runtime kept a
//! copy of every request in case of a resend (a 401 with a fresh token, a
//! retry); now it calls the closure only when a resend happens. The first
//! build and its errors are where they were. `pre` is gone from the call:
//! `psi_runtime::hooks::exec` does its work (the same work, once per
//! attempt, with the same Idempotency-Key), so the request no longer lives
//! in the call's future across an await.
//!
//! The same pass writes `let url` by pushing its pieces (see `pushed_url`).

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::punctuated::Punctuated;

/// Rewrites every `send()` in `file`; an error when one does not have
/// progenitor's shape above (progenitor's output changed and this needs a
/// look) or when none was found.
pub fn build_for_each_send(file: &mut syn::File) -> Result<(), String> {
    let mut rewritten = 0;
    rewrite_items(&mut file.items, &mut rewritten)?;
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
    Ok(())
}

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
                        if function.sig.ident == "send" {
                            rewrite_send(function)?;
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
const EXEC_CHECKED: &str = "client . exec_checked (request , & info , & body) . await";

fn rewrite_send(function: &mut syn::ImplItemFn) -> Result<(), String> {
    let name = operation_of(&function.block.to_token_stream());
    let fail = |what: &str| {
        format!("`send()` of {name}: {what}: check xtask/src/generate/rebuild.rs against the generated code")
    };
    if function
        .block
        .to_token_stream()
        .to_string()
        .contains("build_request")
    {
        return Err(fail("already names `build_request`"));
    }
    let error = error_type(&function.sig.output).ok_or_else(|| fail("no `Result<_, E>` output"))?;
    let stmts = &function.block.stmts;
    let url = position(stmts, |s| local_named(s, "url")).ok_or_else(|| fail("no `let url`"))?;
    let request =
        position(stmts, |s| local_named(s, "request")).ok_or_else(|| fail("no `let request`"))?;
    let pre = position(stmts, |s| printed(s) == format!("{PRE} ;"))
        .ok_or_else(|| fail("no `client.pre(&mut request, &info).await?`"))?;
    let exec = position(stmts, |s| {
        let text = printed(s);
        local_named(s, "result") && (text.contains(EXEC) || text.contains(EXEC_CHECKED))
    })
    .ok_or_else(|| fail("no `let result = client.exec(request, &info).await`"))?;
    if !(url < request && request < pre && pre < exec) {
        return Err(fail(
            "the url, request, pre and exec statements are out of order",
        ));
    }
    let body = if printed(&stmts[exec]).contains(EXEC_CHECKED) {
        quote!(::std::option::Option::Some(&body))
    } else {
        quote!(::std::option::Option::None)
    };

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

    let closure: syn::Stmt = syn::parse_quote! {
        let build_request = || -> ::std::result::Result<::reqwest::Request, #error> {
            #(#headers)*
            ::std::result::Result::Ok(#built)
        };
    };
    let first: syn::Stmt = syn::parse_quote!(let request = build_request()?;);
    let send: syn::Stmt = syn::parse_quote! {
        let result = client.send_call(request, &info, &|| build_request().ok(), #body).await;
    };
    let pushed_url = pushed_url(&stmts[url]).map_err(|what| fail(&what))?;
    let mut out = Vec::with_capacity(stmts.len());
    for (at, stmt) in stmts.iter().enumerate() {
        match at {
            _ if at > url && at < request => {}
            _ if at == request => out.extend([closure.clone(), first.clone()]),
            _ if at == pre => {}
            _ if at == url => out.push(pushed_url.clone()),
            _ if at == exec => out.push(send.clone()),
            _ => out.push(stmt.clone()),
        }
    }
    function.block.stmts = out;
    Ok(())
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
            pushes.push(syn::parse_quote!(#value.push_path_segment(&mut url);));
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
                    let result = client.exec_checked(request, &info, &body).await;
                    client.post(&result, &info).await?;
                    todo!()
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
                    todo!()
                }
            }
        }"#;

    #[test]
    fn every_send_builds_its_request_in_a_closure() {
        let mut file: syn::File = syn::parse_str(SENDS).unwrap();
        build_for_each_send(&mut file).unwrap();
        let code = file.to_token_stream().to_string();
        assert!(!code.contains("client . pre"), "{code}");
        assert!(!code.contains("client . exec"), "{code}");
        let (create, get) = code.split_once("GetSession").unwrap();
        assert!(
            create.contains(
                "let build_request = | | -> :: std :: result :: Result < :: reqwest :: Request , Error < types :: Decline > >"
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
                "client . send_call (request , & info , & | | build_request () . ok () , :: std :: option :: Option :: Some (& body)) . await"
            ),
            "{create}"
        );
        assert!(get.contains("let request = build_request () ? ;"), "{get}");
        assert!(
            get.contains(
                "let url = { let mut url = :: std :: string :: String :: with_capacity (client . baseurl . len () + 8) ; \
                 url . push_str (& client . baseurl) ; url . push_str (\"/session\") ; url } ;"
            ),
            "{get}"
        );
        assert!(
            get.contains(":: std :: option :: Option :: None) . await"),
            "{get}"
        );
    }

    #[test]
    fn an_unexpected_shape_fails_generation() {
        let renamed = SENDS.replacen(
            "client.exec(request, &info)",
            "client.execute(request, &info)",
            1,
        );
        let mut file: syn::File = syn::parse_str(&renamed).unwrap();
        let error = build_for_each_send(&mut file).unwrap_err();
        assert!(error.contains("get_session"), "{error}");

        let no_pre = SENDS.replacen("client.pre(&mut request, &info).await?;", "", 1);
        let mut file: syn::File = syn::parse_str(&no_pre).unwrap();
        let error = build_for_each_send(&mut file).unwrap_err();
        assert!(error.contains("no `client.pre"), "{error}");

        let owned_url = SENDS.replacen("post(url)", "post(url.clone())", 1);
        let mut file: syn::File = syn::parse_str(&owned_url).unwrap();
        let error = build_for_each_send(&mut file).unwrap_err();
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
        build_for_each_send(&mut file).unwrap();
        let code = file.to_token_stream().to_string();
        assert!(
            code.contains(
                "let url = { use :: psi_runtime :: ToPathSegment as _ ; \
                 let mut url = :: std :: string :: String :: with_capacity (client . baseurl . len () + 78) ; \
                 url . push_str (& client . baseurl) ; url . push_str (\"/a/\") ; \
                 first . push_path_segment (& mut url) ; url . push_str (\"/b/\") ; \
                 second . push_path_segment (& mut url) ; url } ;"
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
            let error = build_for_each_send(&mut file).unwrap_err();
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
        let error = build_for_each_send(&mut file).unwrap_err();
        assert!(error.contains("outside a `send()`'s `let url`"), "{error}");
    }
}

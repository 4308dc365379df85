//! progenitor puts an `api-version` header (the document's `info.version`)
//! on every request. The service defines no such header, so the generated
//! code does not send it: the statement appending it is removed, and the
//! header map it was built for starts empty (`HeaderMap::new()` does not
//! allocate; with no header parameter it stays empty). Doing it here rather
//! than removing the header at run time saves a map allocation, an insert
//! and a removal on every call. An operation without header parameters
//! then has no map at all: its `let header_map` and `.headers(header_map)`
//! go too.

use quote::ToTokens;

/// Rewrites every operation of `file`; an error when no `api-version`
/// statement was found, which means progenitor changed its output and this
/// rule needs a look.
pub fn drop_api_version_header(file: &mut syn::File) -> Result<(), String> {
    let mut removed = 0;
    rewrite_items(&mut file.items, &mut removed);
    if removed == 0 && mentions_operations(file) {
        return Err(
            "progenitor's `api-version` header statement was not found: \
                    check xtask/src/generate/api_version.rs against the generated code"
                .into(),
        );
    }
    Ok(())
}

/// progenitor builds each request at the top level of a method body (the
/// `Client` methods and the builders' `send`), in impls at the file's root
/// or in its modules.
fn rewrite_items(items: &mut [syn::Item], removed: &mut usize) {
    for item in items {
        match item {
            syn::Item::Impl(block) => {
                for member in &mut block.items {
                    if let syn::ImplItem::Fn(method) = member {
                        rewrite_body(&mut method.block, removed);
                    }
                }
            }
            syn::Item::Mod(module) => {
                if let Some((_, items)) = &mut module.content {
                    rewrite_items(items, removed);
                }
            }
            _ => {}
        }
    }
}

fn rewrite_body(body: &mut syn::Block, removed: &mut usize) {
    let before = body.stmts.len();
    body.stmts.retain(|stmt| !appends_api_version(stmt));
    *removed += before - body.stmts.len();
    // With the header gone, an operation without header parameters never
    // adds to the map: it need not be `mut`.
    let still_appended = body.stmts.iter().any(|stmt| {
        stmt.to_token_stream()
            .to_string()
            .contains("header_map . append")
    });
    if !still_appended {
        drop_empty_header_map(body);
    }
    for stmt in &mut body.stmts {
        let syn::Stmt::Local(local) = stmt else {
            continue;
        };
        let Some(init) = &mut local.init else {
            continue;
        };
        if let syn::Expr::Call(call) = init.expr.as_mut() {
            if is_header_map_with_capacity(&call.func) {
                call.func = syn::parse_quote!(::reqwest::header::HeaderMap::new);
                call.args.clear();
                if let syn::Pat::Ident(binding) = &mut local.pat {
                    if !still_appended {
                        binding.mutability = None;
                    }
                }
            }
        }
    }
}

/// An operation without header parameters: the empty `header_map` and the
/// `.headers(header_map)` that merges it into the request go (merging even
/// an empty map costs every call a map iteration and its drop).
fn drop_empty_header_map(body: &mut syn::Block) {
    let mut merged = false;
    for stmt in &mut body.stmts {
        if let syn::Stmt::Local(local) = stmt {
            if let Some(init) = &mut local.init {
                merged |= drop_headers_call(&mut init.expr);
            }
        }
    }
    if merged {
        body.stmts.retain(|stmt| !binds_header_map(stmt));
    }
}

/// Removes `.headers(header_map)` from a builder chain (`a.b().headers(header_map).build()?`).
fn drop_headers_call(expr: &mut syn::Expr) -> bool {
    match expr {
        syn::Expr::Try(attempt) => drop_headers_call(&mut attempt.expr),
        syn::Expr::MethodCall(call)
            if call.method == "headers"
                && call.args.len() == 1
                && call.args[0].to_token_stream().to_string() == "header_map" =>
        {
            *expr = (*call.receiver).clone();
            true
        }
        syn::Expr::MethodCall(call) => drop_headers_call(&mut call.receiver),
        _ => false,
    }
}

/// `let header_map = …;`
fn binds_header_map(stmt: &syn::Stmt) -> bool {
    matches!(stmt, syn::Stmt::Local(local)
        if matches!(&local.pat, syn::Pat::Ident(binding) if binding.ident == "header_map"))
}

/// `header_map.append(HeaderName::from_static("api-version"), ...);`
fn appends_api_version(stmt: &syn::Stmt) -> bool {
    let syn::Stmt::Expr(syn::Expr::MethodCall(call), Some(_)) = stmt else {
        return false;
    };
    call.method == "append"
        && call.args.first().is_some_and(|name| {
            name.to_token_stream()
                .to_string()
                .contains("\"api-version\"")
        })
}

fn is_header_map_with_capacity(func: &syn::Expr) -> bool {
    let syn::Expr::Path(path) = func else {
        return false;
    };
    let segments: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    segments.ends_with(&["HeaderMap".to_owned(), "with_capacity".to_owned()])
}

/// Does the file send any request (a document of shared types does not)?
fn mentions_operations(file: &syn::File) -> bool {
    file.to_token_stream().to_string().contains("OperationInfo")
}

//! A required parameter nobody has set yet costs no allocation. progenitor's
//! builder `new()` starts each one as
//! `Err("<name> was not initialized".to_string())`, a string allocated and
//! freed on every call although the setter replaces it at once. It becomes
//! `Err(::std::string::String::new())`, and in `send()`
//!
//! ```text
//! let <name> = <name>.map_err(Error::InvalidRequest)?;
//! ```
//!
//! becomes
//!
//! ```text
//! let <name> = ::psi_runtime::unset_as(<name>, "<name> was not initialized")
//!     .map_err(Error::InvalidRequest)?;
//! ```
//!
//! so that a caller who never set it gets the same error as before. The
//! empty message means "not set" only because nothing else can leave one:
//! every other assignment to the field must be the setter's
//! `value.try_into().map_err(|_| "<message>".to_string())` with a message
//! that is not empty, or generation fails.

use quote::ToTokens;

/// Rewrites every builder of `file`; an error when a builder has a shape
/// this pass does not know (progenitor's output changed and this needs a
/// look).
pub fn no_allocation_until_set(file: &mut syn::File) -> Result<(), String> {
    rewrite_items(&mut file.items)?;
    if file
        .to_token_stream()
        .to_string()
        .contains("was not initialized\" . to_string ()")
    {
        return Err(
            "a `was not initialized` default outside a builder's `new()` with a `send()`: \
             check xtask/src/generate/unset.rs"
                .into(),
        );
    }
    Ok(())
}

fn rewrite_items(items: &mut [syn::Item]) -> Result<(), String> {
    for item in items {
        match item {
            syn::Item::Mod(module) => {
                if let Some((_, items)) = &mut module.content {
                    rewrite_items(items)?;
                }
            }
            syn::Item::Impl(block) => rewrite_builder(block)?,
            _ => {}
        }
    }
    Ok(())
}

/// One builder: the impl with `new()` and `send()`.
fn rewrite_builder(block: &mut syn::ItemImpl) -> Result<(), String> {
    let name = block.self_ty.to_token_stream().to_string();
    let fail = |what: String| format!("builder {name}: {what}: check xtask/src/generate/unset.rs");
    let methods = |block: &syn::ItemImpl, wanted: &str| {
        block
            .items
            .iter()
            .filter(|member| matches!(member, syn::ImplItem::Fn(f) if f.sig.ident == wanted))
            .count()
    };
    if methods(block, "new") != 1 || methods(block, "send") != 1 {
        return Ok(());
    }
    let mut unset = Vec::new();
    for member in &mut block.items {
        if let syn::ImplItem::Fn(function) = member {
            if function.sig.ident == "new" {
                unset = empty_defaults(function).map_err(&fail)?;
            }
        }
    }
    for field in &unset {
        check_assignments(block, field).map_err(&fail)?;
    }
    for member in &mut block.items {
        if let syn::ImplItem::Fn(function) = member {
            if function.sig.ident == "send" {
                for field in &unset {
                    map_empty_to_unset(function, field).map_err(&fail)?;
                }
            }
        }
    }
    Ok(())
}

/// Replaces each `<name>: Err("<name> was not initialized".to_string())` of
/// `new()`'s `Self { .. }` with `Err(::std::string::String::new())`; the
/// names.
fn empty_defaults(new: &mut syn::ImplItemFn) -> Result<Vec<syn::Ident>, String> {
    let Some(syn::Stmt::Expr(syn::Expr::Struct(fields), None)) = new.block.stmts.last_mut() else {
        return Err("`new()` does not end in `Self { .. }`".into());
    };
    let mut unset = Vec::new();
    for field in &mut fields.fields {
        let syn::Member::Named(name) = &field.member else {
            continue;
        };
        let Some(argument) = call_argument(&field.expr, "Err") else {
            continue;
        };
        if unset_message(argument).as_deref() != Some(&format!("{name} was not initialized")) {
            return Err(format!(
                "`{name}` starts as `{}`, not `Err(\"{name} was not initialized\".to_string())`",
                field.expr.to_token_stream()
            ));
        }
        field.expr = syn::parse_quote!(Err(::std::string::String::new()));
        unset.push(name.clone());
    }
    Ok(unset)
}

/// `text` of `"text".to_string()`.
fn unset_message(expr: &syn::Expr) -> Option<String> {
    let syn::Expr::MethodCall(call) = expr else {
        return None;
    };
    if call.method != "to_string" || !call.args.is_empty() {
        return None;
    }
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(text),
        ..
    }) = &*call.receiver
    else {
        return None;
    };
    Some(text.value())
}

/// The one argument of `function(argument)`.
fn call_argument<'a>(expr: &'a syn::Expr, function: &str) -> Option<&'a syn::Expr> {
    let syn::Expr::Call(call) = expr else {
        return None;
    };
    let syn::Expr::Path(path) = &*call.func else {
        return None;
    };
    (path.path.is_ident(function) && call.args.len() == 1).then(|| &call.args[0])
}

/// Every assignment to `self.<field>` in the builder is a setter's, whose
/// error message is never empty: an empty one means "never set".
fn check_assignments(block: &syn::ItemImpl, field: &syn::Ident) -> Result<(), String> {
    struct Assignments<'a> {
        field: &'a syn::Ident,
        wrong: Vec<String>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Assignments<'_> {
        fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
            let target = assign.left.to_token_stream().to_string();
            if target == format!("self . {}", self.field) && !setter_value(&assign.right) {
                self.wrong.push(assign.to_token_stream().to_string());
            }
            syn::visit::visit_expr_assign(self, assign);
        }
    }
    let mut found = Assignments {
        field,
        wrong: Vec::new(),
    };
    syn::visit::Visit::visit_item_impl(&mut found, block);
    match found.wrong.first() {
        None => Ok(()),
        Some(wrong) => Err(format!(
            "`{wrong}` could leave an empty message, which would read as `{field} was not initialized`"
        )),
    }
}

/// `value.try_into().map_err(|_| "<not empty>".to_string())`.
fn setter_value(expr: &syn::Expr) -> bool {
    let syn::Expr::MethodCall(map_err) = expr else {
        return false;
    };
    let converted = matches!(&*map_err.receiver, syn::Expr::MethodCall(try_into)
        if try_into.method == "try_into"
            && try_into.args.is_empty()
            && try_into.receiver.to_token_stream().to_string() == "value");
    if map_err.method != "map_err" || !converted || map_err.args.len() != 1 {
        return false;
    }
    let syn::Expr::Closure(closure) = &map_err.args[0] else {
        return false;
    };
    let mut body = &*closure.body;
    // `{ "..".to_string() }`
    if let syn::Expr::Block(block) = body {
        match block.block.stmts.as_slice() {
            [syn::Stmt::Expr(only, None)] => body = only,
            _ => return false,
        }
    }
    closure.inputs.len() == 1
        && matches!(closure.inputs[0], syn::Pat::Wild(_))
        && unset_message(body).is_some_and(|message| !message.is_empty())
}

/// `let <field> = <field>.map_err(Error::InvalidRequest)?;` maps an empty
/// message back to `<field> was not initialized`.
fn map_empty_to_unset(send: &mut syn::ImplItemFn, field: &syn::Ident) -> Result<(), String> {
    let original = format!("let {field} = {field} . map_err (Error :: InvalidRequest) ? ;");
    let unset = format!("{field} was not initialized");
    let mut found = 0;
    for stmt in &mut send.block.stmts {
        if stmt.to_token_stream().to_string() == original {
            *stmt = syn::parse_quote! {
                let #field = ::psi_runtime::unset_as(#field, #unset).map_err(Error::InvalidRequest)?;
            };
            found += 1;
        }
    }
    if found != 1 {
        return Err(format!(
            "{found} `let {field} = {field}.map_err(Error::InvalidRequest)?;` in `send()` instead of one"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUILDER: &str = r#"
        pub mod builder {
            impl<'a> GetStatus<'a> {
                pub fn new(client: &'a super::Client) -> Self {
                    Self {
                        client: client,
                        transaction_id: Err("transaction_id was not initialized".to_string()),
                        include: Ok(None),
                    }
                }
                pub fn transaction_id<V>(mut self, value: V) -> Self
                where
                    V: std::convert::TryInto<::std::string::String>,
                {
                    self.transaction_id = value
                        .try_into()
                        .map_err(|_| "conversion to `String` for transaction_id failed".to_string());
                    self
                }
                pub async fn send(self) -> Result<ResponseValue<()>, Error<()>> {
                    let Self { client, transaction_id, include } = self;
                    let transaction_id = transaction_id.map_err(Error::InvalidRequest)?;
                    let include = include.map_err(Error::InvalidRequest)?;
                    todo!()
                }
            }
        }"#;

    fn rewritten(code: &str) -> Result<String, String> {
        let mut file: syn::File = syn::parse_str(code).unwrap();
        no_allocation_until_set(&mut file)?;
        Ok(file.to_token_stream().to_string())
    }

    #[test]
    fn an_unset_parameter_starts_empty_and_reads_as_before() {
        let code = rewritten(BUILDER).unwrap();
        assert!(
            code.contains("transaction_id : Err (:: std :: string :: String :: new ())"),
            "{code}"
        );
        assert!(
            code.contains(
                "let transaction_id = :: psi_runtime :: unset_as (transaction_id , \
                 \"transaction_id was not initialized\") . map_err (Error :: InvalidRequest) ? ;"
            ),
            "{code}"
        );
        // An optional one starts as `Ok(None)` and keeps its plain `map_err`.
        assert!(code.contains("include : Ok (None)"), "{code}");
        assert!(
            code.contains("let include = include . map_err (Error :: InvalidRequest) ? ;"),
            "{code}"
        );
    }

    #[test]
    fn a_shape_that_could_mislabel_an_error_fails_generation() {
        for (from, to, expected) in [
            // a setter whose message could be empty
            (
                r#".map_err(|_| "conversion to `String` for transaction_id failed".to_string())"#,
                r#".map_err(|e| e.to_string())"#,
                "could leave an empty message",
            ),
            (
                r#""conversion to `String` for transaction_id failed""#,
                r#""""#,
                "could leave an empty message",
            ),
            // another default, or another way to read the parameter
            (
                r#"Err("transaction_id was not initialized".to_string())"#,
                r#"Err("transaction_id is missing".to_string())"#,
                "starts as",
            ),
            (
                "let transaction_id = transaction_id.map_err(Error::InvalidRequest)?;",
                "let transaction_id = transaction_id.unwrap();",
                "0 `let transaction_id",
            ),
        ] {
            let changed = BUILDER.replacen(from, to, 1);
            assert_ne!(changed, BUILDER, "{from}");
            let error = rewritten(&changed).unwrap_err();
            assert!(error.contains(expected), "{to}: {error}");
        }
        // A default outside a builder with `send()`.
        let error = rewritten(&BUILDER.replacen("send", "sent", 1)).unwrap_err();
        assert!(error.contains("outside a builder"), "{error}");
    }
}

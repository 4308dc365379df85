//! The table from progenitor's method names to the documents' operationIds,
//! read from the code progenitor generated rather than from a copy of its
//! naming rule.
//!
//! Each builder's `send()` as progenitor writes it carries both halves: the name it reports
//! (`OperationInfo { operation_id: "create_session" }`) and the request it
//! sends, in its doc comment ("Sends a `POST` request to `/sessions`"). The
//! document maps that (method, path) to its operationId.

use serde_json::Value;
use std::collections::BTreeMap;
use syn::visit::Visit;

/// `(method name, operationId)` of every operation, sorted by method name.
/// Fails when a builder's request is not in the document or an operation of
/// the document has no builder: a silent gap would drop the runtime's
/// per-operation rules (Idempotency-Key, retries, media types).
pub fn operation_ids(file: &syn::File, document: &Value) -> Result<Vec<(String, String)>, String> {
    let mut by_request: BTreeMap<(String, String), String> = BTreeMap::new();
    for (method, path, operation) in operations(document) {
        if let Some(id) = operation.get("operationId").and_then(Value::as_str) {
            by_request.insert(
                (method.to_ascii_uppercase(), path.to_owned()),
                id.to_owned(),
            );
        }
    }

    let mut table = Vec::new();
    for send in builder_sends(file) {
        let request = send.request.ok_or_else(|| {
            format!(
                "a builder's send() ({:?}) documents no request",
                send.method_name
            )
        })?;
        let method_name = send
            .method_name
            .ok_or_else(|| format!("send() for {request:?} names no OperationInfo"))?;
        let id = by_request.remove(&request).ok_or_else(|| {
            format!("{method_name} sends {request:?}, which the document does not declare")
        })?;
        table.push((method_name, id));
    }
    if let Some(((method, path), id)) = by_request.into_iter().next() {
        return Err(format!(
            "operation {id} ({method} {path}) has no generated builder"
        ));
    }
    table.sort();
    Ok(table)
}

/// `(method, path, operation)` of every operation of the document.
fn operations(document: &Value) -> Vec<(&str, &str, &Value)> {
    let mut out = Vec::new();
    for (path, item) in document
        .get("paths")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        for (method, operation) in item.as_object().into_iter().flatten() {
            if crate::lint::METHODS.contains(&method.as_str()) {
                out.push((method.as_str(), path.as_str(), operation));
            }
        }
    }
    out
}

/// What one builder's `send()` says about itself.
struct Send {
    /// The name progenitor's `send()` reports in its `OperationInfo`.
    method_name: Option<String>,
    /// (`POST`, `/sessions`), from the doc comment.
    request: Option<(String, String)>,
}

/// Every `send()` in the `builder` module.
fn builder_sends(file: &syn::File) -> Vec<Send> {
    let builder = file.items.iter().find_map(|item| match item {
        syn::Item::Mod(module) if module.ident == "builder" => module.content.as_ref(),
        _ => None,
    });
    let mut sends = Vec::new();
    for item in builder
        .map(|(_, items)| items.as_slice())
        .unwrap_or_default()
    {
        let syn::Item::Impl(block) = item else {
            continue;
        };
        for impl_item in &block.items {
            let syn::ImplItem::Fn(function) = impl_item else {
                continue;
            };
            if function.sig.ident != "send" {
                continue;
            }
            let mut finder = OperationInfoFinder::default();
            finder.visit_block(&function.block);
            sends.push(Send {
                method_name: finder.operation_id,
                request: documented_request(&function.attrs),
            });
        }
    }
    sends
}

/// "Sends a `POST` request to `/sessions`" in the doc attributes.
fn documented_request(attrs: &[syn::Attribute]) -> Option<(String, String)> {
    attrs.iter().find_map(|attr| {
        let syn::Meta::NameValue(meta) = &attr.meta else {
            return None;
        };
        if !meta.path.is_ident("doc") {
            return None;
        }
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) = &meta.value
        else {
            return None;
        };
        let text = text.value();
        let rest = text.split_once("Sends a `")?.1;
        let (method, rest) = rest.split_once("` request to `")?;
        let path = rest.split_once('`')?.0;
        Some((method.to_owned(), path.to_owned()))
    })
}

/// Finds `OperationInfo { operation_id: "..." }`.
#[derive(Default)]
struct OperationInfoFinder {
    operation_id: Option<String>,
}

impl<'ast> Visit<'ast> for OperationInfoFinder {
    fn visit_expr_struct(&mut self, node: &'ast syn::ExprStruct) {
        let is_info = node
            .path
            .segments
            .last()
            .is_some_and(|segment| segment.ident == "OperationInfo");
        if is_info {
            for field in &node.fields {
                let named =
                    matches!(&field.member, syn::Member::Named(name) if name == "operation_id");
                if let (
                    true,
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(name),
                        ..
                    }),
                ) = (named, &field.expr)
                {
                    self.operation_id = Some(name.value());
                }
            }
        }
        syn::visit::visit_expr_struct(self, node);
    }
}

#[cfg(test)]
mod tests {
    use super::operation_ids;
    use serde_json::json;

    /// A `builder` module as progenitor writes it, one `send()` per entry.
    fn generated(sends: &[(&str, &str, &str)]) -> syn::File {
        let builders = sends
            .iter()
            .enumerate()
            .map(|(index, (name, method, path))| {
                let ident = quote::format_ident!("Builder{index}");
                let doc = format!("Sends a `{method}` request to `{path}`");
                quote::quote! {
                    pub struct #ident;
                    impl #ident {
                        #[doc = #doc]
                        pub async fn send(self) {
                            let info = OperationInfo { operation_id: #name };
                        }
                    }
                }
            });
        syn::parse_quote! {
            pub mod builder {
                #(#builders)*
            }
        }
    }

    fn document() -> serde_json::Value {
        json!({"paths": {
            "/sessions": {"post": {"operationId": "createSession"}},
            "/sessions/{id}": {"get": {"operationId": "getSession"}}
        }})
    }

    #[test]
    fn names_come_from_the_builders_and_ids_from_the_document() {
        let file = generated(&[
            ("get_session", "GET", "/sessions/{id}"),
            ("create_session", "POST", "/sessions"),
        ]);
        assert_eq!(
            operation_ids(&file, &document()).unwrap(),
            [
                ("create_session".to_owned(), "createSession".to_owned()),
                ("get_session".to_owned(), "getSession".to_owned()),
            ]
        );
    }

    #[test]
    fn an_operation_without_a_builder_fails() {
        let file = generated(&[("create_session", "POST", "/sessions")]);
        let error = operation_ids(&file, &document()).unwrap_err();
        assert!(error.contains("getSession"), "{error}");
    }

    #[test]
    fn a_builder_for_an_undeclared_request_fails() {
        let file = generated(&[
            ("get_session", "GET", "/sessions/{id}"),
            ("create_session", "POST", "/sessions"),
            ("delete_session", "DELETE", "/sessions/{id}"),
        ]);
        let error = operation_ids(&file, &document()).unwrap_err();
        assert!(error.contains("delete_session"), "{error}");
    }
}

//! The workspace's code generator and document linter, as a library so the
//! test suite can drive it (`cargo xtask` is the command-line front end).

pub mod apis;
pub mod audience_table;
pub mod bundle;
pub mod conventions;
pub mod derived;
pub mod examples;
pub mod finding;
pub mod generate;
pub mod lint;
pub mod open_enums;
pub mod registry;
pub mod schemas;

/// xtask's modules import one way: no module reaches, through `crate::` or
/// `super::` paths and `mod` declarations, back to itself. Tests are left out
/// (a test module's `super::` is the file it tests), and so is code inside
/// macros (`quote!` writes generated code, which names the generated crate).
#[cfg(test)]
mod one_way_imports {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::Path;
    use syn::visit::Visit;

    type Module = Vec<String>;

    /// Every module of `src/` by its path (`["generate", "items"]`), with its file.
    fn modules(dir: &Path, prefix: &[String], out: &mut BTreeMap<Module, syn::File>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                let mut inner = prefix.to_vec();
                inner.push(name);
                modules(&path, &inner, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let Ok(file) = syn::parse_file(&std::fs::read_to_string(&path).unwrap()) else {
                    // a template, not a module of xtask
                    continue;
                };
                let mut module = prefix.to_vec();
                if !matches!(name.as_str(), "mod" | "lib" | "main") {
                    module.push(name);
                }
                out.insert(module, file);
            }
        }
    }

    fn is_test(attrs: &[syn::Attribute]) -> bool {
        attrs.iter().any(|attr| {
            attr.path().is_ident("cfg")
                && attr
                    .parse_args::<syn::Path>()
                    .is_ok_and(|path| path.is_ident("test"))
        })
    }

    /// What one file names outside macros and tests: every path (as
    /// written, each segment's name) and the modules it declares in files.
    #[derive(Default)]
    struct Names {
        paths: Vec<Vec<String>>,
        children: Vec<String>,
    }

    impl<'ast> Visit<'ast> for Names {
        fn visit_item(&mut self, item: &'ast syn::Item) {
            let attrs = match item {
                syn::Item::Mod(module) => &module.attrs,
                syn::Item::Fn(function) => &function.attrs,
                syn::Item::Use(import) => &import.attrs,
                syn::Item::Impl(block) => &block.attrs,
                syn::Item::Const(constant) => &constant.attrs,
                _ => &Vec::new(),
            };
            if is_test(attrs) {
                return;
            }
            if let syn::Item::Mod(module) = item {
                if module.content.is_none() {
                    self.children.push(module.ident.to_string());
                }
            }
            syn::visit::visit_item(self, item);
        }
        fn visit_path(&mut self, path: &'ast syn::Path) {
            self.paths
                .push(path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        fn visit_item_use(&mut self, import: &'ast syn::ItemUse) {
            fn flatten(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
                match tree {
                    syn::UseTree::Path(path) => {
                        prefix.push(path.ident.to_string());
                        flatten(&path.tree, prefix, out);
                        prefix.pop();
                    }
                    syn::UseTree::Name(name) => {
                        out.push([prefix.clone(), vec![name.ident.to_string()]].concat());
                    }
                    syn::UseTree::Rename(name) => {
                        out.push([prefix.clone(), vec![name.ident.to_string()]].concat());
                    }
                    syn::UseTree::Glob(_) => out.push(prefix.clone()),
                    syn::UseTree::Group(group) => {
                        for tree in &group.items {
                            flatten(tree, prefix, out);
                        }
                    }
                }
            }
            flatten(&import.tree, &mut Vec::new(), &mut self.paths);
        }
    }

    /// The modules `module` names: those its paths lead into and its children.
    fn imports(module: &Module, file: &syn::File, known: &BTreeSet<Module>) -> BTreeSet<Module> {
        let mut names = Names::default();
        names.visit_file(file);
        let mut out = BTreeSet::new();
        for path in &names.paths {
            let (mut base, rest) = match path.first().map(String::as_str) {
                Some("crate") => (Vec::new(), &path[1..]),
                Some("super") => (
                    module[..module.len().saturating_sub(1)].to_vec(),
                    &path[1..],
                ),
                _ => continue,
            };
            let supers = rest.iter().take_while(|s| *s == "super").count();
            base.truncate(base.len().saturating_sub(supers));
            base.extend(rest[supers..].iter().cloned());
            if let Some(target) = (0..=base.len())
                .rev()
                .map(|len| base[..len].to_vec())
                .find(|prefix| known.contains(prefix))
            {
                if &target != module {
                    out.insert(target);
                }
            }
        }
        for child in names.children {
            out.insert([module.clone(), vec![child]].concat());
        }
        out
    }

    #[test]
    fn no_module_imports_its_way_back_to_itself() {
        let mut files = BTreeMap::new();
        modules(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &[],
            &mut files,
        );
        assert!(files.contains_key(&vec!["generate".to_owned(), "items".to_owned()]));
        let known: BTreeSet<Module> = files.keys().cloned().collect();
        let edges: BTreeMap<&Module, BTreeSet<Module>> = files
            .iter()
            .map(|(module, file)| (module, imports(module, file, &known)))
            .collect();
        assert!(
            edges[&vec!["lint".to_owned()]].contains(&vec!["finding".to_owned()]),
            "the walk sees lint's imports"
        );
        // Depth-first from every module; a module met again on the current
        // path closes a circle.
        fn walk<'a>(
            at: &'a Module,
            edges: &'a BTreeMap<&Module, BTreeSet<Module>>,
            path: &mut Vec<&'a Module>,
            done: &mut BTreeSet<&'a Module>,
        ) {
            if let Some(start) = path.iter().position(|m| *m == at) {
                let circle: Vec<String> = path[start..]
                    .iter()
                    .chain([&at])
                    .map(|m| m.join("::"))
                    .collect();
                panic!("import circle: {}", circle.join(" -> "));
            }
            if !done.insert(at) {
                return;
            }
            path.push(at);
            for next in edges.get(at).into_iter().flatten() {
                walk(next, edges, path, done);
            }
            path.pop();
        }
        let mut done = BTreeSet::new();
        for module in edges.keys() {
            walk(module, &edges, &mut Vec::new(), &mut done);
        }
    }
}

//! Function pointers (docs/c.md, "Function pointers"): which functions a
//! call through a pointer may reach.
//!
//! A function used as a value (`f`, `&f`, in code or in a global's
//! initializer) has an address: a one-cell object of its own, so that it
//! is never `NULL` and never equal to another object's address. A call
//! through a pointer whose value constant propagation knows inlines that
//! function; otherwise the thread branches over the *targets*: the
//! functions defined in the file that are used as values in code reachable
//! from `main` (direct calls, functions used as values, and the
//! initializers of the file-scope objects that reachable code names,
//! transitively) and that take as many parameters as the call passes
//! (CBMC's function-pointer removal restricted the same way, by
//! reachability and arity).

use lang_c::ast::{CallExpression, Expression, FunctionDefinition, Initializer};
use lang_c::span::{Node, Span};
use std::collections::{BTreeSet, HashMap, HashSet};

/// The names a piece of code calls directly and the names it uses
/// otherwise (as values: variables, functions, enumerators).
#[derive(Default, Debug)]
pub struct Refs {
    /// Callees named directly (`f(…)`).
    pub calls: HashSet<String>,
    /// Identifiers not in a callee position.
    pub values: HashSet<String>,
}

impl<'ast> lang_c::visit::Visit<'ast> for Refs {
    fn visit_call_expression(&mut self, n: &'ast CallExpression, span: &'ast Span) {
        if let Expression::Identifier(i) = &n.callee.node {
            self.calls.insert(i.node.name.clone());
            for a in &n.arguments {
                self.visit_expression(&a.node, &a.span);
            }
        } else {
            lang_c::visit::visit_call_expression(self, n, span);
        }
    }

    fn visit_identifier(&mut self, n: &'ast lang_c::ast::Identifier, _span: &'ast Span) {
        self.values.insert(n.name.clone());
    }
}

/// The references of a function's body.
pub fn function_refs(f: &Node<FunctionDefinition>) -> Refs {
    let mut r = Refs::default();
    lang_c::visit::Visit::visit_statement(&mut r, &f.node.statement.node, &f.node.statement.span);
    r
}

/// The references of an initializer.
pub fn initializer_refs(i: &Node<Initializer>, into: &mut Refs) {
    lang_c::visit::Visit::visit_initializer(into, &i.node, &i.span);
}

/// The functions defined in the file whose address code reachable from
/// `root` may take (module doc), in name order.
///
/// `funcs`: the defined functions; `globals`: each file-scope object's
/// initializer references.
pub fn address_taken(
    funcs: &HashMap<String, &Node<FunctionDefinition>>,
    globals: &HashMap<String, Refs>,
    root: &str,
) -> BTreeSet<String> {
    let mut seen_funcs: HashSet<String> = HashSet::new();
    let mut seen_globals: HashSet<String> = HashSet::new();
    let mut taken = BTreeSet::new();
    let mut work = vec![root.to_string()];
    seen_funcs.insert(root.to_string());
    let values_of = |values: &HashSet<String>,
                     work: &mut Vec<String>,
                     taken: &mut BTreeSet<String>,
                     seen_funcs: &mut HashSet<String>,
                     gwork: &mut Vec<String>| {
        for v in values {
            if funcs.contains_key(v) {
                taken.insert(v.clone());
                if seen_funcs.insert(v.clone()) {
                    work.push(v.clone());
                }
            } else if globals.contains_key(v) {
                gwork.push(v.clone());
            }
        }
    };
    let mut gwork: Vec<String> = Vec::new();
    loop {
        if let Some(f) = work.pop() {
            let r = function_refs(funcs[&f]);
            for c in &r.calls {
                if funcs.contains_key(c) && seen_funcs.insert(c.clone()) {
                    work.push(c.clone());
                }
            }
            values_of(
                &r.values,
                &mut work,
                &mut taken,
                &mut seen_funcs,
                &mut gwork,
            );
        } else if let Some(g) = gwork.pop() {
            if seen_globals.insert(g.clone()) {
                let values = globals[&g].values.clone();
                values_of(&values, &mut work, &mut taken, &mut seen_funcs, &mut gwork);
            }
        } else {
            break;
        }
    }
    taken
}

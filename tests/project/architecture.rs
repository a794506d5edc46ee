//! The module structure of `src/` (docs/architecture.md), checked from the
//! source text:
//!
//! * no import cycle between sibling modules, at every level of the tree,
//!   in the library and in the binary (`src/main.rs`, `src/cli/`) alike
//!   (a reference from module A to module B is an edge between the two
//!   children of their deepest common ancestor that contain them; a
//!   reference to an ancestor — a folder's shared vocabulary in its
//!   `mod.rs` — or to a descendant is not a sibling edge);
//! * no engine (`engines::**`) references a front-end (`frontend`), and
//!   no library module references the command line (`cli`);
//! * the solver backends (`bounded::varisat`, `bounded::z3`) never
//!   reference each other;
//! * the library (everything but `src/main.rs` and `src/cli/`) never
//!   references clap or the command line;
//! * every module starts with a `//!` doc comment.
//!
//! `cargo test --test project -- architecture:: --nocapture` prints the sibling
//! graphs (the listing quoted in docs/architecture.md).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path, e.g. `["bounded", "varisat", "encoder"]`; the crate
/// root is `[]`.
type ModPath = Vec<String>;

/// One source file: its module path, whether it is in the binary, text.
struct Module {
    path: ModPath,
    file: PathBuf,
    text: String,
    binary: bool,
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `src/` with its module path (`mod.rs`, `lib.rs`
/// and `main.rs` name their folder or the crate root).
fn modules() -> Vec<Module> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    let root = src_dir();
    let mut files = Vec::new();
    walk(&root, &mut files);
    files
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(&root).unwrap();
            let mut path: ModPath = rel
                .with_extension("")
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            if matches!(
                path.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                path.pop();
            }
            // The binary: `main.rs` and its `cli` modules.
            let binary = rel.starts_with("cli") || rel == Path::new("main.rs");
            Module {
                text: std::fs::read_to_string(&f).unwrap(),
                file: f,
                path,
                binary,
            }
        })
        .collect()
}

/// The module paths that `text` (the source of module `me`) references:
/// `crate::a::b`, `bmc_rmm::a::b`, `super::a`, including one level of
/// `use x::{a, b::c}` groups. Comments are skipped.
fn references(me: &ModPath, binary: bool, text: &str) -> Vec<ModPath> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    let starts = ["crate::", "bmc_rmm::", "super::"];
    let mut i = 0;
    while i < code.len() {
        let Some((kw, at)) = starts
            .iter()
            .filter_map(|k| code[i..].find(k).map(|p| (*k, i + p)))
            .min_by_key(|x| x.1)
        else {
            break;
        };
        i = at + kw.len();
        // Not part of a longer identifier (e.g. `my_crate::`).
        if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
            continue;
        }
        // The base module of the path: the binary's `crate::` is its own
        // root (its modules' paths never clash with the library's within
        // one graph); `bmc_rmm::` from the binary names the library,
        // which is outside the binary's graph.
        let mut base: ModPath = match kw {
            "bmc_rmm::" if binary => vec!["<lib>".into()],
            "crate::" | "bmc_rmm::" => Vec::new(),
            _ => {
                // `super` is the parent module (of a `mod.rs`, whose path
                // is its folder's, the folder's parent).
                let mut b = me.clone();
                b.pop();
                b
            }
        };
        // Further `super::`.
        while code[i..].starts_with("super::") {
            base.pop();
            i += "super::".len();
        }
        let rest = &code[i..];
        let seg: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        let after = &rest[seg.len()..];
        let mut p = base.clone();
        p.extend(
            seg.split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        );
        if (seg.is_empty() || seg.ends_with("::")) && after.starts_with('{') {
            // One level of a use group.
            let group: String = after[1..].chars().take_while(|c| *c != '}').collect();
            for item in group.split(',') {
                let item = item.trim().split(" as ").next().unwrap_or("").trim();
                let mut q = p.clone();
                q.extend(
                    item.split("::")
                        .filter(|s| !s.is_empty() && *s != "{" && *s != "self")
                        .map(|s| s.trim_matches(|c| c == '{' || c == ' ').to_string()),
                );
                out.push(q);
            }
        }
        out.push(p);
    }
    out
}

/// The deepest existing module that is a prefix of `p`.
fn resolve(p: &ModPath, known: &BTreeSet<ModPath>) -> Option<ModPath> {
    (0..=p.len())
        .rev()
        .map(|k| p[..k].to_vec())
        .find(|q| known.contains(q))
}

/// Sibling edges per folder: folder → set of (from child, to child).
type Graph = BTreeMap<ModPath, BTreeSet<(String, String)>>;

/// The sibling graph of the library (`binary == false`) or of the binary
/// (`main.rs` and `cli/`), and the problems found on the way: clap in the
/// library, a missing `//!` doc comment, an engine referencing a
/// front-end, a library module referencing the command line.
fn graph(binary: bool) -> (Graph, Vec<String>) {
    let mods = modules();
    let known: BTreeSet<ModPath> = mods
        .iter()
        .filter(|m| m.binary == binary)
        .map(|m| m.path.clone())
        .collect();
    let mut g: Graph = BTreeMap::new();
    let mut problems = Vec::new();
    for m in mods.iter().filter(|m| m.binary == binary) {
        for r in references(&m.path, binary, &m.text) {
            if !binary && r.first().is_some_and(|s| s == "cli") {
                problems.push(format!(
                    "{}: the library references the command line (`{}`)",
                    m.file.display(),
                    r.join("::")
                ));
            }
            let Some(to) = resolve(&r, &known) else {
                continue;
            };
            if !binary
                && m.path.first().is_some_and(|s| s == "engines")
                && to.first().is_some_and(|s| s == "frontend")
            {
                problems.push(format!(
                    "{}: an engine references the front-end `{}`",
                    m.file.display(),
                    to.join("::")
                ));
            }
            let lca = m.path.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if lca == m.path.len() || lca == to.len() {
                continue; // ancestor or descendant
            }
            let (a, b) = (m.path[lca].clone(), to[lca].clone());
            g.entry(m.path[..lca].to_vec()).or_default().insert((a, b));
        }
        let code = m.text.lines().filter(|l| !l.trim_start().starts_with("//"));
        if !binary && code.clone().any(|l| l.contains("clap")) {
            problems.push(format!("{}: the library mentions clap", m.file.display()));
        }
        if !m.text.trim_start().starts_with("//!") {
            problems.push(format!("{}: no `//!` module doc comment", m.file.display()));
        }
    }
    (g, problems)
}

fn library_graph() -> (Graph, Vec<String>) {
    graph(false)
}

/// A cycle in a directed graph, if any (as a list of nodes).
fn find_cycle(edges: &BTreeSet<(String, String)>) -> Option<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    let succ = |n: &String| -> Vec<&String> {
        edges
            .iter()
            .filter(|(a, _)| a == n)
            .map(|(_, b)| b)
            .collect()
    };
    // colour: 0 new, 1 on stack, 2 done
    let mut colour: BTreeMap<&String, u8> = nodes.iter().map(|n| (*n, 0)).collect();
    for &start in &nodes {
        if colour[start] != 0 {
            continue;
        }
        let mut stack: Vec<(&String, usize)> = vec![(start, 0)];
        colour.insert(start, 1);
        while let Some((n, k)) = stack.last().copied() {
            let s = succ(n);
            if k < s.len() {
                stack.last_mut().unwrap().1 += 1;
                let m = s[k];
                match colour[m] {
                    0 => {
                        colour.insert(m, 1);
                        stack.push((m, 0));
                    }
                    1 => {
                        let pos = stack.iter().position(|x| x.0 == m).unwrap();
                        return Some(stack[pos..].iter().map(|x| x.0.clone()).collect());
                    }
                    _ => {}
                }
            } else {
                colour.insert(n, 2);
                stack.pop();
            }
        }
    }
    None
}

fn show(path: &ModPath) -> String {
    if path.is_empty() {
        "crate".into()
    } else {
        path.join("::")
    }
}

/// The cycles of `g` (one per folder that has one), printing the graph.
fn cycles(g: &Graph, prefix: &str) -> Vec<String> {
    let mut cycles = Vec::new();
    for (folder, edges) in g {
        println!("{prefix}{}:", show(folder));
        let mut by_from: BTreeMap<&String, Vec<&String>> = BTreeMap::new();
        for (a, b) in edges {
            by_from.entry(a).or_default().push(b);
        }
        for (a, bs) in by_from {
            let list: Vec<&str> = bs.iter().map(|s| s.as_str()).collect();
            println!("  {a} -> {}", list.join(", "));
        }
        if let Some(c) = find_cycle(edges) {
            cycles.push(format!(
                "import cycle in {prefix}{}: {}",
                show(folder),
                c.join(" -> ")
            ));
        }
    }
    cycles
}

#[test]
fn no_import_cycle_between_sibling_modules() {
    let (g, _) = library_graph();
    assert!(
        g.contains_key(&Vec::new()),
        "the crate root has sibling edges"
    );
    let found = cycles(&g, "");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The binary's modules (`cli/`) form no cycle either.
#[test]
fn no_import_cycle_in_the_binary() {
    let (g, _) = graph(true);
    assert!(
        g.contains_key(&vec!["cli".to_string()]),
        "cli has sibling edges"
    );
    let found = cycles(&g, "(binary) ");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn backends_never_reference_each_other() {
    let (g, _) = library_graph();
    let bounded = g
        .get(&vec!["engines".to_string(), "bounded".to_string()])
        .cloned()
        .unwrap_or_default();
    for (a, b) in &bounded {
        let pair = (a.as_str(), b.as_str());
        assert!(
            !matches!(
                pair,
                ("varisat", "z3")
                    | ("z3", "varisat")
                    | ("cdclt", "z3")
                    | ("z3", "cdclt")
                    | ("varisat", "cdclt")
            ),
            "bounded::{a} references bounded::{b}"
        );
        assert!(
            !matches!(a.as_str(), "queries" | "execution")
                || !matches!(b.as_str(), "varisat" | "z3" | "cdclt"),
            "bounded::{a} (backend-neutral) references the backend bounded::{b}"
        );
    }
}

#[test]
fn library_has_no_clap_and_documents_every_module() {
    let (_, mut problems) = library_graph();
    // The binary's modules are documented too.
    problems.extend(graph(true).1);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The checker itself: a cycle is found, a chain is not.
#[test]
fn cycle_finder_finds_cycles() {
    let e = |v: &[(&str, &str)]| -> BTreeSet<(String, String)> {
        v.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert!(find_cycle(&e(&[("a", "b"), ("b", "c")])).is_none());
    let c = find_cycle(&e(&[("a", "b"), ("b", "c"), ("c", "a")])).unwrap();
    assert_eq!(c.len(), 3);
    let refs = references(
        &vec!["bounded".into(), "z3".into(), "enc".into()],
        false,
        "use super::{pgas::ZPgas, unroll};\nuse crate::cat::Model;\n// crate::cli::x\n",
    );
    assert!(refs.contains(&vec![
        "bounded".into(),
        "z3".into(),
        "pgas".into(),
        "ZPgas".into()
    ]));
    assert!(refs.contains(&vec!["bounded".into(), "z3".into(), "unroll".into()]));
    assert!(refs.contains(&vec!["cat".into(), "Model".into()]));
    assert!(!refs.iter().any(|r| r.first().is_some_and(|s| s == "cli")));
    // In the binary, `crate::` is the binary's root and `bmc_rmm::` the
    // library.
    let refs = references(
        &vec!["cli".into(), "diff".into()],
        true,
        "use crate::cli::shard::Record;\nuse bmc_rmm::diag::Error;\n",
    );
    assert!(refs.contains(&vec!["cli".into(), "shard".into(), "Record".into()]));
    assert!(refs.contains(&vec!["<lib>".into(), "diag".into(), "Error".into()]));
}

//! The language of the generated programs (`fuzz-diff --lang`): a
//! generated program of either language ([`Generated`]) with what the
//! runner needs of it — its text, its size, its reductions for the
//! shrinker, the reproducer's file extension.

use super::gen::Prog;
use super::gen_c::CProg;
use super::shrink::Reduce;

/// The language of the generated programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Lang {
    /// The native language ([`super::gen`]).
    #[default]
    Native,
    /// C in the front-end's subset ([`super::gen_c`]).
    C,
}

impl Lang {
    /// `native` or `c`.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Native => "native",
            Lang::C => "c",
        }
    }

    /// The language named `s` (`native`, `c`).
    pub fn from_name(s: &str) -> Option<Lang> {
        [Lang::Native, Lang::C].into_iter().find(|l| l.name() == s)
    }
}

/// A generated program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Generated {
    /// A native program.
    Native(Prog),
    /// A C program.
    C(CProg),
}

impl Generated {
    /// The program's text in its language.
    pub fn render(&self) -> String {
        match self {
            Generated::Native(p) => p.render(),
            Generated::C(p) => p.render(),
        }
    }

    /// Statements (nested ones included).
    pub fn size(&self) -> usize {
        match self {
            Generated::Native(p) => p.size(),
            Generated::C(p) => p.size(),
        }
    }

    /// Threads (for C: the threads `main` creates).
    pub fn threads(&self) -> usize {
        match self {
            Generated::Native(p) => p.threads.len(),
            Generated::C(p) => p.threads.len(),
        }
    }

    /// Sets the header comment.
    pub fn set_header(&mut self, h: String) {
        match self {
            Generated::Native(p) => p.header = h,
            Generated::C(p) => p.header = h,
        }
    }

    /// The language.
    pub fn lang(&self) -> Lang {
        match self {
            Generated::Native(_) => Lang::Native,
            Generated::C(_) => Lang::C,
        }
    }

    /// The extension of a file holding the program (`rmm`, `c`).
    pub fn extension(&self) -> &'static str {
        match self {
            Generated::Native(_) => "rmm",
            Generated::C(_) => "c",
        }
    }
}

impl Reduce for Generated {
    fn reductions(&self) -> Vec<Generated> {
        match self {
            Generated::Native(p) => p.reductions().into_iter().map(Generated::Native).collect(),
            Generated::C(p) => p.reductions().into_iter().map(Generated::C).collect(),
        }
    }
}

//! Name interning: every name (thread, register, control state, shared
//! variable) is stored once and referred to by a small integer [`Sym`].
//!
//! Backed by [`bimap::BiMap`], so lookups go both ways in O(1).

use bimap::BiMap;

/// An interned name. Cheap to copy and compare; resolve it with
/// [`Interner::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Sym(pub u32);

/// A two-way map between names and [`Sym`]s. One interner per program.
#[derive(Clone, Debug, Default)]
pub struct Interner {
    map: BiMap<String, Sym>,
}

impl Interner {
    /// Returns the symbol of `name`, creating it on first use.
    pub fn intern(&mut self, name: &str) -> Sym {
        if let Some(s) = self.map.get_by_left(name) {
            return *s;
        }
        let s = Sym(self.map.len() as u32);
        self.map.insert(name.to_string(), s);
        s
    }

    /// The symbol of `name` if it was interned before.
    pub fn get(&self, name: &str) -> Option<Sym> {
        self.map.get_by_left(name).copied()
    }

    /// The name of `sym`. Panics only on a symbol from another interner
    /// (a programming error, never user input).
    pub fn name(&self, sym: Sym) -> &str {
        self.map
            .get_by_right(&sym)
            .map(String::as_str)
            .expect("symbol from another interner")
    }

    /// Number of interned names.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when nothing was interned.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_once() {
        let mut i = Interner::default();
        let a = i.intern("a");
        let b = i.intern("b");
        assert_ne!(a, b);
        assert_eq!(i.intern("a"), a);
        assert_eq!(i.name(b), "b");
        assert_eq!(i.get("c"), None);
        assert_eq!(i.len(), 2);
    }
}

//! Petri nets (thesis `003_…` §2.2): places, transitions with weights,
//! markings as sparse vectors, the firing rule, and coverage of markings
//! (the order of the coverability problem).
//!
//! A marking is a sorted list of `(place, tokens)` with positive counts
//! (places absent hold 0 tokens); [`OMEGA`] stands for "as many tokens as
//! needed" in an initial marking (the template places of a parameterized
//! program, where any number of copies may start).

/// A place: an index into [`Net::places`].
pub type Place = u32;

/// A marking: `(place, tokens)` sorted by place, every count ≥ 1.
pub type Marking = Vec<(Place, u32)>;

/// "Unboundedly many tokens" in an initial marking (ω).
pub const OMEGA: u32 = u32::MAX;

/// A transition: the tokens it consumes (`pre`, the weights `W(p, t)`) and
/// produces (`post`, `W(t, p)`); both sorted by place, counts ≥ 1. A place
/// in both is a test (a read arc) when the counts agree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    /// Consumed tokens.
    pub pre: Marking,
    /// Produced tokens.
    pub post: Marking,
}

/// A Petri net `N = (P, T, W)` with a name per place (for messages).
#[derive(Clone, Debug, Default)]
pub struct Net {
    /// Place names; [`Place`] indexes this.
    pub places: Vec<String>,
    /// The transitions.
    pub transitions: Vec<Transition>,
}

/// Normalises a list of `(place, tokens)` into a [`Marking`]: sorted,
/// duplicates added up, zero counts dropped.
pub fn marking(mut v: Vec<(Place, u32)>) -> Marking {
    v.sort_unstable();
    let mut out: Marking = Vec::with_capacity(v.len());
    for (p, c) in v {
        match out.last_mut() {
            Some((q, d)) if *q == p => *d = d.saturating_add(c),
            _ => out.push((p, c)),
        }
    }
    out.retain(|&(_, c)| c > 0);
    out
}

/// Tokens of `m` in place `p`.
pub fn tokens(m: &Marking, p: Place) -> u32 {
    m.binary_search_by_key(&p, |e| e.0)
        .map(|i| m[i].1)
        .unwrap_or(0)
}

/// True when `big ≥ small` place-wise (`big` covers `small`); [`OMEGA`] in
/// `big` covers every count.
pub fn covers(big: &Marking, small: &Marking) -> bool {
    let mut j = 0;
    for &(p, c) in small {
        while j < big.len() && big[j].0 < p {
            j += 1;
        }
        if j == big.len() || big[j].0 != p || big[j].1 < c {
            return false;
        }
    }
    true
}

/// True when transition `t` is enabled in `m` (§2.2: `M(p) ≥ W(p, t)`).
pub fn enabled(m: &Marking, t: &Transition) -> bool {
    covers(m, &t.pre)
}

/// Fires `t` in `m` (`M' = M − W(·, t) + W(t, ·)`); `None` when `t` is not
/// enabled. ω stays ω.
pub fn fire(m: &Marking, t: &Transition) -> Option<Marking> {
    if !enabled(m, t) {
        return None;
    }
    let mut v: Vec<(Place, i64)> = m.iter().map(|&(p, c)| (p, c as i64)).collect();
    let omega = |p: Place| tokens(m, p) == OMEGA;
    for &(p, c) in &t.pre {
        if !omega(p) {
            v.push((p, -(c as i64)));
        }
    }
    for &(p, c) in &t.post {
        if !omega(p) {
            v.push((p, c as i64));
        }
    }
    v.sort_unstable_by_key(|e| e.0);
    let mut out: Marking = Vec::new();
    for (p, c) in v {
        match out.last_mut() {
            Some((q, d)) if *q == p => {
                if *d != OMEGA {
                    *d = (*d as i64 + c) as u32;
                }
            }
            _ => out.push((p, c as u32)),
        }
    }
    out.retain(|&(_, c)| c > 0);
    Some(out)
}

/// The smallest marking `M` from which firing `t` yields a marking
/// covering `m`: `max(m − W(t, ·), 0) + W(·, t)` (the pre-image of the
/// upward closure of `m`, thesis §2.2; the step of backward coverability).
pub fn pre_image(m: &Marking, t: &Transition) -> Marking {
    let mut out: Vec<(Place, u32)> = Vec::with_capacity(m.len() + t.pre.len());
    for &(p, c) in m {
        let produced = tokens(&t.post, p);
        if c > produced {
            out.push((p, c - produced));
        }
    }
    out.extend(t.pre.iter().copied());
    marking(out)
}

impl Net {
    /// A new place named `name`.
    pub fn add_place(&mut self, name: String) -> Place {
        self.places.push(name);
        self.places.len() as Place - 1
    }

    /// A new transition from unsorted token lists; returns its index.
    pub fn add_transition(&mut self, pre: Vec<(Place, u32)>, post: Vec<(Place, u32)>) -> usize {
        self.transitions.push(Transition {
            pre: marking(pre),
            post: marking(post),
        });
        self.transitions.len() - 1
    }

    /// A marking as text: `name×count, …` (`name` alone for one token).
    pub fn show(&self, m: &Marking) -> String {
        m.iter()
            .map(|&(p, c)| {
                let n = self.places.get(p as usize).map_or("?", String::as_str);
                match c {
                    1 => n.to_string(),
                    OMEGA => format!("{n}×ω"),
                    c => format!("{n}×{c}"),
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn firing_and_pre_image_agree() {
        let t = Transition {
            pre: vec![(0, 1), (2, 1)],
            post: vec![(1, 2), (2, 1)],
        };
        let m = vec![(0, 2), (2, 1)];
        let n = fire(&m, &t).unwrap();
        assert_eq!(n, vec![(0, 1), (1, 2), (2, 1)]);
        assert!(fire(&vec![(0, 1)], &t).is_none());
        // The pre-image of ↑{p1×3} under t is ↑{p0, p1, p2}.
        let pre = pre_image(&vec![(1, 3)], &t);
        assert_eq!(pre, vec![(0, 1), (1, 1), (2, 1)]);
        let after = fire(&pre, &t).unwrap();
        assert!(covers(&after, &vec![(1, 3)]));
    }

    #[test]
    fn omega_covers_and_stays() {
        let t = Transition {
            pre: vec![(0, 1)],
            post: vec![(1, 1)],
        };
        let m = vec![(0, OMEGA)];
        assert!(covers(&m, &vec![(0, 5)]));
        let n = fire(&m, &t).unwrap();
        assert_eq!(n, vec![(0, OMEGA), (1, 1)]);
        assert_eq!(marking(vec![(3, 1), (1, 0), (3, 2)]), vec![(3, 3)]);
    }
}

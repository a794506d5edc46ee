//! Cycle detection by profiles (thesis `003_…` §3.2.2, Lemma 3.7): a
//! computation has a happens-before cycle iff it has a *beautiful* one,
//! `enter_1 →po* leave_1 →hop enter_2 →po* leave_2 … →hop enter_1`, where
//! the threads of the segments are pairwise distinct and each hop is one
//! arc of co, src (rf) or cf (fr) between two threads. The sequence of
//! threads is the cycle's *profile*.
//!
//! The automaton marks, for each thread of the profile, the access that
//! enters and the access that leaves its segment, in program order, and
//! checks each hop as soon as both of its ends are marked, from positions
//! in the normal-form computation alone (a finite amount of information,
//! as the finite automata of Lemma 3.3 do).

/// Largest number of threads of a profile (marks are bit sets of `u16`).
pub(crate) const MAX_PROFILE: usize = 15;

/// What the automaton remembers of a marked access: its kind, address
/// and the parts of its events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Acc {
    /// A store whose flush (the write reaching memory) is in part `flush`.
    Store {
        /// Address.
        addr: i64,
        /// Part of the flush (1-based).
        flush: u8,
    },
    /// A load executed in part `part`, reading as `src` says.
    Load {
        /// Address.
        addr: i64,
        /// Part of the load (1-based).
        part: u8,
        /// Where it took its value.
        src: Src,
    },
}

/// Where a load took its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Src {
    /// From memory, from a cell tagged `tag` (`k + 1`: the store that
    /// leaves segment `k`; 0: any other store or the initial value).
    Mem {
        /// The cell's tag.
        tag: u8,
    },
    /// Early, from its own thread's buffered store whose flush is in part
    /// `flush`; `before`: the enter marks recorded before that store was
    /// executed (bit `k` = segment `k`).
    Early {
        /// Part of the source store's flush.
        flush: u8,
        /// Enter marks recorded before the source store.
        before: u16,
    },
}

/// Every profile of a program with `threads` threads: the sequences of at
/// least `min` (1 or 2) distinct threads, up to rotation (the smallest
/// thread first), shortest first, whose neighbours (the last and the
/// first included) are `related` (a hop between them is possible). A
/// cycle through one thread alone needs events outside its program order
/// (PGAS pops, §8.2); the CPU models take `min = 2`.
///
/// Their number grows as `threads!`: `stop` is asked every 4,096
/// sequences with the bytes held so far, and its reason ends the
/// enumeration (`Err`: a limit, "unknown").
pub(crate) fn profiles(
    threads: usize,
    min: usize,
    related: &dyn Fn(u32, u32) -> bool,
    stop: &dyn Fn(usize) -> Option<String>,
) -> Result<Vec<Vec<u32>>, String> {
    let mut e = Enumeration {
        n: threads.min(MAX_PROFILE) as u32,
        min,
        related,
        stop,
        out: Vec::new(),
        bytes: 0,
        visits: 0,
    };
    for first in 0..e.n {
        e.extend(&mut vec![first])?;
    }
    e.out.sort_by_key(|p| p.len());
    Ok(e.out)
}

/// The state of [`profiles`]' depth-first enumeration.
struct Enumeration<'a> {
    n: u32,
    min: usize,
    related: &'a dyn Fn(u32, u32) -> bool,
    stop: &'a dyn Fn(usize) -> Option<String>,
    out: Vec<Vec<u32>>,
    bytes: usize,
    visits: usize,
}

impl Enumeration<'_> {
    fn extend(&mut self, cur: &mut Vec<u32>) -> Result<(), String> {
        self.visits += 1;
        if self.visits.is_multiple_of(4096) {
            if let Some(why) = (self.stop)(self.bytes) {
                return Err(why);
            }
        }
        let last = *cur.last().expect("a profile has a thread");
        if cur.len() >= self.min && (self.related)(last, cur[0]) {
            self.bytes += cur.len() * 4 + 24;
            self.out.push(cur.clone());
        }
        for t in cur[0] + 1..self.n {
            if !cur.contains(&t) && (self.related)(last, t) {
                cur.push(t);
                self.extend(cur)?;
                cur.pop();
            }
        }
        Ok(())
    }
}

/// Whether the hop from `leave` (the access leaving segment `k`) to
/// `enter` (the access entering segment `next = k + 1 mod n`) is an arc
/// of co, src or cf of the computation. `leave_first`: `leave` was
/// executed before `enter` in the automaton's order (the order that all
/// parts follow, NF-B), so at equal parts its event comes first.
///
/// * co: two stores to one address, the flush of `leave` first;
/// * src: `enter` reads from memory a cell tagged by `leave` (k + 1);
/// * cf: `leave` reads the address from memory and the flush of `enter`
///   follows the load (so it follows the load's source in co); when
///   `leave` read early from its thread's store `s`, the flush of `enter`
///   follows the flush of `s`.
pub(crate) fn hop(k: usize, next: usize, leave: Acc, enter: Acc, leave_first: bool) -> bool {
    match (leave, enter) {
        (Acc::Store { addr: a, flush: q1 }, Acc::Store { addr: b, flush: q2 }) => {
            a == b && if leave_first { q1 <= q2 } else { q1 < q2 }
        }
        (
            Acc::Store { .. },
            Acc::Load {
                src: Src::Mem { tag },
                ..
            },
        ) => usize::from(tag) == k + 1,
        (
            Acc::Load {
                addr: a,
                part,
                src: Src::Mem { .. },
            },
            Acc::Store { addr: b, flush: q },
        ) => a == b && if leave_first { q >= part } else { q > part },
        (
            Acc::Load {
                addr: a,
                src: Src::Early { flush, before },
                ..
            },
            Acc::Store { addr: b, flush: q },
        ) => {
            let enter_before_source = !leave_first && before & (1 << next) != 0;
            a == b
                && if enter_before_source {
                    q > flush
                } else {
                    q >= flush
                }
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(threads: usize, min: usize) -> Vec<Vec<u32>> {
        profiles(threads, min, &|_, _| true, &|_| None).expect("no limit")
    }

    #[test]
    fn profiles_are_rotation_classes() {
        assert_eq!(all(2, 2), vec![vec![0, 1]]);
        // 3 threads: 3 pairs and 2 orders of the triple.
        assert_eq!(all(3, 2).len(), 5);
        // 4 threads: 6 + 4·2 + 6.
        assert_eq!(all(4, 2).len(), 20);
        // With single threads (PGAS): 4 more.
        assert_eq!(all(4, 1).len(), 24);
        assert_eq!(all(2, 1), vec![vec![0], vec![1], vec![0, 1]]);
    }

    #[test]
    fn unrelated_neighbours_and_limits_cut_the_enumeration() {
        // Threads related in a ring 0-1-2-3-0 only: the pairs of the ring
        // and the two directions of the whole ring.
        let ring = |a: u32, b: u32| (a + 1) % 4 == b || (b + 1) % 4 == a;
        let got = profiles(4, 2, &ring, &|_| None).expect("no limit");
        assert_eq!(
            got,
            vec![
                vec![0, 1],
                vec![0, 3],
                vec![1, 2],
                vec![2, 3],
                vec![0, 1, 2, 3],
                vec![0, 3, 2, 1]
            ]
        );
        // 12 threads have about 10^8 profiles: a limit stops the
        // enumeration early with its reason.
        let r = profiles(12, 2, &|_, _| true, &|bytes| {
            (bytes > 1 << 20).then(|| "memory limit".into())
        });
        assert_eq!(r, Err("memory limit".to_string()));
    }

    #[test]
    fn co_respects_the_order_within_a_part() {
        let s = |flush| Acc::Store { addr: 0, flush };
        assert!(hop(0, 1, s(1), s(1), true));
        assert!(!hop(0, 1, s(1), s(1), false));
        assert!(hop(0, 1, s(1), s(2), false));
        assert!(!hop(0, 1, s(2), s(1), true));
    }
}

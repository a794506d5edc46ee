//! Hash maps and sets with a fixed hasher: their iteration order depends
//! only on what was inserted, not on a per-process random seed, so that
//! encodings (variable and clause order), solver runs, witnesses and
//! statistics are the same from run to run.

use rustc_hash::FxHasher;
use std::hash::BuildHasherDefault;

/// The fixed hasher of [`HashMap`] and [`HashSet`]: Fx (rustc's), fast on
/// the small keys of encodings and packed states, and unseeded.
pub type FixedState = BuildHasherDefault<FxHasher>;

/// A `HashMap` with a fixed (unseeded Fx) hasher; build it with
/// `HashMap::default()`.
pub type HashMap<K, V> = std::collections::HashMap<K, V, FixedState>;

/// A `HashSet` with a fixed hasher; build it with `HashSet::default()`.
pub type HashSet<K> = std::collections::HashSet<K, FixedState>;

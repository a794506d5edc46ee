//! Hash maps and sets with a fixed hasher: their iteration order depends
//! only on what was inserted, not on a per-process random seed, so that
//! encodings (variable and clause order), solver runs, witnesses and
//! statistics are the same from run to run.

use std::collections::hash_map::DefaultHasher;
use std::hash::BuildHasherDefault;

/// A `HashMap` with a fixed (unseeded SipHash) hasher; build it with
/// `HashMap::default()`.
pub type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<DefaultHasher>>;

/// A `HashSet` with a fixed hasher; build it with `HashSet::default()`.
pub type HashSet<K> = std::collections::HashSet<K, BuildHasherDefault<DefaultHasher>>;

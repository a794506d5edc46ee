//! Questions answered by driving the bounded engine repeatedly:
//! [`fence_synth`] (a minimum-cost fence set that makes a program robust up
//! to a bound, for every model) and [`state_robust`] (thesis §2.6:
//! control states reachable under the model but not under SC).

pub mod fence_synth;
pub mod state_robust;

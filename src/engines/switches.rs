//! Developer switches: the `BMC_*` environment variables that turn on
//! diagnostics and alternative strategies of the engines, gathered in one
//! value ([`Switches`]) that the caller passes to the engines. The library
//! never reads the environment itself: [`Switches::from_env`] is the only
//! reader, and the command-line tool calls it once; a library user who
//! never sets them gets [`Switches::default`] (every variable unset).
//!
//! None of them changes an answer; they change what is printed on stderr,
//! or how (and how fast) an answer is found (docs/solvers.md,
//! docs/models.md).

/// The developer switches of one run (see the module documentation).
/// `Default` is every variable unset.
///
/// | variable | field | meaning | default (unset) |
/// |---|---|---|---|
/// | `BMC_CDCLT_DEBUG` (set) | [`Switches::cdclt_debug`] | per-solve statistics of cdclt, and of the escape pre-filter and probe, on stderr | off |
/// | `BMC_CDCLT_PARTIAL` (set) | [`Switches::cdclt_partial`] | cdclt also evaluates the model on partial assignments | off |
/// | `BMC_CDCLT_PROPAGATE` (set) | [`Switches::cdclt_propagate`] | cdclt theory propagation (with `BMC_CDCLT_PARTIAL`) | off |
/// | `BMC_CDCLT_ROTATE` (set) | [`Switches::cdclt_rotate`] | cdclt lemma rotation | off |
/// | `BMC_SHORTEST_CYCLES` (set) | [`Switches::shortest_cycles`] | the hb-cycle query narrowed to shortest cycles when the caller does not choose | off |
/// | `BMC_ESCAPE_PROBE=N` | [`Switches::escape_probe`] | solves of the escape-edge probe over the clauses alone (0 = no probe) | 32 |
/// | `BMC_ESCAPE_ROUNDS=N` | [`Switches::escape_rounds`] | rounds of the probe's second (consistent-execution) phase | 1 |
/// | `BMC_ESCAPE_CFG=0` | [`Switches::escape_cfg`] | `0` turns off the CFG pre-filter of escape edges | on |
/// | `BMC_ESCAPE_CFG_DEBUG` (set) | [`Switches::escape_cfg_debug`] | the escape candidates the CFG pre-filter keeps, on stderr | off |
/// | `BMC_TSO_WITNESS=1` | [`Switches::tso_witness`] | the one-attacker restriction of the TSO hb-cycle query | off |
/// | `BMC_PARAM_DEBUG` (set) | [`Switches::param_debug`] | progress of the parameterized engine's backward search, on stderr | off |
/// | `BMC_EXPLICIT_FIRST=0` | [`Switches::explicit_first`] | `0` turns off the explicit TSO engine tried before the bounded robustness query | on |
///
/// "(set)": any value, even empty, turns it on. A number that does not
/// parse counts as unset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Switches {
    /// `BMC_CDCLT_DEBUG`: statistics on stderr.
    pub cdclt_debug: bool,
    /// `BMC_CDCLT_PARTIAL`: evaluate the model on partial assignments.
    pub cdclt_partial: bool,
    /// `BMC_CDCLT_PROPAGATE`: theory propagation.
    pub cdclt_propagate: bool,
    /// `BMC_CDCLT_ROTATE`: lemma rotation.
    pub cdclt_rotate: bool,
    /// `BMC_SHORTEST_CYCLES`: narrow the hb-cycle query to shortest
    /// cycles when the backend was not told either way.
    pub shortest_cycles: bool,
    /// `BMC_ESCAPE_PROBE`: solves of the escape-edge probe's first phase.
    pub escape_probe: usize,
    /// `BMC_ESCAPE_ROUNDS`: rounds of the escape-edge probe's second phase.
    pub escape_rounds: usize,
    /// `BMC_ESCAPE_CFG` (not `0`): the CFG pre-filter of escape edges.
    pub escape_cfg: bool,
    /// `BMC_ESCAPE_CFG_DEBUG`: the kept escape candidates on stderr.
    pub escape_cfg_debug: bool,
    /// `BMC_TSO_WITNESS=1`: the one-attacker restriction under TSO.
    pub tso_witness: bool,
    /// `BMC_PARAM_DEBUG`: the parameterized engine's progress on stderr.
    pub param_debug: bool,
    /// `BMC_EXPLICIT_FIRST` (not `0`): try the explicit TSO engine before
    /// the bounded robustness query (read by the command-line tool).
    pub explicit_first: bool,
}

impl Default for Switches {
    /// Every variable unset: probe 32 solves, 1 consistent round, the CFG
    /// pre-filter and explicit-first on, everything else off.
    fn default() -> Self {
        Switches {
            cdclt_debug: false,
            cdclt_partial: false,
            cdclt_propagate: false,
            cdclt_rotate: false,
            shortest_cycles: false,
            escape_probe: 32,
            escape_rounds: 1,
            escape_cfg: true,
            escape_cfg_debug: false,
            tso_witness: false,
            param_debug: false,
            explicit_first: true,
        }
    }
}

impl Switches {
    /// The switches as the process environment sets them (the only place
    /// that reads the `BMC_*` variables).
    pub fn from_env() -> Switches {
        Switches::from_lookup(|name| std::env::var_os(name))
    }

    /// The switches as `get` (a variable's value, `None` when unset)
    /// gives them; [`Switches::from_env`] with the process environment.
    pub fn from_lookup(get: impl Fn(&str) -> Option<std::ffi::OsString>) -> Switches {
        let d = Switches::default();
        let set = |name: &str| get(name).is_some();
        let text = |name: &str| get(name).and_then(|v| v.into_string().ok());
        let number =
            |name: &str, default: usize| text(name).and_then(|v| v.parse().ok()).unwrap_or(default);
        Switches {
            cdclt_debug: set("BMC_CDCLT_DEBUG"),
            cdclt_partial: set("BMC_CDCLT_PARTIAL"),
            cdclt_propagate: set("BMC_CDCLT_PROPAGATE"),
            cdclt_rotate: set("BMC_CDCLT_ROTATE"),
            shortest_cycles: set("BMC_SHORTEST_CYCLES"),
            escape_probe: number("BMC_ESCAPE_PROBE", d.escape_probe),
            escape_rounds: number("BMC_ESCAPE_ROUNDS", d.escape_rounds),
            escape_cfg: text("BMC_ESCAPE_CFG").map_or(d.escape_cfg, |v| v != "0"),
            escape_cfg_debug: set("BMC_ESCAPE_CFG_DEBUG"),
            tso_witness: text("BMC_TSO_WITNESS").is_some_and(|v| v == "1"),
            param_debug: set("BMC_PARAM_DEBUG"),
            explicit_first: text("BMC_EXPLICIT_FIRST").map_or(d.explicit_first, |v| v != "0"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn nothing_set_is_the_default() {
        assert_eq!(Switches::from_lookup(|_| None), Switches::default());
    }

    #[test]
    fn values_parse_as_the_engines_read_them() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                (pairs.iter())
                    .find(|p| p.0 == name)
                    .map(|p| OsString::from(p.1))
            }
        };
        let s = Switches::from_lookup(env(&[
            ("BMC_CDCLT_DEBUG", ""),
            ("BMC_ESCAPE_PROBE", "5"),
            ("BMC_ESCAPE_ROUNDS", "x"),
            ("BMC_ESCAPE_CFG", "0"),
            ("BMC_TSO_WITNESS", "yes"),
            ("BMC_EXPLICIT_FIRST", "1"),
        ]));
        assert!(s.cdclt_debug);
        assert_eq!(s.escape_probe, 5);
        assert_eq!(s.escape_rounds, 1);
        assert!(!s.escape_cfg);
        assert!(!s.tso_witness);
        assert!(s.explicit_first);
        let s = Switches::from_lookup(env(&[("BMC_TSO_WITNESS", "1"), ("BMC_ESCAPE_CFG", "")]));
        assert!(s.tso_witness && s.escape_cfg);
    }
}

//! herd7-compatible output for litmus tests: the result block herd prints
//! (`Test`, `States`, `Ok`/`No`, `Witnesses`, `Condition`, `Observation`,
//! `Time`), evaluation of conditions on final states, and the verdict
//! mapping of the corpus (`Never` → Forbidden, otherwise Allowed).
//!
//! A *final state* is a vector of values, one per location of
//! [`LitmusTest::observed`], in that order.

use crate::frontend::litmus::{LitmusTest, LocKind, Prop, Quantifier};
use std::cmp::Ordering;
use std::fmt::Write;

pub mod log;

/// herd's observation of the proposition P over the final states.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Observation {
    /// No final state satisfies P.
    Never,
    /// Some do, some do not.
    Sometimes,
    /// Every final state satisfies P.
    Always,
}

impl Observation {
    /// herd's word.
    pub fn as_str(self) -> &'static str {
        match self {
            Observation::Never => "Never",
            Observation::Sometimes => "Sometimes",
            Observation::Always => "Always",
        }
    }

    /// From (number satisfying P, number not satisfying P).
    pub fn from_counts(pos: u64, neg: u64) -> Observation {
        if pos == 0 {
            Observation::Never
        } else if neg == 0 {
            Observation::Always
        } else {
            Observation::Sometimes
        }
    }

    /// The corpus verdict (README of the litmus corpus): `Never` →
    /// Forbidden, `Sometimes`/`Always` → Allowed, whatever the quantifier.
    pub fn verdict(self) -> Verdict {
        match self {
            Observation::Never => Verdict::Forbidden,
            _ => Verdict::Allowed,
        }
    }
}

/// The 4-column verdict of `EXPECTED.tsv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Verdict {
    /// Some final state satisfies P.
    Allowed,
    /// No final state satisfies P.
    Forbidden,
}

impl Verdict {
    /// `Allowed` / `Forbidden`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Allowed => "Allowed",
            Verdict::Forbidden => "Forbidden",
        }
    }
}

/// Evaluates a proposition on a final state (values in the order of
/// [`LitmusTest::observed`]). A location index outside the state counts as
/// value 0 (never happens for states of the right length).
pub fn eval_prop(p: &Prop, state: &[i64]) -> bool {
    match p {
        Prop::True => true,
        Prop::False => false,
        Prop::Eq { loc, value, .. } => state.get(*loc).copied().unwrap_or(0) == *value,
        Prop::Same { a, b } => {
            state.get(*a).copied().unwrap_or(0) == state.get(*b).copied().unwrap_or(0)
        }
        Prop::Not(a) => !eval_prop(a, state),
        Prop::And(v) => v.iter().all(|x| eval_prop(x, state)),
        Prop::Or(v) => v.iter().any(|x| eval_prop(x, state)),
        Prop::Implies(a, b) => !eval_prop(a, state) || eval_prop(b, state),
    }
}

impl LitmusTest {
    /// True when the state satisfies the condition's proposition P.
    pub fn eval(&self, state: &[i64]) -> bool {
        eval_prop(&self.prop, state)
    }

    /// True when the state passes the `filter` (always without one).
    pub fn passes_filter(&self, state: &[i64]) -> bool {
        self.filter.as_ref().is_none_or(|f| eval_prop(f, state))
    }

    /// How value `v` of observed location `loc` prints: the variable name
    /// when the location may hold an address and `v` is one, else decimal.
    pub fn value_text(&self, loc: usize, v: i64) -> String {
        let l = self.observed.get(loc);
        if let Some(n) = self.code_labels.get(&v) {
            return n.clone();
        }
        if l.is_some_and(|l| l.holds_address) {
            if let Some(n) = self.addr_text(v) {
                return n;
            }
        }
        match l.and_then(|l| l.unsigned) {
            Some(bits) => crate::program::Width(bits).unsigned(v).to_string(),
            None => v.to_string(),
        }
    }

    /// One state line as herd prints it: `0:EAX=0; [x]=1;`.
    /// The elements of a whole array (locations named `v{0}`, `v{1}`, …,
    /// in order) print together as `v={1,2};`.
    pub fn state_line(&self, state: &[i64]) -> String {
        let mut s = String::new();
        let mut group: Option<&str> = None;
        for (i, l) in self.observed.iter().enumerate() {
            if self.shown.get(i) == Some(&false) {
                continue;
            }
            let v = state.get(i).copied().unwrap_or(0);
            let elem = l
                .name
                .strip_suffix('}')
                .and_then(|n| n.split_once('{'))
                .map(|(base, _)| base);
            match (elem, group) {
                (Some(b), Some(g)) if b == g => {
                    let _ = write!(s, ",{}", self.value_text(i, v));
                }
                (Some(b), _) => {
                    if group.is_some() {
                        s.push_str("}; ");
                    }
                    let _ = write!(s, "{b}={{{}", self.value_text(i, v));
                }
                (None, _) => {
                    if group.is_some() {
                        s.push_str("}; ");
                    }
                    let _ = write!(s, "{}={}; ", l.name, self.value_text(i, v));
                }
            }
            group = elem;
        }
        if group.is_some() {
            s.push_str("}; ");
        }
        s.pop();
        s
    }

    /// herd's order on states: lexicographic over the locations; at one
    /// location integers come before addresses, integers by value,
    /// addresses by their printed text (herd7 7.58 prints `x+16` before
    /// `x+4`).
    pub fn compare_states(&self, a: &[i64], b: &[i64]) -> Ordering {
        for (i, loc) in self.observed.iter().enumerate() {
            let (x, y) = (
                a.get(i).copied().unwrap_or(0),
                b.get(i).copied().unwrap_or(0),
            );
            if x == y {
                continue;
            }
            let name = |v: i64| {
                if loc.holds_address {
                    self.addr_text(v)
                } else {
                    None
                }
            };
            let o = match (name(x), name(y)) {
                (None, None) => x.cmp(&y),
                (None, Some(_)) => Ordering::Less,
                (Some(_), None) => Ordering::Greater,
                (Some(p), Some(q)) => p.cmp(&q),
            };
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }

    /// The condition as herd prints it: `exists (0:EAX=0 /\ [x]=1)`.
    pub fn condition_text(&self) -> String {
        format!(
            "{} ({})",
            self.quantifier.keyword(),
            self.prop_text(&self.prop)
        )
    }

    /// A proposition in herd's syntax: `/\` binds tighter than `\/`,
    /// negation prints as `not (...)`, memory as `[x]`.
    pub fn prop_text(&self, p: &Prop) -> String {
        self.prop_prec(p, 0)
    }

    fn prop_prec(&self, p: &Prop, ctx: u8) -> String {
        // Precedences: => 1, \/ 2, /\ 3, atoms 4.
        let (s, prec) = match p {
            Prop::True => ("true".to_string(), 4),
            Prop::False => ("false".to_string(), 4),
            Prop::Eq {
                loc,
                value,
                symbolic,
            } => {
                let l = &self.observed[*loc];
                let v = if let Some(n) = self.code_labels.get(value).filter(|_| *symbolic) {
                    n.clone()
                } else if *symbolic {
                    self.addr_text(*value).unwrap_or_else(|| value.to_string())
                } else {
                    // herd prints a constant in the location's type.
                    match l.unsigned {
                        Some(bits) => crate::program::Width(bits).unsigned(*value).to_string(),
                        None => value.to_string(),
                    }
                };
                (format!("{}={}", l.name, v), 4)
            }
            Prop::Same { a, b } => (
                format!("{}={}", self.observed[*a].name, self.observed[*b].name),
                4,
            ),
            Prop::Not(a) => (format!("not ({})", self.prop_prec(a, 0)), 4),
            Prop::And(v) => (
                v.iter()
                    .map(|x| self.prop_prec(x, 3))
                    .collect::<Vec<_>>()
                    .join(" /\\ "),
                3,
            ),
            Prop::Or(v) => (
                v.iter()
                    .map(|x| self.prop_prec(x, 2))
                    .collect::<Vec<_>>()
                    .join(" \\/ "),
                2,
            ),
            Prop::Implies(a, b) => (
                format!("{} => {}", self.prop_prec(a, 2), self.prop_prec(b, 1)),
                1,
            ),
        };
        if prec < ctx {
            format!("({s})")
        } else {
            s
        }
    }
}

/// Counts of a run, as herd reports them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Witnesses (executions, or states) satisfying P.
    pub pos: u64,
    /// Witnesses not satisfying P.
    pub neg: u64,
}

/// Renders herd's result block for `test` given its reachable final states
/// (duplicates and order do not matter; states failing the filter are
/// dropped) and the run time in seconds. `counts` overrides the witness
/// counts (herd counts executions, not states); by default they are the
/// numbers of states satisfying / not satisfying P. No `Hash=` line.
///
/// Shape:
/// ```text
/// Test SB Allowed
/// States 4
/// 0:EAX=0; 1:EAX=0;
/// ...
/// Ok
/// Witnesses
/// Positive: 1 Negative: 3
/// Condition exists (0:EAX=0 /\ 1:EAX=0)
/// Observation SB Sometimes 1 3
/// Time SB 0.00
/// ```
pub fn render(
    test: &LitmusTest,
    states: &[Vec<i64>],
    counts: Option<Counts>,
    time_secs: f64,
) -> String {
    let mut st: Vec<&Vec<i64>> = states.iter().filter(|s| test.passes_filter(s)).collect();
    st.sort_by(|a, b| test.compare_states(a, b));
    st.dedup_by(|a, b| test.compare_states(a, b) == Ordering::Equal);
    let c = counts.unwrap_or_else(|| {
        let pos = st.iter().filter(|s| test.eval(s)).count() as u64;
        Counts {
            pos,
            neg: st.len() as u64 - pos,
        }
    });
    let kind = match test.quantifier {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    };
    let ok = match test.quantifier {
        Quantifier::Exists => c.pos > 0,
        Quantifier::NotExists => c.pos == 0,
        Quantifier::Forall => c.neg == 0,
    };
    // Positive/Negative are w.r.t. the quantified condition (for ~exists,
    // "positive" means not P).
    let (wp, wn) = match test.quantifier {
        Quantifier::NotExists => (c.neg, c.pos),
        _ => (c.pos, c.neg),
    };
    let mut s = String::new();
    let _ = writeln!(s, "Test {} {}", test.name, kind);
    let _ = writeln!(s, "States {}", st.len());
    for x in &st {
        let _ = writeln!(s, "{}", test.state_line(x));
    }
    let _ = writeln!(
        s,
        "{}{}",
        if test.has_loop { "Loop " } else { "" },
        if ok { "Ok" } else { "No" }
    );
    let _ = writeln!(s, "Witnesses");
    let _ = writeln!(s, "Positive: {wp} Negative: {wn}");
    let _ = writeln!(s, "Condition {}", test.condition_text());
    let _ = writeln!(
        s,
        "Observation {} {} {} {}",
        test.name,
        Observation::from_counts(c.pos, c.neg).as_str(),
        c.pos,
        c.neg
    );
    let _ = writeln!(s, "Time {} {:.2}", test.name, time_secs);
    s
}

/// [`render`] with herd's `Flag NAME` lines (the flags of the model that
/// hold on some consistent execution, [`crate::cat::Flag`]), sorted by
/// name, before the `Condition` line, as herd7 prints them; with herd's
/// `Undef` flag ([`crate::cat::parse::herd::UNDEF_FLAG`], a failed
/// `undefined_unless`), `Undef` in place of `Ok`/`No` (`herd/top_herd.ml`).
pub fn render_flags(
    test: &LitmusTest,
    states: &[Vec<i64>],
    flags: &[String],
    time_secs: f64,
) -> String {
    let block = render(test, states, None, time_secs);
    let mut names: Vec<&String> = flags.iter().collect();
    names.sort();
    names.dedup();
    let undef = names
        .iter()
        .any(|f| f.as_str() == crate::cat::parse::herd::UNDEF_FLAG);
    let mut out = String::with_capacity(block.len());
    let verdict = |l: &str| matches!(l.strip_prefix("Loop ").unwrap_or(l), "Ok" | "No");
    for line in block.lines() {
        if undef && verdict(line) {
            let lp = if line.starts_with("Loop ") {
                "Loop "
            } else {
                ""
            };
            let _ = writeln!(out, "{lp}Undef");
            continue;
        }
        if line.starts_with("Condition ") {
            for f in &names {
                let _ = writeln!(out, "Flag {f}");
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The observation of P over a set of final states (filter applied).
pub fn observe(test: &LitmusTest, states: &[Vec<i64>]) -> Observation {
    let mut pos = 0;
    let mut neg = 0;
    for s in states.iter().filter(|s| test.passes_filter(s)) {
        if test.eval(s) {
            pos += 1;
        } else {
            neg += 1;
        }
    }
    Observation::from_counts(pos, neg)
}

/// Parses one herd state value as printed for observed location `loc`:
/// an integer, a code label or instruction value as printed
/// (`label:"P0:L0"`, `instr:"B .+4"`, `NOP`), or a variable name (its
/// address). `None` otherwise.
pub fn parse_value(test: &LitmusTest, loc: usize, text: &str) -> Option<i64> {
    let _ = loc;
    if let Some(v) = crate::frontend::litmus::parse_int(text) {
        return Some(test.width.wrap(v));
    }
    if let Some((v, _)) = test.code_labels.iter().find(|(_, n)| n.as_str() == text) {
        return Some(*v);
    }
    test.var_addr(text)
}

/// Parses a state line (`0:EAX=0; [x]=1;`) into a state of `test`: every
/// observed location must appear exactly once. `None` when a name or value
/// is unknown.
pub fn parse_state_line(test: &LitmusTest, line: &str) -> Option<Vec<i64>> {
    let mut out: Vec<Option<i64>> = vec![None; test.observed.len()];
    for b in line.split(';') {
        let b = b.trim();
        if b.is_empty() {
            continue;
        }
        let (l, v) = b.split_once('=')?;
        let i = test.observed.iter().position(|x| x.name == l.trim())?;
        out[i] = Some(parse_value(test, i, v.trim())?);
    }
    out.into_iter().collect()
}

/// True when observed location `i` is a register.
pub fn is_register(test: &LitmusTest, i: usize) -> bool {
    matches!(
        test.observed.get(i).map(|l| l.kind),
        Some(LocKind::Reg { .. })
    )
}

/// herd7's log block for `test`: [`render`]'s block followed by the
/// `Hash=` line herd prints (`hash`, see [`crate::litmus::hash`]), so that
/// herd's `mcompare7`/`msort7` read our logs as herd7's own.
pub fn render_log(test: &LitmusTest, states: &[Vec<i64>], time_secs: f64, hash: &str) -> String {
    let mut s = render(test, states, None, time_secs);
    let _ = writeln!(s, "Hash={hash}");
    s
}

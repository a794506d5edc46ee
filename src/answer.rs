//! The answer vocabulary every engine's result converts into: a verdict
//! (violation, no violation, unknown), the reason, what the answer holds
//! for (every execution, or those within a bound or a number of rounds),
//! named statistics and an optional witness. Each engine keeps its own
//! result type (with its own witness shape) and converts it in its
//! `mod.rs`; comparing two engines (`crosscheck`) compares [`Answer`]s.
//! Nothing here knows an engine.

/// The verdict of a question: a goal reachable / an hb cycle found, none,
/// or no answer within the limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Goal reachable / hb cycle found (exit 1).
    Violation,
    /// None within the bound (exit 0).
    NoViolation,
    /// Timeout or limit (exit 3).
    Unknown,
}

impl Verdict {
    /// Process exit status for this verdict.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Violation => 1,
            Verdict::NoViolation => 0,
            Verdict::Unknown => 3,
        }
    }
}

/// What an answer holds for: a violation is a violation whatever the
/// scope; "no violation" is proved for every execution only when the
/// scope is [`Scope::Complete`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every execution of the program (an unbounded engine that explored
    /// everything).
    Complete,
    /// The executions in which every thread runs at most this many
    /// instructions (the bounded engines; SMC when its bound cut a path).
    Bound(u32),
    /// The TSO executions within this many rounds per thread (kround).
    Rounds(u32),
}

/// The [`Answer::stats`] counter of a violation found within a bound:
/// at most this many instructions of one thread in its witness (the
/// bound, for an engine that searches within it).
pub const STEPS_PER_THREAD: &str = "witness steps per thread";

/// The [`Answer::stats`] counter of a violation found within a number of
/// rounds: at most this many rounds per thread in its witness.
pub const ROUNDS: &str = "witness rounds";

/// How two answers to the same question (on the same input and model)
/// compare ([`Answer::compare`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// The same verdict.
    Agree,
    /// A violation within what the other answer's "no violation" holds
    /// for ([`Answer::contradicts`]).
    Disagree,
    /// A violation beyond what the other answer's "no violation" holds
    /// for (or of a size not known): both can be right.
    Beyond,
    /// One of them is unknown.
    Unknown,
}

/// One engine's answer to one question on one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The verdict.
    pub verdict: Verdict,
    /// Why the verdict is unknown (the limit hit), if it is.
    pub reason: Option<String>,
    /// What a "no violation" holds for.
    pub scope: Scope,
    /// Named counters of the engine (states, executions, attacks, ...),
    /// in the engine's order; times are not statistics here.
    pub stats: Vec<(&'static str, u64)>,
    /// The witness of a violation, rendered as the engine prints it.
    pub witness: Option<String>,
}

impl Answer {
    /// An answer with no reason, statistics or witness.
    pub fn new(verdict: Verdict, scope: Scope) -> Answer {
        Answer {
            verdict,
            reason: None,
            scope,
            stats: Vec::new(),
            witness: None,
        }
    }

    /// True when the answer is "no violation" for every execution.
    pub fn proves_absence(&self) -> bool {
        self.verdict == Verdict::NoViolation && self.scope == Scope::Complete
    }

    /// True when `self` is a violation that `other`'s "no violation"
    /// covers: `other` holds for every execution; or for a bound that the
    /// witness fits in ([`STEPS_PER_THREAD`]); or for a number of rounds
    /// the witness fits in ([`ROUNDS`]). A witness of unknown size is
    /// beyond any bound.
    pub fn contradicts(&self, other: &Answer) -> bool {
        let within = |name, k| self.stat(name).is_some_and(|n| n <= u64::from(k));
        self.verdict == Verdict::Violation
            && other.verdict == Verdict::NoViolation
            && match other.scope {
                Scope::Complete => true,
                Scope::Bound(k) => within(STEPS_PER_THREAD, k),
                Scope::Rounds(k) => within(ROUNDS, k),
            }
    }

    /// How `self` and `other` (two engines' answers to the same
    /// question) compare: unknown when either is; agree on the same
    /// verdict; else disagree when the violation is within what the
    /// other's "no violation" holds for ([`Answer::contradicts`]), beyond
    /// otherwise.
    pub fn compare(&self, other: &Answer) -> Agreement {
        if self.verdict == Verdict::Unknown || other.verdict == Verdict::Unknown {
            Agreement::Unknown
        } else if self.verdict == other.verdict {
            Agreement::Agree
        } else if self.contradicts(other) || other.contradicts(self) {
            Agreement::Disagree
        } else {
            Agreement::Beyond
        }
    }

    /// The counter `name` of [`Answer::stats`], if the engine gave it.
    pub fn stat(&self, name: &str) -> Option<u64> {
        self.stats.iter().find(|(n, _)| *n == name).map(|x| x.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absence_is_proved_only_for_every_execution() {
        let mut a = Answer::new(Verdict::NoViolation, Scope::Complete);
        assert!(a.proves_absence());
        a.scope = Scope::Bound(4);
        assert!(!a.proves_absence());
        a.stats.push(("states", 7));
        assert_eq!(a.stat("states"), Some(7));
        assert_eq!(a.stat("traces"), None);
        assert_eq!(Verdict::Unknown.exit_code(), 3);
    }

    #[test]
    fn a_violation_contradicts_what_covers_its_witness() {
        let mut v = Answer::new(Verdict::Violation, Scope::Complete);
        let complete = Answer::new(Verdict::NoViolation, Scope::Complete);
        let bound4 = Answer::new(Verdict::NoViolation, Scope::Bound(4));
        let rounds2 = Answer::new(Verdict::NoViolation, Scope::Rounds(2));
        assert_eq!(v.compare(&complete), Agreement::Disagree);
        assert_eq!(complete.compare(&v), Agreement::Disagree);
        // A witness of unknown size is beyond any bound.
        assert_eq!(v.compare(&bound4), Agreement::Beyond);
        v.stats.push((STEPS_PER_THREAD, 5));
        assert_eq!(v.compare(&bound4), Agreement::Beyond);
        v.stats[0].1 = 4;
        assert_eq!(v.compare(&bound4), Agreement::Disagree);
        assert_eq!(v.compare(&rounds2), Agreement::Beyond);
        v.stats.push((ROUNDS, 2));
        assert_eq!(bound4.compare(&bound4), Agreement::Agree);
        assert_eq!(rounds2.compare(&v), Agreement::Disagree);
        let u = Answer::new(Verdict::Unknown, Scope::Complete);
        assert_eq!(u.compare(&v), Agreement::Unknown);
        assert!(!complete.contradicts(&v));
    }
}

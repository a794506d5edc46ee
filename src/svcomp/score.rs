//! Answers and SV-COMP's scoring of them (the competition rules: +2 for
//! a correct TRUE, +1 for a correct FALSE, −32 for a wrong TRUE, −16 for a
//! wrong FALSE, 0 for UNKNOWN).

/// The answer of a verifier to a task's property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The property holds (here: a proof, not a bounded result).
    True,
    /// The property is violated (a witness exists).
    False,
    /// No answer (a limit, a bounded result, an unsupported construct).
    Unknown,
}

impl Answer {
    /// The word BenchExec-style tools print: `TRUE`, `FALSE`, `UNKNOWN`.
    pub fn word(self) -> &'static str {
        match self {
            Answer::True => "TRUE",
            Answer::False => "FALSE",
            Answer::Unknown => "UNKNOWN",
        }
    }
}

/// SV-COMP points of `answer` for a task whose expected verdict is
/// `expected` (`true`: the property holds); `None` when the task states
/// no expected verdict (0 points).
pub fn points(answer: Answer, expected: Option<bool>) -> i32 {
    match (answer, expected) {
        (Answer::True, Some(true)) => 2,
        (Answer::False, Some(false)) => 1,
        (Answer::True, Some(false)) => -32,
        (Answer::False, Some(true)) => -16,
        _ => 0,
    }
}

/// True when `answer` contradicts `expected` (a wrong TRUE or FALSE).
pub fn wrong(answer: Answer, expected: Option<bool>) -> bool {
    points(answer, expected) < 0
}

/// Totals of a batch: score, counts per answer, wrong answers, and the
/// median time (seconds) per task.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Totals {
    /// Sum of [`points`].
    pub score: i32,
    /// TRUE answers.
    pub trues: usize,
    /// FALSE answers.
    pub falses: usize,
    /// UNKNOWN answers.
    pub unknowns: usize,
    /// Answers contradicting the expected verdict.
    pub wrong: usize,
    /// Median wall time per task (seconds; 0 for no task).
    pub median_time: f64,
}

/// The totals of `(answer, expected, seconds)` rows.
pub fn totals(rows: &[(Answer, Option<bool>, f64)]) -> Totals {
    let mut t = Totals::default();
    let mut times: Vec<f64> = rows.iter().map(|r| r.2).collect();
    times.sort_by(f64::total_cmp);
    for &(a, e, _) in rows {
        t.score += points(a, e);
        t.wrong += usize::from(wrong(a, e));
        match a {
            Answer::True => t.trues += 1,
            Answer::False => t.falses += 1,
            Answer::Unknown => t.unknowns += 1,
        }
    }
    let n = times.len();
    t.median_time = match n {
        0 => 0.0,
        _ if n % 2 == 1 => times[n / 2],
        _ => (times[n / 2 - 1] + times[n / 2]) / 2.0,
    };
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn competition_points() {
        assert_eq!(points(Answer::True, Some(true)), 2);
        assert_eq!(points(Answer::False, Some(false)), 1);
        assert_eq!(points(Answer::True, Some(false)), -32);
        assert_eq!(points(Answer::False, Some(true)), -16);
        assert_eq!(points(Answer::Unknown, Some(true)), 0);
        let t = totals(&[
            (Answer::True, Some(true), 1.0),
            (Answer::False, Some(true), 3.0),
            (Answer::Unknown, Some(false), 2.0),
        ]);
        assert_eq!(
            (t.score, t.trues, t.falses, t.unknowns, t.wrong),
            (-14, 1, 1, 1, 1)
        );
        assert_eq!(t.median_time, 2.0);
    }
}

//! Minimum-cost hitting set, solved exactly as a 0-1 ILP: one binary
//! variable per candidate, minimise Σ cost·x subject to Σ_{i∈C} x_i ≥ 1
//! for every clause C (Musketeer's and the thesis' fence ILP (6.12)–(6.14)
//! have this shape). Solved by `good_lp` with its pure-Rust `microlp`
//! backend (simplex with branch and bound).

use crate::diag::Error;
use good_lp::{microlp, variable, variables, Expression, Solution, SolverModel};

/// The cheapest set of candidates (indices `0..costs.len()`) that meets
/// every clause, as sorted indices, and its cost.
///
/// Errors: a clause is empty (infeasible) or the solver fails
/// ([`Error::Unknown`] with its message). Costs are exact up to 2⁵²
/// in total (the solver works in `f64`); the returned set is checked
/// against every clause.
pub fn min_hitting_set(costs: &[u64], clauses: &[Vec<usize>]) -> Result<(Vec<usize>, u64), Error> {
    if clauses.is_empty() {
        return Ok((Vec::new(), 0));
    }
    if clauses.iter().any(Vec::is_empty) {
        return Err(Error::Unknown(
            "an empty clause: no candidate hits it".into(),
        ));
    }
    let mut vars = variables!();
    let xs: Vec<_> = costs
        .iter()
        .map(|_| vars.add(variable().binary()))
        .collect();
    let objective: Expression = xs.iter().zip(costs).map(|(x, &c)| c as f64 * *x).sum();
    let mut model = vars.minimise(objective).using(microlp);
    for cl in clauses {
        let lhs: Expression = cl.iter().map(|&i| xs[i]).sum();
        model = model.with(lhs.geq(1.0));
    }
    let sol = model
        .solve()
        .map_err(|e| Error::Unknown(format!("hitting-set solver: {e}")))?;
    let chosen: Vec<usize> = (0..costs.len())
        .filter(|&i| sol.value(xs[i]) > 0.5)
        .collect();
    if let Some(cl) = clauses
        .iter()
        .find(|cl| !cl.iter().any(|i| chosen.contains(i)))
    {
        return Err(Error::Unknown(format!(
            "hitting-set solver returned a set missing clause {cl:?}"
        )));
    }
    let cost = chosen.iter().map(|&i| costs[i]).sum();
    Ok((chosen, cost))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force over all subsets.
    fn brute(costs: &[u64], clauses: &[Vec<usize>]) -> u64 {
        (0u32..1 << costs.len())
            .filter(|m| clauses.iter().all(|c| c.iter().any(|&i| m & (1 << i) != 0)))
            .map(|m| {
                (0..costs.len())
                    .filter(|i| m & (1 << i) != 0)
                    .map(|i| costs[i])
                    .sum()
            })
            .min()
            .unwrap_or(0)
    }

    #[test]
    fn agrees_with_brute_force() {
        let mut seed = 7u64;
        let mut rnd = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..200 {
            let n = 1 + rnd(7) as usize;
            let costs: Vec<u64> = (0..n).map(|_| 1 + rnd(4)).collect();
            let clauses: Vec<Vec<usize>> = (0..1 + rnd(5))
                .map(|_| {
                    let mut c: Vec<usize> = (0..n).filter(|_| rnd(3) == 0).collect();
                    if c.is_empty() {
                        c.push(rnd(n as u64) as usize);
                    }
                    c
                })
                .collect();
            let (set, cost) = min_hitting_set(&costs, &clauses).unwrap();
            assert_eq!(
                cost,
                brute(&costs, &clauses),
                "{costs:?} {clauses:?} {set:?}"
            );
        }
    }

    #[test]
    fn empty_clause_is_an_error() {
        assert!(min_hitting_set(&[1], &[vec![]]).is_err());
        assert_eq!(min_hitting_set(&[1], &[]).unwrap(), (vec![], 0));
    }
}

//! The proof of a certified formula's unsatisfiability: written by a
//! fresh varisat solver in varisat's own proof format (every learnt
//! clause with the clauses its unit propagation used), checked by the
//! `varisat-checker` crate, a checker separate from the solver's search
//! that re-derives each step by reverse unit propagation.

use super::formula::Formula;
use crate::diag::Error;
use std::path::Path;
use varisat::{ExtendFormula, ProofFormat, Solver};

/// Solves `f` from scratch with a fresh varisat solver writing its proof
/// in memory: `Ok(Some(proof))` when unsatisfiable (the proof is
/// complete, the bytes of `proof.varisat`), `Ok(None)` when satisfiable.
///
/// Errors: the solver failed.
pub fn prove(f: &Formula) -> Result<Option<Vec<u8>>, Error> {
    let mut proof = Vec::new();
    let sat = {
        let mut solver = Solver::new();
        solver.write_proof(&mut proof, ProofFormat::Varisat);
        for c in &f.clauses {
            solver.add_clause(c);
        }
        let sat = (solver.solve()).map_err(|e| Error::Tool(format!("varisat: {e}")))?;
        solver
            .close_proof()
            .map_err(|e| Error::Tool(format!("varisat: writing the proof: {e}")))?;
        sat
    };
    Ok((!sat).then_some(proof))
}

/// Records whether the checked proof derived unsatisfiability.
#[derive(Default)]
struct Unsat(bool);

impl varisat_checker::ProofTranscriptProcessor for Unsat {
    fn process_step(
        &mut self,
        step: &varisat_checker::ProofTranscriptStep,
    ) -> Result<(), anyhow::Error> {
        if let varisat_checker::ProofTranscriptStep::Unsat = step {
            self.0 = true;
        }
        Ok(())
    }
}

/// Checks the proof `proof` (varisat's format) of `f`'s unsatisfiability
/// with `varisat-checker`.
///
/// Errors (the certificate is rejected): the proof cannot be read, a step
/// does not follow, or it ends without deriving the empty clause.
pub fn check(f: &Formula, proof: &Path) -> Result<(), String> {
    let file = std::fs::File::open(proof).map_err(|e| format!("{}: {e}", proof.display()))?;
    let mut unsat = Unsat::default();
    {
        let mut checker = varisat_checker::Checker::new();
        checker.add_transcript(&mut unsat);
        for c in &f.clauses {
            checker
                .add_clause(c)
                .map_err(|e| format!("loading the formula: {e}"))?;
        }
        checker
            .check_proof(std::io::BufReader::new(file))
            .map_err(|e| format!("{}: {e}", proof.display()))?;
    }
    if unsat.0 {
        Ok(())
    } else {
        Err(format!(
            "{}: the proof does not derive unsatisfiability",
            proof.display()
        ))
    }
}

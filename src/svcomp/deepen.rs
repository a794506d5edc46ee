//! Complete answers for C programs by deepening the loop unwinding: the
//! C front-end unwinds every loop (and recursion) `--unwind` times and
//! says in a note which loops the bound cut (paths needing more
//! iterations end there, so no behaviour is added: a violation found at
//! any unwinding is real). Checking at increasing unwindings until one
//! cuts nothing makes "no violation" a proof for programs whose loops are
//! bounded; otherwise the answer stays bounded and says so.
//!
//! Each unwinding is checked under SC by the SMC engine
//! ([`crate::engines::smc`]) with the bound at the program's longest
//! path, so that the engine cuts no path either.

use crate::diag::{Error, SourceFile};
use crate::engines::smc::semantics::{Model, Step};
use crate::engines::smc::{self, Reduction, SmcCheck, SmcOptions, SmcVerdict};
use crate::program::{Program, Width};
use std::time::Instant;

/// The first unwinding tried.
pub const FIRST_UNWIND: u32 = 2;

/// The largest unwinding tried by default.
pub const DEFAULT_MAX_UNWIND: u32 = 64;

/// Options of [`deepen`].
#[derive(Clone, Debug)]
pub struct DeepenOptions {
    /// The C front-end's options; `c.unwind` is the first unwinding.
    pub c: crate::frontend::c::Options,
    /// The last unwinding tried (the unwinding doubles up to it).
    pub max_unwind: u32,
    /// Width of values (bits).
    pub width: Width,
    /// When to give up.
    pub deadline: Option<Instant>,
}

/// What [`deepen`] found.
#[derive(Clone, Debug)]
pub enum Deepened {
    /// A goal (error call) is reachable: the program at `unwind`, the
    /// goal (index into `Program::goals`) and the SMC steps reaching it.
    Violation {
        /// The unwinding of the program.
        unwind: u32,
        /// The program the steps run on.
        program: Program,
        /// The goal reached.
        goal: usize,
        /// The interleaving (SMC steps, SC: instructions only).
        steps: Vec<Step>,
    },
    /// No goal is reachable and the unwinding `unwind` cut no loop: a
    /// proof.
    Proof {
        /// The unwinding that cut nothing.
        unwind: u32,
    },
    /// No goal is reachable up to the largest unwinding, which still cut
    /// loops (`cut`: the front-end's note naming them).
    Bounded {
        /// The largest unwinding checked.
        unwind: u32,
        /// Which loops it cut.
        cut: String,
    },
    /// A limit (time, memory) or a refusal at a deeper unwinding ended
    /// the deepening; `bounded`: the largest unwinding with no violation.
    Unknown {
        /// The limit or refusal.
        reason: String,
        /// No violation up to this unwinding (which cut loops).
        bounded: Option<u32>,
    },
}

/// The note of the C front-end saying that `--unwind` cut loops, if the
/// program has one (`frontend::c` writes it as "--unwind N cut the loops
/// at FILE:LINE, …").
pub fn unwind_cut(p: &Program) -> Option<&str> {
    p.notes
        .iter()
        .map(String::as_str)
        .find(|n| n.starts_with("--unwind ") && n.contains(" cut "))
}

/// Checks `src` (C) at unwindings `c.unwind`, twice that, … up to
/// `max_unwind`, stopping at the first violation, the first unwinding
/// that cuts no loop, or a limit.
///
/// Errors: the front-end's errors at the first unwinding (a syntax
/// error, an unsupported construct: located, exit 2); the SMC engine's
/// refusal of a command. Errors at a deeper unwinding end the deepening
/// as [`Deepened::Unknown`].
pub fn deepen(src: &SourceFile, o: &DeepenOptions) -> Result<Deepened, Error> {
    let mut unwind = o.c.unwind.max(1);
    let mut bounded: Option<u32> = None;
    loop {
        let mut c = o.c.clone();
        c.unwind = unwind;
        let unknown = |reason: String| Deepened::Unknown { reason, bounded };
        if o.deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(unknown(format!(
                "time limit reached before --unwind {unwind}"
            )));
        }
        let p = match crate::frontend::parse_program_with(
            src,
            Some(crate::frontend::Format::C),
            o.width,
            &c,
        ) {
            Ok(p) => p,
            Err(e) if bounded.is_some() => {
                let msg = e.to_string();
                let first = msg.lines().next().unwrap_or("").trim().to_string();
                return Ok(unknown(format!("at --unwind {unwind}: {first}")));
            }
            Err(e) => return Err(e),
        };
        let so = SmcOptions {
            model: Model::Sc,
            width: o.width,
            bound: p.max_path.unwrap_or(crate::engines::bounded::DEFAULT_BOUND),
            check: SmcCheck::Reach,
            reduction: Reduction::Dpor,
            deadline: o.deadline,
            collect: false,
        };
        let r = smc::check(&p, &so)?;
        match r.verdict {
            SmcVerdict::Reachable { goal, steps } => {
                return Ok(Deepened::Violation {
                    unwind,
                    program: p,
                    goal,
                    steps,
                })
            }
            SmcVerdict::Unknown(why) => {
                return Ok(unknown(format!("{why} at --unwind {unwind}")));
            }
            SmcVerdict::Unreachable => {}
            SmcVerdict::NotRobust { .. } | SmcVerdict::Robust => {
                return Err(Error::Usage("the SMC engine answered another check".into()))
            }
        }
        let cut = unwind_cut(&p).map(str::to_string).or_else(|| {
            r.stats
                .bound_cut
                .then(|| format!("the bound {} cut paths", so.bound))
        });
        let Some(cut) = cut else {
            return Ok(Deepened::Proof { unwind });
        };
        bounded = Some(unwind);
        if unwind >= o.max_unwind {
            return Ok(Deepened::Bounded { unwind, cut });
        }
        unwind = unwind.saturating_mul(2).min(o.max_unwind);
    }
}
